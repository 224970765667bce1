"""The response store on a full disk and on a read-only file system (real tmpfs mounts; needs root).

Each test mounts its own small tmpfs under ``tmp_path`` and unmounts it afterwards, also on failure.
Checked: writing fails with ONE line naming the store and what to do (library: a ``StoreError``; CLI:
exit 6, that line on stderr, no traceback), every row written before stays readable,
``PRAGMA integrity_check`` is ok, and a rerun once space is freed / the disk is writable completes.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import StoreError
from knowsum.models import GenerationParams, MockBackend, ResponseStore, make_requests, sample_sync
from tests._mounts import fill, remount, tmpfs

TEXT = "x" * 2000
"""A 2 KB answer: a few hundred of them overflow the 1 MiB disk."""


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs mounted at ``tmp_path/disk`` (unmounted at the end, whatever happened)."""
    with tmpfs(tmp_path / "disk", "1m") as where:
        yield where


def _requests(n: int) -> list:  # type: ignore[type-arg]
    return make_requests(["Name a disease."], GenerationParams(seed=3), n=n)


def _mock() -> MockBackend:
    return MockBackend(script=lambda r: f"{r.sample_index} {TEXT}", batch_size=8)


def _check(db: Path, immutable: bool = False) -> dict[str, str]:
    """Open with plain sqlite3: integrity ok; return key → text of the stored rows.

    ``immutable``: read the database file alone, creating nothing (on a full disk SQLite cannot create
    the ``-shm`` file a WAL reader needs); only valid when no ``-wal`` file holds rows (it may exist
    empty: a failed open created it).
    """
    if immutable:
        wal = Path(f"{db}-wal")
        assert not wal.exists() or wal.stat().st_size == 0, wal.stat()
    conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1" if immutable else db, uri=immutable)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        rows = conn.execute("SELECT key, text, error FROM responses").fetchall()
    finally:
        conn.close()
    assert all(error is None for _, _, error in rows)
    return {k: t for k, t, _ in rows}


def _one_line(err: str, path: Path, cause: str) -> None:
    """One line on stderr, no traceback; failing at open (the WAL file cannot be created) or write."""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert re.match(
        rf"knowsum: error: cannot (open|write to) response store {re.escape(f'{path}: {cause}')}", err
    ), err


def test_full_disk_fails_with_one_line_keeps_every_earlier_row_and_resumes(disk: Path) -> None:
    db = disk / "store.sqlite"
    with ResponseStore(db) as store:
        first = sample_sync(_mock(), _requests(40), store=store, progress=False)
        before = {r.key: r.text for r in first}
        filler = fill(disk)
        with pytest.raises(StoreError) as caught:
            sample_sync(_mock(), _requests(150), store=store, progress=False)
        message = str(caught.value)
        assert "\n" not in message
        assert message.startswith(f"cannot write to response store {db}: the disk is full; free space")
        assert "--store PATH" in message and "stored so far are kept" in message
        kept = _check(db)
        assert len(kept) >= 40 and all(kept[k] == t for k, t in before.items())  # nothing lost
        filler.unlink()  # space again: the same store object carries on where the run stopped
        done = sample_sync(_mock(), _requests(150), store=store, progress=False)
    assert len(done) == 150 and all(r.ok for r in done)
    rows = _check(db)
    assert len(rows) == 150 and rows == {r.key: r.text for r in done}


def test_full_disk_through_the_cli_exits_6_with_one_line(
    disk: Path, tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = disk / "store.sqlite"
    args = ["ask", "Name a disease.", "--model", "mock", "--seed", "3", "--store", str(db)]
    assert main([*args, "-n", "20"]) == 0
    capsys.readouterr()
    before = _check(db)
    filler = fill(disk)
    assert main([*args, "-n", "600"]) == 6
    _one_line(capsys.readouterr().err, db, "the disk is full; free space on it")
    after = _check(db, immutable=True)
    assert len(after) >= 20 and all(after[k] == t for k, t in before.items())
    filler.unlink()
    assert main([*args, "-n", "600"]) == 0
    assert len(_check(db)) == 600
    # a new store on a full disk: the same kind of line, at open time (a command that writes: `store
    # info` only reads, and never creates a store)
    filler = fill(disk)
    capsys.readouterr()
    assert main(["ask", "x", "--model", "mock", "--store", str(disk / "new.sqlite")]) == 6
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(
        f"knowsum: error: cannot open response store {disk / 'new.sqlite'}: the disk is full"
    )


def test_read_only_file_system_fails_with_one_line_and_leaves_the_store_untouched(
    disk: Path, tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = disk / "store.sqlite"
    args = ["ask", "Name a disease.", "--model", "mock", "--seed", "3"]
    assert main([*args, "-n", "20", "--store", str(db)]) == 0
    before = _check(db)
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    remount(disk, "ro")
    capsys.readouterr()
    for store in (db, disk / "new.sqlite", disk / "sub" / "new.sqlite"):
        assert main([*args, "-n", "30", "--store", str(store)]) == 6
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert err.startswith(f"knowsum: error: cannot open response store {store}: {disk} is read-only;"), (
            err
        )
        assert "pass --store PATH on a writable disk" in err
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest and not (disk / "new.sqlite").exists()
    remount(disk, "rw")
    assert _check(db) == before
    assert main([*args, "-n", "30", "--store", str(db)]) == 0  # writable again: resumes
    assert len(_check(db)) == 30


def test_a_census_run_directory_on_a_full_or_read_only_disk_is_one_line(
    disk: Path, tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The store is fine but the run directory cannot be written: one line, exit 1, no result.json."""
    out = disk / "run"
    args = ["census", "run", "custom", "--prompt", "List {n} birds.", "--answers", "5", "--model", "mock"]
    args += [
        "--queries",
        "5",
        "--n-bootstrap",
        "10",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(out),
    ]
    filler = fill(disk)
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith("knowsum: error: cannot write") and "Traceback" not in err
    assert err.endswith("the disk is full: free space on it (or write elsewhere) and rerun")
    assert not (out / "result.json").exists()  # absent: the run is not marked finished
    filler.unlink()
    remount(disk, "ro")
    # a read-only --out is found by the write guard before the model is asked anything (exit 2)
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "read-only disk or folder" in err[0] and "Traceback" not in err[0]
    remount(disk, "rw")
    assert main(args) == 0 and (out / "result.json").is_file()  # writable again: the rerun finishes
