"""What `--help` says is what the commands do (ranges, environment, what a compare refuses), the
`--json` of `store info` and `batch import`, which commands have no `--json` (the set docs/design.md
and docs/development.md name), and the batch import conflict message for 0, 1 and n other conflicts."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from knowsum.cli import cli, main
from tests.cli.test_batch_import_rules import _answer, _exported, _lines, _write

NO_JSON = {"ask", "batch export", "store export", "kb install", "models install", "models list"}
"""The commands without ``--json``: docs/design.md ("numbers as JSON") and docs/development.md name them."""


def _commands() -> dict[str, click.Command]:
    """Every leaf command of the CLI by its full name (``"census run"``)."""
    ctx = click.Context(cli)
    found: dict[str, click.Command] = {}

    def walk(group: click.Group, prefix: str) -> None:
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            assert cmd is not None, name
            full = f"{prefix}{name}"
            if isinstance(cmd, click.Group):
                walk(cmd, f"{full} ")
            else:
                found[full] = cmd

    walk(cli, "")
    return found


def _help(command: str, option: str) -> str:
    """The help line of ``option`` of ``command`` as ``--help`` shows it (unwrapped): declaration and text."""
    cmd = _commands()[command]
    ctx = click.Context(cmd, info_name=command)
    for param in cmd.params:
        if isinstance(param, click.Option) and option in param.opts:
            record = param.get_help_record(ctx)
            assert record is not None, (command, option)
            return " ".join(record)
    raise AssertionError(f"{command} has no {option}")


def test_every_command_takes_json_but_the_ones_the_docs_name() -> None:
    lacking = {name for name, cmd in _commands().items() if not any(p.name == "as_json" for p in cmd.params)}
    assert lacking == NO_JSON


@pytest.mark.parametrize(
    ("command", "option", "shown", "not_shown"),
    [
        ("recall compare", "--allow-mixed", "prompt template", "criterion"),
        ("genebench compare", "--allow-mixed", "question set", "criterion"),
        ("census compare", "--allow-mixed", "criterion, counting", ""),
        ("kb search", "--limit", "How many candidates", ""),
        ("batch export", "-o", "OpenAI Batch JSONL file", ""),
        ("recall run", "--n-buckets", "1<=x<=1000", "x>=1]"),
        ("recall score", "--n-buckets", "1<=x<=1000", "x>=1]"),
        ("census run", "--queries", "1 to 10,000,000", ""),
        ("census run", "--answers", "1 to 1,000", ""),
        ("census run", "--until-new-rate", "--until-new-rate EPS ", "FLOAT"),
        ("census run", "--until-coverage", "--until-coverage C ", "FLOAT"),
        ("census run", "--server-kind", "$KNOWSUM_SERVER_KIND", ""),
        ("profile plan", "--price-in", "give both --price-in and --price-out, or neither", ""),
        ("profile run", "--price-out", "give both --price-in and --price-out, or neither", ""),
        ("run", "--export-batch", "--base-url", ""),
    ],
)
def test_help_says_what_the_option_does(command: str, option: str, shown: str, not_shown: str) -> None:
    text = _help(command, option)
    assert shown in text, text
    assert not not_shown or not_shown not in text, text


def test_the_n_buckets_range_shown_is_the_one_enforced(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["recall", "run", "go", "-m", "mock", "--n-buckets", "1001"]) == 2
    assert "1001 is not in the range 1<=x<=1000" in capsys.readouterr().err


def test_store_info_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    assert main(["ask", "-m", "mock", "-n", "3", "--store", store, "Name a gene."]) == 0
    capsys.readouterr()
    assert main(["store", "info", "--store", store, "--json"]) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert out.count("\n") == 1
    assert data["path"] == store and data["responses"] == 3 and data["errors"] == 0
    assert data["size"] > 0  # bytes, the WAL included
    assert data["models"] == [{"backend": "mock", "model": "mock", "responses": 3}]


def test_store_info_json_before_anything_is_stored(
    tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["store", "info", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["responses"], data["errors"], data["size"], data["models"]) == (0, 0, 0, [])
    assert not (tmp_home / "store.sqlite").exists()  # info only reads


def test_batch_import_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = _exported(tmp_path, capsys)
    lines = _lines()
    results = _write(tmp_path / "r.jsonl", lines[:3])  # three answers, the fourth request still pending
    assert main(["batch", "import", str(results), *store, "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == {
        "results": str(results),
        "new": 3,
        "errors": 0,
        "refusals": 0,
        "unchanged": 0,
        "failed_again": 0,
        "missing": 1,
    }
    assert main(["batch", "import", str(results), *store, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["new"], again["unchanged"]) == (0, 3)


@pytest.mark.parametrize(
    ("conflicting", "said"),
    [
        (1, 'already holds "Influenza." for it; a stored answer'),
        (2, "(1 other line conflicts too); a stored answer"),
        (3, "(2 other lines conflict too); a stored answer"),
    ],
)
def test_the_conflict_message_counts_the_other_lines_in_good_english(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], conflicting: int, said: str
) -> None:
    store = _exported(tmp_path, capsys)
    lines = _lines()
    assert main(["batch", "import", str(_write(tmp_path / "first.jsonl", lines[:3])), *store]) == 0
    capsys.readouterr()
    later = [_answer(line, f"Other {i}.") if i < conflicting else line for i, line in enumerate(lines[:3])]
    assert main(["batch", "import", str(_write(tmp_path / "later.jsonl", later)), *store]) == 2
    err = capsys.readouterr().err
    assert said in err, err
    assert "0 other" not in err and "line conflict too" not in err
