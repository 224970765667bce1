"""The SQLite response store: migrations, upserts, lookups, export."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest

from knowsum.errors import StoreError
from knowsum.models import GenerationParams, MockBackend, Request, ResponseStore, make_requests
from knowsum.models._migrations import MIGRATIONS, applied_migrations, apply_migrations

BACKEND = MockBackend(model_id="m")


def _resp(prompt: str = "p", index: int = 0, text: str = "t", error: str | None = None):  # type: ignore[no-untyped-def]
    req = Request(prompt=prompt, params=GenerationParams(seed=1), sample_index=index)
    if error is not None:
        return BACKEND.failure(req, error)
    return BACKEND.response(req, text, "stop", completion_tokens=2, latency=0.5)


def test_migrations_apply_to_an_empty_database(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as store:
        conn = store._conn
        assert applied_migrations(conn) == [name for name, _ in MIGRATIONS]
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"responses", "batch_requests", "schema_migrations"} <= tables
    # reopening applies nothing
    with ResponseStore(tmp_path / "s.sqlite") as store:
        assert apply_migrations(store._conn) == []


def test_migrations_upgrade_an_older_database_and_keep_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    assert apply_migrations(conn, upto=1) == ["0001_responses"]
    conn.execute(
        "INSERT INTO responses (key, backend, model, endpoint, params, prompt, sample_index, text,"
        " finish_reason, created) VALUES (?,?,?,?,?,?,?,?,?,?)",
        (
            "k1",
            "mock",
            "m",
            "mock",
            json.dumps(GenerationParams().as_dict()),
            '{"prompt":"old"}',
            4,
            "hi",
            "stop",
            1.0,
        ),
    )
    conn.close()
    with ResponseStore(path) as store:
        assert applied_migrations(store._conn) == [name for name, _ in MIGRATIONS]
        old = store.get("k1")
        assert (
            old is not None
            and old.text == "hi"
            and old.request.prompt == "old"
            and old.request.sample_index == 4
        )
        store.put(_resp())
        assert store.count() == 2


def test_a_broken_migration_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import knowsum.models._migrations as mig

    conn = sqlite3.connect(tmp_path / "b.sqlite", isolation_level=None)
    monkeypatch.setattr(
        mig, "MIGRATIONS", (*MIGRATIONS[:1], ("0002_bad", "CREATE TABLE x (a); SELEC nonsense"))
    )
    with pytest.raises(sqlite3.OperationalError):
        mig.apply_migrations(conn)
    assert applied_migrations(conn) == ["0001_responses"]
    assert conn.execute("SELECT name FROM sqlite_master WHERE name='x'").fetchone() is None


def test_put_get_round_trip(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as store:
        r = _resp("Name a disease", 3, "flu")
        store.put(r)
        got = store.get(r.key)
        assert got == r


def test_success_is_never_overwritten_but_errors_are(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as store:
        store.put(_resp(error="HTTP 500"))
        key = _resp().key
        assert store.done_keys([key]) == set()
        store.put(_resp(text="first"))
        store.put(_resp(text="second"))
        store.put(_resp(error="late failure"))
        got = store.get(key)
        assert got is not None and got.text == "first" and got.error is None
        assert store.count() == 1
        assert store.done_keys([key, "missing"]) == {key}


def test_done_keys_and_responses_in_chunks(tmp_path: Path) -> None:
    reqs = make_requests(["a", "b"], GenerationParams(), n=6000)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        store.put_many(BACKEND.response(r, str(r.sample_index), "stop") for r in reqs[::2])
        keys = [BACKEND.key(r) for r in reqs]
        assert store.done_keys(keys) == set(keys[::2])
        assert {r.key for r in store.responses(keys)} == set(keys[::2])
        assert len(list(store.responses())) == 6000
        few = keys[:10]  # few keys among many rows: looked up by primary key instead of a scan
        assert store.done_keys(few) == set(few[::2])


def test_info_and_export(tmp_path: Path) -> None:
    with ResponseStore(tmp_path / "s.sqlite") as store:
        store.put(_resp("a"))
        store.put(_resp("b", error="boom"))
        info = store.info()
        assert (info.responses, info.errors, info.models) == (2, 1, (("mock", "m", 2),))
        assert info.size > 0
        out = io.StringIO()
        assert store.export_jsonl(out) == 2
        rows = [json.loads(line) for line in out.getvalue().splitlines()]
        assert rows[0]["prompt"] == "a" and rows[0]["params"]["seed"] == 1 and rows[0]["text"] == "t"
        assert rows[1]["error"] == "boom"
        out = io.StringIO()
        assert store.export_jsonl(out, errors=False) == 1


def test_unopenable_store_is_a_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match=r"not-a-db\.sqlite"):
        ResponseStore(bad)
