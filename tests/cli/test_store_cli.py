"""`knowsum store info|export`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from knowsum.cli import main
from tests._mounts import remount, tmpfs


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


@pytest.mark.parametrize("command", ["info", "export"])
def test_a_store_that_does_not_exist_is_an_error_not_a_new_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """A typo in --store is one line and exit 2 (was: an empty store created, "0 responses")."""
    typo = tmp_path / "typo.sqlite"
    assert main(["store", command, "--store", str(typo)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        f"knowsum: error: {typo}: no response store here; check --store"
    )
    assert list(tmp_path.iterdir()) == []  # nothing created: no store, no -wal, no -shm


def test_the_default_store_is_not_created_by_reading_it(
    tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["store", "info"]) == 0 and "responses: 0 (0 errors)" in capsys.readouterr().out
    assert main(["store", "export"]) == 0 and capsys.readouterr().out == ""
    assert not (tmp_home / "store.sqlite").exists()


def test_reading_leaves_the_store_file_as_it_was(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.sqlite"
    assert main(["ask", "-m", "mock", "-n", "2", "--store", str(store), "hi"]) == 0
    before = store.read_bytes()
    assert main(["store", "info", "--store", str(store)]) == 0
    assert main(["store", "export", "--store", str(store)]) == 0
    assert store.read_bytes() == before  # (a WAL reader may leave an empty -wal and the -shm index)
    assert {p.name for p in tmp_path.iterdir()} <= {"s.sqlite", "s.sqlite-wal", "s.sqlite-shm"}
    assert not Path(f"{store}-wal").exists() or Path(f"{store}-wal").stat().st_size == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs (needs root, as in CI)")
def test_an_archived_store_in_a_read_only_folder_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``store info|export`` read a store on a read-only file system (was: exit 6 "read-only")."""
    with tmpfs(tmp_path / "disk") as disk:
        store = disk / "s.sqlite"
        assert main(["ask", "-m", "mock", "-n", "3", "--store", str(store), "Name a gene."]) == 0
        remount(disk, "ro")
        try:
            capsys.readouterr()
            assert main(["store", "info", "--store", str(store)]) == 0
            assert "responses: 3 (0 errors)" in capsys.readouterr().out
            assert main(["store", "export", "--store", str(store)]) == 0
            rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            assert [r["text"] for r in rows] == [f"Name a gene. #{i}" for i in range(3)]
            assert sorted(p.name for p in disk.iterdir()) == ["s.sqlite"]
        finally:
            remount(disk, "rw")
