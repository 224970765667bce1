"""The response store: one SQLite file (WAL) keeping every response under its key.

Rows are written one small transaction at a time as responses arrive, so a run killed at any moment
(even SIGKILL) keeps everything it finished. A key holds at most one row: a success is never
overwritten; a recorded error is replaced when a later attempt succeeds. JSON columns (``params``,
``prompt``) hold the sampling parameters and the prompt/messages; nothing is pickled and no
credentials are ever stored.

A store that cannot be written (full disk, read-only file system) raises one :class:`StoreError` whose
message names the store and what to do; SQLite rolls the failed transaction back, so every row written
before stays readable and a rerun after the cause is fixed resumes where the run stopped.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import quote

from knowsum._util import paths, storefaults
from knowsum.errors import InputFileError, StoreError
from knowsum.models._closing import Closing
from knowsum.models._migrations import MIGRATIONS, apply_migrations
from knowsum.models._params import GenerationParams, Request, Response

__all__ = ["ResponseStore", "StoreInfo", "stored_this_session"]

_COLUMNS = (
    "key, backend, model, endpoint, params, prompt, sample_index, seed, text, finish_reason,"
    " prompt_tokens, completion_tokens, latency, created, error"
)
_UPSERT = (
    f"INSERT INTO responses ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT(key) DO UPDATE SET text=excluded.text, finish_reason=excluded.finish_reason,"
    " prompt_tokens=excluded.prompt_tokens, completion_tokens=excluded.completion_tokens,"
    " latency=excluded.latency, created=excluded.created, error=excluded.error, seed=excluded.seed"
    " WHERE responses.error IS NOT NULL"
)
_CHUNK = 5000
_SESSION: dict[Path, list[int]] = {}
"""Per store (resolved path) this process opened for writing: [times opened, rows written]."""


def stored_this_session() -> dict[Path, tuple[int, int]]:
    """``(times opened, rows written)`` per response store this process opened for writing.

    The CLI reads it when a run is interrupted, to say how many responses are kept and where (the
    difference of two readings: what one command did).
    """
    return {path: (opened, written) for path, (opened, written) in _SESSION.items()}


@dataclass(frozen=True, slots=True)
class StoreInfo:
    """Summary of a store: path, row counts, models and file size (bytes, incl. WAL)."""

    path: Path
    responses: int
    errors: int
    models: tuple[tuple[str, str, int], ...]
    size: int


_OURS = frozenset({"responses", "batch_requests", "schema_migrations"})
"""The tables a knowsum store holds (:data:`~knowsum.models._migrations.MIGRATIONS`)."""
_MIGRATION_NAME = re.compile(r"\d{4}_\w+")
_NEWER = "newer knowsum"


def _foreign(conn: sqlite3.Connection) -> list[str]:
    """What makes ``conn``'s database something other than a knowsum store (or one being made): empty
    when it is empty or a knowsum store of any schema version this knowsum knows.

    A knowsum store has a ``schema_migrations (name, applied)`` table of migration names, recording
    ``0001_responses`` exactly when it holds ``responses``; a store that has it may hold views or
    tables of its user's as well (knowsum writes only its own). A store whose migrations this version
    does not know was written by a newer knowsum: ``newer knowsum (…)`` names them. Anything else
    (another program's database, a knowledge base, a foreign ``responses`` table) is named by its
    tables and views that are not ours, or, when they are ours by name only, by all of them.
    """
    found = sorted(
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
            " AND substr(name, 1, 7) != 'sqlite_'"
        )
    )
    if not found:
        return []
    if "schema_migrations" in found:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(schema_migrations)")}
        if columns == {"name", "applied"}:
            names = {row[0] for row in conn.execute("SELECT name FROM schema_migrations")}
            versioned = all(isinstance(n, str) and _MIGRATION_NAME.fullmatch(n) for n in names)
            if versioned and ("responses" in found) == (MIGRATIONS[0][0] in names):
                newer = sorted(names - {name for name, _ in MIGRATIONS})
                return [f"{_NEWER} (migrations {', '.join(newer)})"] if newer else []
    others = [name for name in found if name not in _OURS]
    return others or found


def _not_a_store(path: Path, foreign: list[str]) -> StoreError:
    if len(foreign) == 1 and foreign[0].startswith(_NEWER):
        return StoreError(
            f"cannot open response store {path}: it was written by a {foreign[0]}, whose schema this "
            "version does not know: upgrade knowsum to use it; it was not changed"
        )
    shown = ", ".join(foreign[:5]) + (", …" if len(foreign) > 5 else "")
    return StoreError(
        f"cannot open response store {path}: it holds tables that are not a knowsum response store "
        f"({shown}): give a new file or a store knowsum wrote as --store; it was not changed"
    )


def _row(r: Response) -> tuple[Any, ...]:
    q = r.request
    return (
        r.key,
        r.backend,
        r.model,
        r.endpoint,
        q.params.to_json(),
        q.payload.decode(),
        q.sample_index,
        q.seed,
        r.text,
        r.finish_reason,
        r.prompt_tokens,
        r.completion_tokens,
        r.latency,
        r.created,
        r.error,
    )


def _request(row: sqlite3.Row) -> Request:
    prompt = json.loads(row["prompt"])
    params = GenerationParams.from_dict(json.loads(row["params"]))
    if "messages" in prompt:
        msgs = tuple((m[0], m[1]) for m in prompt["messages"])
        return Request(messages=msgs, params=params, sample_index=row["sample_index"])
    return Request(prompt=prompt["prompt"], params=params, sample_index=row["sample_index"])


def _response(row: sqlite3.Row) -> Response:
    return Response(
        key=row["key"],
        request=_request(row),
        text=row["text"],
        finish_reason=row["finish_reason"],
        prompt_tokens=row["prompt_tokens"],
        completion_tokens=row["completion_tokens"],
        latency=row["latency"],
        created=row["created"],
        error=row["error"],
        backend=row["backend"],
        model=row["model"],
        endpoint=row["endpoint"],
    )


def _open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to the existing store at ``path`` (SQLite ``mode=ro`` URI).

    A store whose folder cannot be written has no ``-shm`` file for a WAL reader and cannot make
    one; when it holds no unmerged ``-wal`` file either (a store closed cleanly), it is opened as
    immutable, which needs neither.
    """
    if not path.exists():
        raise InputFileError(
            path,
            "no response store here; check --store (a store is made by the commands that sample: "
            "ask, census run, recall run, genebench run, batch export)",
        )
    if path.is_dir():
        raise InputFileError(path, "is a directory, not a response store; check --store")
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    wal = Path(f"{path}-wal")
    attempts = [uri]
    if not wal.exists() or wal.stat().st_size == 0:
        attempts.append(uri + "&immutable=1")
    last: sqlite3.Error | None = None
    for target in attempts:
        conn = sqlite3.connect(target, uri=True, isolation_level=None, check_same_thread=False, timeout=30)
        conn.row_factory = sqlite3.Row
        try:
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            foreign = _foreign(conn)
        except sqlite3.Error as exc:
            conn.close()
            last = exc
            continue
        if foreign:
            conn.close()
            raise _not_a_store(path, foreign)
        if "responses" not in tables:
            conn.close()
            raise StoreError(
                f"cannot open response store {path}: it holds no responses table (not a knowsum store?); "
                "check --store"
            )
        return conn
    assert last is not None
    raise storefaults.store_error(path, last, "open", read_only=True) from last


class ResponseStore(Closing):
    """The SQLite response store (use as a context manager, or call :meth:`close`).

    Args:
        path: database file; default :func:`knowsum.paths.store_path` (``$KNOWSUM_HOME/store.sqlite``).
        read_only: open an existing store for reading only (``store info``, ``store export``): nothing
            is created or migrated, and a store in a read-only folder (an archived store) is read as
            it is.

    Raises:
        InputFileError: ``read_only`` and there is no file at ``path``.
        StoreError: the store cannot be opened (not a store, a disk that refuses the write …).
    """

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else paths.store_path()
        self.read_only = read_only
        self._written = 0
        self._columns = _COLUMNS
        if read_only:
            self._conn = _open_read_only(self.path)
            names = {row[1] for row in self._conn.execute("PRAGMA table_info(responses)")}
            if "seed" not in names:  # a store written before the seed column, read without migrating it
                self._columns = _COLUMNS.replace(" seed,", " NULL AS seed,")
            return
        conn: sqlite3.Connection | None = None
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=30)
            conn.row_factory = sqlite3.Row
            foreign = _foreign(conn)  # read before anything is written: another database is left alone
            if foreign:
                conn.close()
                raise _not_a_store(self.path, foreign)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            apply_migrations(conn)
        except (sqlite3.Error, OSError) as exc:
            if conn is not None:  # not left open until garbage collection (it holds the -wal file)
                conn.close()
            raise storefaults.store_error(self.path, exc, "open") from exc
        self._conn = conn
        _SESSION.setdefault(self.path.resolve(), [0, 0])[0] += 1

    @property
    def written(self) -> int:
        """Rows this object wrote (new responses, and recorded errors replaced or added)."""
        return self._written

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._conn.close()

    def _execute(self, sql: str, args: Sequence[Any] = (), doing: str = "read") -> sqlite3.Cursor:
        if self.read_only and doing != "read":
            raise StoreError(f"cannot write to response store {self.path}: it was opened read-only")
        try:
            return self._conn.execute(sql, args)
        except sqlite3.Error as exc:
            raise storefaults.store_error(self.path, exc, doing, read_only=self.read_only) from exc

    def put(self, response: Response) -> None:
        """Write one response in its own transaction (a success is never overwritten)."""
        self._count(self._execute(_UPSERT, _row(response), "write to").rowcount)

    def put_many(self, responses: Iterable[Response]) -> None:
        """Write many responses in one transaction."""
        self._count(self._executemany(_UPSERT, (_row(r) for r in responses)))

    def _count(self, rows: int) -> None:
        if rows > 0:
            self._written += rows
            _SESSION.setdefault(self.path.resolve(), [0, 0])[1] += rows

    def _executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> int:
        """Run ``sql`` for every row in one transaction; return the number of rows changed."""
        if self.read_only:
            raise StoreError(f"cannot write to response store {self.path}: it was opened read-only")
        try:
            with self._conn:
                self._conn.execute("BEGIN")
                return int(self._conn.executemany(sql, rows).rowcount)
        except sqlite3.Error as exc:
            if self._conn.in_transaction:  # a failed COMMIT (disk full) may leave it open
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("ROLLBACK")
            raise storefaults.store_error(self.path, exc, "write to") from exc

    def done_keys(self, keys: Collection[str]) -> set[str]:
        """The subset of ``keys`` that already hold a successful response.

        Few keys are looked up by primary key; when they are many compared with the rows stored, one
        sequential scan of the key column is several times faster (10^6 keys: ~1 s instead of ~4 s).
        """
        rows = self._execute("SELECT coalesce(max(rowid), 0) FROM responses").fetchone()[0]
        if len(keys) * 4 >= rows:
            wanted = keys if isinstance(keys, (set, frozenset)) else set(keys)
            scan = self._execute("SELECT key FROM responses WHERE error IS NULL")
            return {k for (k,) in scan if k in wanted}
        done: set[str] = set()
        ordered = list(keys)
        for i in range(0, len(ordered), _CHUNK):
            chunk = ordered[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT key FROM responses WHERE key IN ({marks}) AND error IS NULL"
            done.update(row[0] for row in self._execute(sql, chunk))
        return done

    def get(self, key: str) -> Response | None:
        """The stored response of ``key`` (success or recorded error), if any."""
        row = self._execute(f"SELECT {self._columns} FROM responses WHERE key = ?", (key,)).fetchone()
        return _response(row) if row is not None else None

    def responses(self, keys: Sequence[str] | None = None, *, errors: bool = True) -> Iterator[Response]:
        """Stored responses: all of them (insertion order), or those of ``keys`` (order not kept)."""
        cond = "" if errors else " WHERE error IS NULL"
        if keys is None:
            yield from map(
                _response, self._execute(f"SELECT {self._columns} FROM responses{cond} ORDER BY rowid")
            )
            return
        extra = "" if errors else " AND error IS NULL"
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            sql = f"SELECT {self._columns} FROM responses WHERE key IN ({','.join('?' * len(chunk))}){extra}"
            yield from map(_response, self._execute(sql, chunk))

    def record_batch(self, rows: Iterable[tuple[str, Request, dict[str, str]]]) -> None:
        """Remember exported batch requests ``(key, request, backend identity)`` for :meth:`batch_request`."""
        sql = (
            "INSERT OR REPLACE INTO batch_requests (key, backend, model, endpoint, params, prompt,"
            " sample_index, created) VALUES (?,?,?,?,?,?,?,?)"
        )
        now = time.time()
        args = (
            (
                k,
                who["backend"],
                who["model"],
                who["endpoint"],
                r.params.to_json(),
                r.payload.decode(),
                r.sample_index,
                now,
            )
            for k, r, who in rows
        )
        self._executemany(sql, args)

    def batch_request(self, key: str) -> tuple[Request, dict[str, str]] | None:
        """The exported batch request of ``key`` and its backend identity, if it was exported here."""
        row = self._execute("SELECT * FROM batch_requests WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        return _request(row), {"backend": row["backend"], "model": row["model"], "endpoint": row["endpoint"]}

    def count(self) -> int:
        """Number of stored rows (successes and recorded errors)."""
        return int(self._execute("SELECT count(*) FROM responses").fetchone()[0])

    def info(self) -> StoreInfo:
        """Path, counts per (backend, model), errors and on-disk size."""
        models = tuple(
            (r[0], r[1], r[2])
            for r in self._execute(
                "SELECT backend, model, count(*) FROM responses GROUP BY backend, model ORDER BY 1, 2"
            )
        )
        errors = int(self._execute("SELECT count(*) FROM responses WHERE error IS NOT NULL").fetchone()[0])
        size = sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())
        return StoreInfo(self.path, self.count(), errors, models, size)

    def export_jsonl(self, out: TextIO, *, errors: bool = True) -> int:
        """Write every stored response as one JSON object per line; return the number written."""
        n = 0
        for row in self._execute(f"SELECT {self._columns} FROM responses ORDER BY rowid"):
            if row["error"] is not None and not errors:
                continue
            record = {k: row[k] for k in row.keys()}  # noqa: SIM118 - sqlite3.Row is not a Mapping
            record["params"] = json.loads(record["params"])
            record.update(json.loads(record.pop("prompt")))
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
            n += 1
        return n
