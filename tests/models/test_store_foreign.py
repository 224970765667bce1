"""A response store is only ever made in a new file, an empty one, or a store knowsum wrote.

(was: ``--store OTHER.sqlite`` turned any SQLite file into a store: another program's database or a
knowledge base got knowsum's tables and WAL mode; a foreign ``responses`` table was half-migrated.)
"""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from knowsum._util import storelock
from knowsum.cli import main
from knowsum.errors import StoreError
from knowsum.models import ResponseStore
from knowsum.models._migrations import MIGRATIONS, applied_migrations, apply_migrations


def _database(path: Path, *statements: str) -> str:
    """Make a SQLite file of another program's; return its hash."""
    conn = sqlite3.connect(path)
    for sql in statements:
        conn.execute(sql)
    conn.commit()
    conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _unchanged(path: Path, digest: str) -> bool:
    wal = Path(f"{path}-wal")
    return hashlib.sha256(path.read_bytes()).hexdigest() == digest and not wal.exists()


@pytest.mark.parametrize(
    ("statements", "named"),
    [
        (("CREATE TABLE customers (id INTEGER)",), "(customers)"),
        (("CREATE TABLE terms (id TEXT)", "CREATE TABLE edges (a TEXT, b TEXT)"), "(edges, terms)"),
        (("CREATE TABLE responses (id INTEGER)",), "(responses)"),
        (("CREATE TABLE schema_migrations (version TEXT)",), "(schema_migrations)"),
    ],
    ids=["other-program", "knowledge-base-like", "foreign-responses", "rails-migrations"],
)
@pytest.mark.parametrize("read_only", [False, True])
def test_another_programs_database_is_refused_and_left_untouched(
    tmp_path: Path, statements: tuple[str, ...], named: str, read_only: bool
) -> None:
    path = tmp_path / "other.sqlite"
    digest = _database(path, *statements)
    with pytest.raises(StoreError) as err:
        ResponseStore(path, read_only=read_only)
    assert str(err.value) == (
        f"cannot open response store {path}: it holds tables that are not a knowsum response store "
        f"{named}: give a new file or a store knowsum wrote as --store; it was not changed"
    )
    assert err.value.exit_code == 6 and _unchanged(path, digest)


def test_the_cli_refuses_another_database_before_writing_anything(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ask` and `batch import` (which refused, but after adding the tables and switching to WAL)."""
    path = tmp_path / "other.sqlite"
    digest = _database(path, "CREATE TABLE customers (id INTEGER)")
    results = tmp_path / "results.jsonl"
    results.write_text('{"custom_id": "k", "response": {"status_code": 200, "body": {}}}\n')
    for args in (["ask", "-m", "mock", "hi"], ["batch", "import", str(results)]):
        capsys.readouterr()
        assert main([*args, "--store", str(path)]) == 6
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"response store {path}: it holds tables" in err
        assert _unchanged(path, digest)


def test_an_empty_file_or_a_new_path_becomes_a_store(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    _database(tmp_path / "blank.sqlite")  # a SQLite file with no table yet
    for path in (empty, tmp_path / "blank.sqlite", tmp_path / "new.sqlite"):
        with ResponseStore(path) as store:
            assert applied_migrations(store._conn) == [name for name, _ in MIGRATIONS]


@pytest.mark.parametrize("upto", range(len(MIGRATIONS) + 1))
def test_a_store_of_every_schema_version_opens_and_migrates(tmp_path: Path, upto: int) -> None:
    """Also one killed between making ``schema_migrations`` and its first migration (``upto=0``)."""
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    apply_migrations(conn, upto=upto)
    conn.close()
    with ResponseStore(path) as store:
        assert applied_migrations(store._conn) == [name for name, _ in MIGRATIONS]


def test_a_damaged_store_read_only_says_how_to_recover(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`store info` / `store export` gave "cannot open …: database disk image is malformed; check
    --store", without the recovery recipe `ask` prints."""
    path = tmp_path / "s.sqlite"
    assert main(["ask", "-m", "mock", "hi", "--store", str(path)]) == 0
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[100:page] = b"\xff" * (page - 100)  # the schema's page: every open fails
    path.write_bytes(bytes(data))
    recipe = f'recover its rows with `sqlite3 {path} ".recover" | sqlite3 NEW.sqlite`'
    for args in (["store", "info"], ["store", "export", "-o", str(tmp_path / "out.jsonl")]):
        capsys.readouterr()
        assert main([*args, "--store", str(path)]) == 6
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the store file is damaged" in err and recipe in err


def test_a_lock_in_a_read_only_folder_is_the_stores_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sampling lock (made before the store is opened) said "cannot write …/s1.sqlite.lock:
    Read-only file system", exit 1; now the store's message, exit 6 (docs/reliability.md)."""
    store = tmp_path / "s1.sqlite"
    real = os.open

    def read_only(path: str | os.PathLike[str], *args: int) -> int:
        if str(path).endswith(".lock"):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), str(path))
        return real(path, *args)

    monkeypatch.setattr(os, "open", read_only)
    with pytest.raises(StoreError) as err, storelock.sampling_lock(store):
        pass
    assert str(err.value) == (
        f"cannot open response store {store}: {tmp_path} is read-only; pass --store PATH on a "
        "writable disk (or make it writable) and rerun"
    )
    assert err.value.exit_code == 6


def test_a_store_with_a_view_of_its_users_opens_and_a_newer_stores_schema_is_named(tmp_path: Path) -> None:
    """A knowsum store (its migrations recorded) may hold its user's views; a store whose migrations
    this version does not know was written by a newer knowsum, and says so (not "not a store")."""
    path = tmp_path / "s.sqlite"
    ResponseStore(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE VIEW answered AS SELECT key FROM responses")
    ResponseStore(path).close()  # opens: the view is the user's, the store is knowsum's
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO schema_migrations (name, applied) VALUES ('9999_future', 0)")
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    with pytest.raises(StoreError) as err:
        ResponseStore(path)
    assert "written by a newer knowsum (migrations 9999_future)" in str(err.value)
    assert "upgrade knowsum" in str(err.value)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
