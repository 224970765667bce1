"""docs/plugins.md's instrument (capitals), taken from the page and installed as a package, does what
the page says: listed by ``knowsum instruments``; joins ``profile run --budget smoke`` from its own
table, onto the card and the page; runs alone with ``knowsum run``; claims its own run folder; is an
inspect task whose log ``knowsum score`` reads back; and imports knowsum's public API only."""

from __future__ import annotations

import ast
import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.instrument import Instrument, get_instrument, instruments, wilson
from knowsum.models import MockBackend, Request, ResponseStore
from knowsum.profile import load_budget, load_profile
from tests.instrument._tutorial import PAGE, installed_tutorial, tutorial_files

ANSWERS = {
    "France": "Paris",
    "Japan": "tokyo.",
    "Kenya": "Mombasa",
    "Peru": " Lima\nit is Lima",
    "Canada": "?",
}
"""Replies to the smoke table's five countries: Paris, Tokyo and Lima exactly (case, spaces, final
period aside), Mombasa and "?" not: 3 of 5."""


def _reply(prompt: str) -> str:
    country = re.search(r"capital of (.+?)\?", prompt)
    assert country is not None, prompt
    return ANSWERS.get(country.group(1), "?")


def _answer(request: Request) -> str:
    return _reply(request.prompt or "")


@pytest.fixture
def capitals(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Instrument[Any, Any]]:
    """The page's package installed (and a working folder of its own)."""
    monkeypatch.chdir(tmp_path)
    with installed_tutorial(tmp_path / "knowsum-capitals"):
        yield get_instrument("capitals")


def _json(capsys: pytest.CaptureFixture[str]) -> Any:
    return json.loads(capsys.readouterr().out)


def test_the_page_holds_the_whole_package_and_it_imports_the_public_api_only() -> None:
    files = tutorial_files()
    assert set(files) == {
        "pyproject.toml",
        "src/knowsum_capitals/__init__.py",
        "src/knowsum_capitals/budgets/smoke.toml",
    }
    tree = ast.parse(files["src/knowsum_capitals/__init__.py"])
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    ours = [m for m in imported if m.split(".")[0] == "knowsum"]
    assert ours and not [m for m in ours if any(p.startswith("_") for p in m.split("."))]
    assert "knowsum.records.profile" not in ours
    assert "def run_capitals(" in files["src/knowsum_capitals/__init__.py"]  # the run function is on the page


def test_design_md_lists_the_interface_plugins_md_lists() -> None:
    def interface(page: Path) -> str:
        text = page.read_text(encoding="utf-8")
        found = re.search(r"^```\nknowsum\.Instrument\[Config, Record\]\n.*?^```$", text, re.S | re.M)
        assert found is not None, f"{page.name} has no interface block"
        return found.group(0)

    assert interface(PAGE) == interface(PAGE.parent / "design.md")


def test_it_is_listed_with_its_package(
    capitals: Instrument[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert list(instruments())[-1] == "capitals"
    assert main(["instruments", "--json"]) == 0
    listed = {i["name"]: i for i in _json(capsys)["instruments"]}
    assert listed["capitals"]["package"] == "knowsum-capitals" and listed["capitals"]["version"] == "0.1.0"


def test_its_run_scores_exact_matches_with_a_wilson_interval(
    capitals: Instrument[Any, Any], tmp_path: Path
) -> None:
    config = capitals.Config(countries=5)
    assert [r.params.temperature for r in capitals.requests(config, None)] == [0.0] * 5  # greedy
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = capitals.run(config, MockBackend(_answer), store=store, out=tmp_path / "run")
    assert (run.record.correct, run.record.n) == (3, 5)
    (share,) = capitals.measures(run.record, "run")
    lo, hi = wilson(3, 5)
    assert share.key == "capitals/accuracy" and share.value == pytest.approx(0.6)
    assert (share.lower, share.upper) == (lo, hi) and lo == pytest.approx(0.2307, abs=1e-4)  # Wilson 1927
    rows = [json.loads(line) for line in (run.out_dir / "answers.jsonl").read_text().splitlines()]
    assert [r["correct"] for r in rows] == [True, True, False, True, False]


def test_it_joins_the_smoke_budget_from_its_own_table_onto_the_card_and_page(
    capitals: Instrument[Any, Any], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    smoke = load_budget("smoke")
    assert {"census", "recall", "genebench", "capitals"} <= set(smoke.tables)
    assert smoke.part("capitals") == capitals.Config(countries=5)  # its budgets/smoke.toml
    for name, inst in instruments().items():  # the profile of the plug-in's part only (no KB needed)
        if name != "capitals":
            monkeypatch.setattr(inst, "budget_table", lambda budget: None)
    args = ["profile", "run", "-m", "mock", "--budget", "smoke", "--store", "s.sqlite", "--out", "prof"]
    assert main(args) == 0
    assert "capitals: capitals named exactly" in capsys.readouterr().out  # the card, as text
    profile = load_profile(Path("prof"))
    assert list(profile.instruments) == ["capitals"]
    (share,) = profile.measures()
    assert share.key == "capitals/accuracy" and share.value == 0.0  # the mock echoes the prompt
    page = Path("prof/index.html").read_text(encoding="utf-8")
    assert capitals.title in page and 'href="capitals-5/report.html"' in page


def test_it_runs_alone_and_claims_its_own_folder(
    capitals: Instrument[Any, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["run", "capitals", "-m", "mock", "--store", "s.sqlite", "--out", "alone", "--json"]
    assert main(args) == 0
    shown = _json(capsys)
    (run,) = shown["runs"]
    assert shown["instrument"] == "capitals" and run["out_dir"] == str(Path("alone/capitals-5"))
    assert [m["key"] for m in run["measures"]] == ["capitals/accuracy"]
    record = json.loads(Path("alone/capitals-5/result.json").read_text(encoding="utf-8"))
    assert record["kind"] == "capitals" and record["n"] == 5
    assert record["identity"] == {
        "what": "5 countries",
        "model": "mock",
        "temperature": "0.0",
        "max_tokens": "16",
    }
    assert main(args) == 0  # its finished folder is its own run: rewritten, not refused
    capsys.readouterr()
    assert main([*args[:3], "mock:other", *args[4:]]) == 2  # another model's run there is refused
    assert "alone holds a run of model=mock (other asked)" in capsys.readouterr().err  # OUT is one model's


def test_its_inspect_log_is_scored_by_knowsum_score(
    capitals: Instrument[Any, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("inspect_ai")
    from inspect_ai import eval as inspect_eval
    from inspect_ai.model import get_model

    from knowsum.harness.tasks import register_plug_ins
    from tests.harness._mock import assert_same_metrics, output

    assert register_plug_ins() == ["capitals"]  # `inspect eval knowsum/capitals`

    def answer(messages: Any, *_: Any) -> Any:
        return output(_reply(messages[-1].text))

    model = get_model("mockllm/model", custom_outputs=answer)
    (log,) = inspect_eval(
        "knowsum/capitals",
        task_args={"countries": 5},
        model=model,
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    assert main(["score", "capitals", "--inspect-log", log.location, "--out", "scored", "--json"]) == 0
    (run,) = _json(capsys)["runs"]
    (share,) = run["measures"]
    assert share["value"] == pytest.approx(0.6) and math.isclose(share["lower"], wilson(3, 5)[0])
    record = capitals.Record.model_validate_json(Path("scored/result.json").read_text(encoding="utf-8"))
    assert (record.correct, record.model, record.backend) == (3, "mockllm/model", "inspect")
    assert_same_metrics(log, record)  # the log's metrics are the run's card rows
