"""A census run folder is never silently replaced by a smaller census of the same run.

``queries`` is not part of a census's identity, so that a larger ``--queries`` resumes and extends a
run from the response store. A smaller one used to rewrite the folder with fewer queries (a 30-query
census became a 12-query one, exit 0); it is refused, naming both sizes, unless ``--overwrite``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main

ECHO = Path(__file__).resolve().parents[2] / "examples" / "census" / "echo.toml"


def test_fewer_queries_are_refused_more_extend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, store = tmp_path / "ce", tmp_path / "e.sqlite"
    base = ["census", "run", "--config", str(ECHO), "-m", "mock", "--store", str(store), "--n-bootstrap", "0"]
    base += ["--out", str(out), "--queries"]
    assert main([*base, "12"]) == 0
    assert main([*base, "20"]) == 0  # more: the same run, extended
    before = (out / "result.json").read_bytes()
    assert json.loads(before)["n_queries"] == 20
    capsys.readouterr()
    assert main([*base, "8"]) == 2
    err = capsys.readouterr().err
    assert f"{out} holds a census of 20 queries; --queries 8 would replace it with a smaller one" in err
    assert (out / "result.json").read_bytes() == before  # untouched
    assert main([*base, "8", "--overwrite"]) == 0
    assert json.loads((out / "result.json").read_text(encoding="utf-8"))["n_queries"] == 8
