"""Named, append-only schema migrations of the response store.

Each migration is applied once, in order, inside a transaction, and recorded by name in
``schema_migrations``. Never edit or reorder a released migration: append a new one.
"""

from __future__ import annotations

import sqlite3
import time

__all__ = ["MIGRATIONS", "applied_migrations", "apply_migrations"]

_REQUEST = """\
            key TEXT PRIMARY KEY,
            backend TEXT NOT NULL,
            model TEXT NOT NULL,
            endpoint TEXT NOT NULL,
            params TEXT NOT NULL CHECK (json_valid(params)),
            prompt TEXT NOT NULL CHECK (json_valid(prompt)),
            sample_index INTEGER NOT NULL,"""
"""The columns naming one request (its store key first): a stored response's and an exported batch
request's. Released (migrations 0001 and 0003): never edit it; a change is a new migration."""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "0001_responses",
        f"""
        CREATE TABLE responses (
{_REQUEST}
            text TEXT NOT NULL,
            finish_reason TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            latency REAL NOT NULL DEFAULT 0,
            created REAL NOT NULL,
            error TEXT
        );
        """,
    ),
    (
        "0002_seed_and_model_index",
        """
        ALTER TABLE responses ADD COLUMN seed INTEGER;
        CREATE INDEX responses_by_model ON responses (backend, model);
        """,
    ),
    (
        "0003_batch_requests",
        f"""
        CREATE TABLE batch_requests (
{_REQUEST}
            created REAL NOT NULL
        );
        """,
    ),
)


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations already applied to ``conn``'s database, in order."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied REAL NOT NULL)"
    )
    return [row[0] for row in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def apply_migrations(conn: sqlite3.Connection, upto: int | None = None) -> list[str]:
    """Apply every pending migration (or only the first ``upto``); return the names applied now.

    Args:
        conn: an open connection in autocommit mode (``isolation_level=None``).
        upto: apply only ``MIGRATIONS[:upto]`` (tests use it to build older databases).
    """
    done = set(applied_migrations(conn))
    applied = []
    for name, sql in MIGRATIONS[:upto]:
        if name in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT 1 FROM schema_migrations WHERE name = ?", (name,)).fetchone():
                conn.execute("COMMIT")  # another process applied it meanwhile
                continue
            for statement in filter(str.strip, sql.split(";")):
                conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations (name, applied) VALUES (?, ?)", (name, time.time()))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        applied.append(name)
    return applied
