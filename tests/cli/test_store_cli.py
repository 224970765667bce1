"""`knowsum store info|export`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main


def test_info_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "s.sqlite")
    assert main(["ask", "-m", "mock", "-n", "3", "--store", store, "Name a gene."]) == 0
    capsys.readouterr()
    assert main(["store", "info", "--store", store]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"path:      {store}"
    assert out[1] == "responses: 3 (0 errors)"
    assert out[2].startswith("size:      ") and out[2].endswith(" bytes")
    assert out[3:] == ["models:", "  mock:mock  3"]

    assert main(["store", "export", "--format", "jsonl", "--store", store]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["text"] for r in rows] == [f"Name a gene. #{i}" for i in range(3)]
    assert rows[0]["params"] == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 0,
        "min_p": 0.0,
        "max_tokens": 512,
        "seed": 0,
        "stop": [],
    }
    assert {
        "key",
        "backend",
        "model",
        "endpoint",
        "prompt",
        "sample_index",
        "seed",
        "finish_reason",
        "completion_tokens",
        "latency",
        "created",
        "error",
    } <= set(rows[0])

    target = tmp_path / "out.jsonl"
    assert main(["store", "export", "--store", store, "-o", str(target)]) == 0
    assert len(target.read_text().splitlines()) == 3
    assert f"exported 3 responses to {target}" in capsys.readouterr().err


def test_info_of_an_empty_default_store(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["store", "info"]) == 0
    out = capsys.readouterr().out
    assert (
        f"path:      {tmp_home / 'store.sqlite'}" in out
        and "responses: 0 (0 errors)" in out
        and "(none)" in out
    )


def test_a_corrupt_store_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 1000)
    assert main(["store", "info", "--store", str(bad)]) == 6
    err = capsys.readouterr().err
    assert err.startswith(f"knowsum: error: cannot open response store {bad}") and err.count("\n") == 1
