"""`knowsum batch export|import`: what is refused before anything is made, refusals, conflicts, pending
requests, repeated prompts, and the store's advice when it is locked or damaged (real files, the real
CLI)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from knowsum.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"
RESULTS = FIXTURES / "batch_results.jsonl"


def _export_args(
    tmp_path: Path, prompts: str = "Name a human disease.\n\nName a GO biological process.\n"
) -> list[str]:
    file = tmp_path / "prompts.txt"
    file.write_text(prompts)
    return [
        "batch",
        "export",
        "-m",
        "openai:gpt-4o-mini",
        "--prompts",
        str(file),
        "-n",
        "2",
        "--max-tokens",
        "64",
        "--store",
        str(tmp_path / "s.sqlite"),
    ]


def _exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Export the four fixture requests into ``tmp_path/s.sqlite``; the import's --store args."""
    assert main([*_export_args(tmp_path), "-o", str(tmp_path / "batch.jsonl")]) == 0
    capsys.readouterr()
    return ["--store", str(tmp_path / "s.sqlite")]


def _lines() -> list[dict[str, object]]:
    return [json.loads(line) for line in RESULTS.read_text().splitlines()]


def _write(path: Path, lines: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _rows(tmp_path: Path) -> list[tuple[str, str, str | None]]:
    with sqlite3.connect(tmp_path / "s.sqlite") as conn:
        return sorted(conn.execute("SELECT key, text, error FROM responses").fetchall())


def _answer(line: dict[str, object], text: str) -> dict[str, object]:
    """A copy of the success line ``line`` answering ``text``."""
    copy = json.loads(json.dumps(line))
    copy["response"]["body"]["choices"][0]["message"]["content"] = text
    return copy


# 1. a failed export leaves nothing behind


def test_refused_parameters_make_no_store_and_no_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--top-k 5` for the openai server family: refused before the store or the file is made (was: an
    empty new store and `out.jsonl.tmp` left behind)."""
    out = tmp_path / "out.jsonl"
    args = [*_export_args(tmp_path), "--server-kind", "openai", "--top-k", "5", "-o", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "OpenAI's API has no top-k or min-p sampling" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["prompts.txt"]


@pytest.mark.slow
def test_a_locked_store_leaves_no_temporary_file_and_says_to_wait(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another process writes to the store for longer than the store waits (30 s): the export fails
    with advice to wait and rerun, and removes its temporary file (was: `out.jsonl.tmp` left, and the
    advice "pass another --store PATH")."""
    _exported(tmp_path, capsys)
    out = tmp_path / "more.jsonl"
    other = sqlite3.connect(tmp_path / "s.sqlite", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        args = [*_export_args(tmp_path, "Name a theorem.\n"), "-o", str(out)]
        assert main(args) == 6
    finally:
        other.execute("ROLLBACK")
        other.close()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"cannot write to response store {tmp_path / 's.sqlite'}" in err
    assert "another process is writing to it" in err and "wait until it has finished and rerun" in err
    assert "--store" not in err
    assert not out.exists() and not (tmp_path / "more.jsonl.tmp").exists()


# 2. an import needs the store the requests were exported from


def test_import_into_a_store_that_does_not_exist_is_refused_and_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(was: a new empty store made, then "custom_id … was not exported from nonexist.sqlite")"""
    missing = tmp_path / "nonexist.sqlite"
    assert main(["batch", "import", str(RESULTS), "--store", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"knowsum: error: {missing}: no response store here: batch import needs the store the requests "
        "were exported from; check --store\n"
    )
    assert list(tmp_path.iterdir()) == []


# 3. a refusal is that request's failure


def test_a_refusal_is_stored_as_that_requests_error_and_exported_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`message.content` null with `message.refusal`: the request's error, the rest imported (was:
    the whole file refused: "field response.body.choices[0].message.content is null")."""
    store = _exported(tmp_path, capsys)
    lines = _lines()
    message = lines[1]["response"]["body"]["choices"][0]["message"]  # type: ignore[index]
    message.update({"content": None, "refusal": "I'm sorry, I can't help with that."})
    results = _write(tmp_path / "results.jsonl", lines)
    assert main(["batch", "import", str(results), *store]) == 0
    assert capsys.readouterr().out == (
        f"imported 4 new responses (2 errors, 1 of them refusals) from {results}; 0 already stored "
        "(unchanged), 0 failed again (stored answer kept)\n"
    )
    errors = {e for _, _, e in _rows(tmp_path) if e is not None}
    assert errors == {
        "refused by the model: I'm sorry, I can't help with that.",
        "batch error (HTTP 429): Rate limit reached",
    }
    again = tmp_path / "again.jsonl"
    assert main([*_export_args(tmp_path), "-o", str(again)]) == 0
    assert {json.loads(line)["custom_id"] for line in again.read_text().splitlines()} == {
        lines[1]["custom_id"],
        lines[3]["custom_id"],
    }


# 4. another answer for a stored request is refused, before anything is written


def test_a_conflicting_answer_refuses_the_file_and_names_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(was: the other results written, the conflicts kept quietly, exit 0 naming no id)"""
    store = _exported(tmp_path, capsys)
    lines = _lines()
    first = _write(tmp_path / "first.jsonl", lines[:3])  # three answers; the fourth request still pending
    assert main(["batch", "import", str(first), *store]) == 0
    capsys.readouterr()
    before = _rows(tmp_path)
    pending = {**_answer(lines[0], "Necrosis."), "custom_id": lines[3]["custom_id"]}
    later = [_answer(lines[0], "Measles."), lines[1], _answer(lines[2], "Mitosis."), pending]
    results = _write(tmp_path / "later.jsonl", later)
    assert main(["batch", "import", str(results), *store]) == 2
    err = capsys.readouterr().err
    key = str(lines[0]["custom_id"])
    assert err.count("\n") == 1 and err.startswith(f"knowsum: error: {results}:1: custom_id {key[:16]}… ")
    assert 'answers "Measles." but the store already holds "Influenza." for it (1 other line conflict' in err
    assert "nothing was imported" in err
    assert _rows(tmp_path) == before  # not even the new answer of the pending request


def test_an_error_for_an_answered_request_is_not_a_conflict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _exported(tmp_path, capsys)
    lines = _lines()
    assert main(["batch", "import", str(RESULTS), *store]) == 0
    capsys.readouterr()
    before = _rows(tmp_path)
    failed = {**lines[3], "custom_id": lines[0]["custom_id"]}  # the 429 error line, for the answered request
    results = _write(tmp_path / "failed.jsonl", [failed, lines[1]])
    assert main(["batch", "import", str(results), *store]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"imported 0 new responses (0 errors, 0 of them refusals) from {results}; ")
    assert "1 already stored (unchanged), 1 failed again (stored answer kept)" in out
    assert _rows(tmp_path) == before


# 5. exported requests without a result are named as pending


def test_exported_requests_without_a_result_are_counted_as_pending(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = _exported(tmp_path, capsys)
    results = _write(tmp_path / "part.jsonl", _lines()[:2])
    assert main(["batch", "import", str(results), *store]) == 0
    assert capsys.readouterr().out == (
        f"imported 2 new responses (0 errors, 0 of them refusals) from {results}; 0 already stored "
        "(unchanged), 0 failed again (stored answer kept); 2 exported requests have no result in this "
        "file (still pending: `batch export` again)\n"
    )


# 6. repeated prompt lines, and nothing to export


def test_repeated_prompt_lines_are_reported_as_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """(was: "exported 4 pending requests (2 already stored)" with an empty store)"""
    out = tmp_path / "b.jsonl"
    args = _export_args(
        tmp_path, "Name a human disease.\nName a GO biological process.\nName a human disease.\n"
    )
    assert main([*args, "-o", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"exported 4 pending requests (0 already stored) to {out}; 1 repeated prompt line of "
        f"{tmp_path / 'prompts.txt'} asked once (line 3 repeats line 1)\n"
    )
    assert out.read_text() == (FIXTURES / "batch_input.jsonl").read_text()


def test_nothing_pending_writes_no_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(was: an empty JSONL file, which the Batch API refuses)"""
    store = _exported(tmp_path, capsys)
    lines = _lines()
    lines[3] = {**_answer(lines[0], "Mitosis."), "custom_id": lines[3]["custom_id"]}
    assert main(["batch", "import", str(_write(tmp_path / "all.jsonl", lines)), *store]) == 0
    capsys.readouterr()
    out = tmp_path / "none.jsonl"
    assert main([*_export_args(tmp_path), "-o", str(out)]) == 0
    assert capsys.readouterr().out == "nothing to export: every request is stored (no file written)\n"
    assert not out.exists() and not (tmp_path / "none.jsonl.tmp").exists()


# 8. a damaged store says how to recover it


def test_a_damaged_store_says_how_to_recover(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(was: "database disk image is malformed (pass another --store PATH)")"""
    store = _exported(tmp_path, capsys)
    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as conn:
        (index_page,) = conn.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_batch_requests_1'"
        ).fetchone()
        page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    with path.open("r+b") as fh:  # overwrite the batch requests' key index with garbage
        fh.seek((index_page - 1) * page_size)
        fh.write(b"\xff" * page_size)
    assert main(["batch", "import", str(RESULTS), *store]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"response store {path}: the store file is damaged" in err
    assert f'`sqlite3 {path} ".recover" | sqlite3 NEW.sqlite`' in err and "restore a copy" in err
