"""`knowsum batch export|import`."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from knowsum.cli import main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "models"


def _export(tmp_path: Path, *extra: str) -> list[str]:
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("Name a human disease.\n\nName a GO biological process.\n")
    return [
        "batch",
        "export",
        "-m",
        "openai:gpt-4o-mini",
        "--prompts",
        str(prompts),
        "-n",
        "2",
        "--max-tokens",
        "64",
        "--store",
        str(tmp_path / "s.sqlite"),
        *extra,
    ]


def test_export_then_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "batch.jsonl"
    assert main([*_export(tmp_path), "-o", str(out)]) == 0
    assert capsys.readouterr().out == f"exported 4 pending requests (0 already stored) to {out}\n"
    assert out.read_text() == (FIXTURES / "batch_input.jsonl").read_text()

    results = FIXTURES / "batch_results.jsonl"
    assert main(["batch", "import", str(results), "--store", str(tmp_path / "s.sqlite")]) == 0
    assert capsys.readouterr().out == (
        f"imported 4 new responses (1 errors, 0 of them refusals) from {results}; 0 already stored "
        "(unchanged), 0 failed again (stored answer kept)\n"
    )

    again = tmp_path / "again.jsonl"
    assert main([*_export(tmp_path), "-o", str(again)]) == 0
    assert capsys.readouterr().out == f"exported 1 pending requests (3 already stored) to {again}\n"
    assert json.loads(again.read_text())["body"]["messages"][0]["content"] == "Name a GO biological process."


def test_export_needs_an_openai_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["batch", "export", "-m", "mock", "--prompts", "x", "-o", str(tmp_path / "o")]) == 2
    assert "needs --model openai:MODEL" in capsys.readouterr().err


def test_missing_prompts_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.txt"
    assert (
        main(["batch", "export", "-m", "openai:m", "--prompts", str(missing), "-o", str(tmp_path / "o")]) == 2
    )
    err = capsys.readouterr().err
    assert f"{missing}: no such file; check the path" in err and err.count("\n") == 1
    assert not (tmp_path / "o").exists()


def test_malformed_results_name_the_line_and_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*_export(tmp_path), "-o", str(tmp_path / "b.jsonl")]) == 0
    bad = tmp_path / "results.jsonl"
    lines = (FIXTURES / "batch_results.jsonl").read_text().splitlines()
    bad.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    capsys.readouterr()
    assert main(["batch", "import", str(bad), "--store", str(tmp_path / "s.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"knowsum: error: {bad}:2: not an OpenAI Batch result line") and "{not json" in err
    assert main(["store", "info", "--store", str(tmp_path / "s.sqlite")]) == 0
    assert "responses: 0 (0 errors)" in capsys.readouterr().out


def _exported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, list[str]]:
    """Export the four fixture requests into ``tmp_path/s.sqlite``; the exported file and the import args."""
    batch_file = tmp_path / "batch.jsonl"
    assert main([*_export(tmp_path), "-o", str(batch_file)]) == 0
    capsys.readouterr()
    return batch_file, ["--store", str(tmp_path / "s.sqlite")]


def _stored(tmp_path: Path) -> int:
    return int(sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT count(*) FROM responses").fetchone()[0])


def test_importing_the_request_file_is_refused_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The file `batch export` wrote is not a results file: refused, nothing stored (was: exit 0,
    "imported 2 responses (2 errors)" and error rows in the store)."""
    batch_file, store = _exported(tmp_path, capsys)
    assert main(["batch", "import", str(batch_file), *store]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"knowsum: error: {batch_file}:1: ")
    assert (
        "a batch request, not a result" in err and "import the results file the batch server returned" in err
    )
    assert _stored(tmp_path) == 0


def test_a_custom_id_given_twice_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two results for one request: refused naming both lines (was: "imported 2", one silently lost)."""
    _, store = _exported(tmp_path, capsys)
    lines = (FIXTURES / "batch_results.jsonl").read_text().splitlines()
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join([lines[0], lines[0].replace("Influenza.", "Measles.")]) + "\n")
    assert main(["batch", "import", str(twice), *store]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1
        and f"{twice}:2: custom_id 405100460e515c3c… appears twice (first on line 1)" in err
    )
    assert _stored(tmp_path) == 0


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"choices": []}, "field response.body.choices is []: the result holds no answer"),
        ({}, "field response.body.choices is missing: the result holds no answer"),
        (
            {"choices": [{"message": {"content": None}}]},
            "field response.body.choices[0].message.content is null",
        ),
        (
            {"choices": [{"text": "x"}], "usage": {"completion_tokens": "3"}},
            'field response.body.usage.completion_tokens is "3": expected a whole number',
        ),
    ],
)
def test_a_malformed_result_is_named_in_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], body: dict[str, object], words: str
) -> None:
    """A result without an answer says which field is wrong (was: ``IndexError('list index out of
    range')``)."""
    _, store = _exported(tmp_path, capsys)
    first = json.loads((FIXTURES / "batch_results.jsonl").read_text().splitlines()[0])
    first["response"]["body"] = body
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(first) + "\n")
    assert main(["batch", "import", str(bad), *store]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{bad}:1: not an OpenAI Batch result line: {words}" in err
    assert "Error(" not in err and "fix or remove it and import again" in err
    assert _stored(tmp_path) == 0


def test_an_empty_results_file_imports_nothing_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, store = _exported(tmp_path, capsys)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert main(["batch", "import", str(empty), *store]) == 2
    assert f"{empty}: no results in the file" in capsys.readouterr().err


def test_importing_the_same_results_again_says_nothing_new(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A second import of results already stored: counted as unchanged, and the store unchanged (was:
    "imported 4 responses"); a different answer is refused (tests/cli/test_batch_import_rules.py)."""
    _, store = _exported(tmp_path, capsys)
    results = FIXTURES / "batch_results.jsonl"
    assert main(["batch", "import", str(results), *store]) == 0
    capsys.readouterr()
    rows = sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT key, text FROM responses").fetchall()
    assert main(["batch", "import", str(results), *store]) == 0
    # the error result is imported again (an error is never a stored answer), the 3 answers unchanged
    assert capsys.readouterr().out == (
        f"imported 1 new responses (1 errors, 0 of them refusals) from {results}; 3 already stored "
        "(unchanged), 0 failed again (stored answer kept)\n"
    )
    after = sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT key, text FROM responses").fetchall()
    assert sorted(after) == sorted(rows)


def test_results_of_another_model_are_refused_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """body.model names another model than the exported request's: refused, nothing stored; a dated
    snapshot of the same model (the fixture's gpt-4o-mini-2024-07-18) is the same model."""
    _, store = _exported(tmp_path, capsys)
    other = tmp_path / "other.jsonl"
    other.write_text(
        (FIXTURES / "batch_results.jsonl").read_text().replace("gpt-4o-mini-2024", "llama-3-2024")
    )
    assert main(["batch", "import", str(other), *store]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"knowsum: error: {other}:1: ")
    assert "response.body.model is 'llama-3-2024-07-18' but the request was for 'gpt-4o-mini'" in err
    assert "--allow-model-mismatch" in err and _stored(tmp_path) == 0
    assert main(["batch", "import", str(other), "--allow-model-mismatch", *store]) == 0
    assert capsys.readouterr().out.startswith("imported 4 new responses (1 errors, 0 of them refusals)")
    models = sqlite3.connect(tmp_path / "s.sqlite").execute("SELECT DISTINCT model FROM responses").fetchall()
    assert models == [("gpt-4o-mini",)]
