"""`knowsum batch export|import`."""

from __future__ import annotations

import json
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
    assert capsys.readouterr().out == f"imported 4 responses (1 errors) from {results}\n"

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
    assert f"{missing}: cannot read prompts" in err and err.count("\n") == 1
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
