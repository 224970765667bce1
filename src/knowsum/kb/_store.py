"""The normalized on-disk form of an ontology: one SQLite file per knowledge base.

Loaders produce an :class:`OntologyData` (mutable builder records); :func:`write_store` writes it
atomically (temporary file, then rename: an interrupted install leaves nothing half-written);
:func:`read_store` returns the rows the :class:`~knowsum.kb.Ontology` is built from. Tables::

    meta(key, value)                      name, release, source, format version
    terms(id, name, namespace, obsolete, definition)
    synonyms(id, text, scope)             alt_ids(alt, id)
    relations(id, rel, parent)            xrefs(id, xref)         props(id, key, value)
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from knowsum.errors import SourceError
from knowsum.kb._term import Synonym, Term

__all__ = ["FORMAT_VERSION", "OntologyData", "TermRecord", "TermTable", "read_store", "write_store"]

#: Bumped whenever the schema or a loader's normalization changes; installs with another version redo.
FORMAT_VERSION = "3"

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE terms(id TEXT PRIMARY KEY, name TEXT NOT NULL, namespace TEXT NOT NULL,
                   obsolete INTEGER NOT NULL, definition TEXT NOT NULL);
CREATE TABLE synonyms(id TEXT NOT NULL, text TEXT NOT NULL, scope TEXT NOT NULL);
CREATE TABLE alt_ids(alt TEXT PRIMARY KEY, id TEXT NOT NULL);
CREATE TABLE relations(id TEXT NOT NULL, rel TEXT NOT NULL, parent TEXT NOT NULL);
CREATE TABLE xrefs(id TEXT NOT NULL, xref TEXT NOT NULL);
CREATE TABLE props(id TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL);
"""


@dataclass(slots=True)
class TermRecord:
    """Mutable record a loader fills in; frozen into a :class:`Term` on read."""

    id: str
    name: str
    namespace: str = ""
    obsolete: bool = False
    definition: str = ""
    synonyms: list[tuple[str, str]] = field(default_factory=list)
    alt_ids: list[str] = field(default_factory=list)
    relations: list[tuple[str, str]] = field(default_factory=list)
    xrefs: list[str] = field(default_factory=list)
    props: list[tuple[str, str]] = field(default_factory=list)


@dataclass(slots=True)
class OntologyData:
    """Everything a loader read from one source, keyed by primary ID."""

    name: str
    release: str
    source: str
    terms: dict[str, TermRecord] = field(default_factory=dict)
    meta: dict[str, str] = field(default_factory=dict)

    def add(self, record: TermRecord) -> TermRecord:
        """Add (or replace) a term record and return it."""
        self.terms[record.id] = record
        return record


def write_store(data: OntologyData, path: Path) -> None:
    """Write ``data`` to the SQLite file ``path`` atomically."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    try:
        con.executescript(_SCHEMA)
        meta = {
            "name": data.name,
            "release": data.release,
            "source": data.source,
            "format": FORMAT_VERSION,
            **data.meta,
        }
        con.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
        recs = list(data.terms.values())
        con.executemany(
            "INSERT INTO terms VALUES (?, ?, ?, ?, ?)",
            ((r.id, r.name, r.namespace, int(r.obsolete), r.definition) for r in recs),
        )
        con.executemany(
            "INSERT INTO synonyms VALUES (?, ?, ?)", ((r.id, t, s) for r in recs for t, s in r.synonyms)
        )
        alts = {a: r.id for r in recs for a in r.alt_ids if a not in data.terms}
        con.executemany("INSERT INTO alt_ids VALUES (?, ?)", alts.items())
        con.executemany(
            "INSERT INTO relations VALUES (?, ?, ?)", ((r.id, k, p) for r in recs for k, p in r.relations)
        )
        con.executemany("INSERT INTO xrefs VALUES (?, ?)", ((r.id, x) for r in recs for x in r.xrefs))
        con.executemany(
            "INSERT INTO props VALUES (?, ?, ?)", ((r.id, k, v) for r in recs for k, v in r.props)
        )
        con.commit()
    except BaseException:
        con.close()
        tmp.unlink(missing_ok=True)
        raise
    con.close()
    os.replace(tmp, path)


def _grouped(rows: list[tuple[str, ...]]) -> dict[str, list[tuple[str, ...]]]:
    out: dict[str, list[tuple[str, ...]]] = {}
    for row in rows:
        out.setdefault(row[0], []).append(row[1:])
    return out


_NONE: list[tuple[str, ...]] = []


class TermTable(Mapping[str, Term]):
    """Terms by primary ID, built from the store rows on first access (then cached).

    Building every frozen :class:`Term` up front costs more than reading the rows; most uses touch a
    fraction of the terms, so loading stays well under a second even for GO.
    """

    def __init__(
        self, rows: dict[str, tuple[str, str, int, str]], parts: dict[str, dict[str, list[tuple[str, ...]]]]
    ):
        self._rows = rows
        self._parts = parts
        self._cache: dict[str, Term] = {}

    def __getitem__(self, tid: str) -> Term:
        term = self._cache.get(tid)
        if term is None:
            name, ns, obs, definition = self._rows[tid]
            p = self._parts
            term = Term(
                tid,
                name,
                ns,
                bool(obs),
                definition,
                tuple(Synonym(t, s) for t, s in p["syn"].get(tid, _NONE)),
                tuple(a for (a,) in p["alt"].get(tid, _NONE)),
                tuple((r, q) for r, q in p["rel"].get(tid, _NONE)),
                tuple(x for (x,) in p["xref"].get(tid, _NONE)),
                tuple((k, v) for k, v in p["prop"].get(tid, _NONE)),
            )
            self._cache[tid] = term
        return term

    def __contains__(self, tid: object) -> bool:
        return tid in self._rows

    def __iter__(self) -> Iterator[str]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)


def read_store(path: Path) -> tuple[dict[str, str], TermTable, dict[str, str]]:
    """Read a store written by :func:`write_store`.

    Returns:
        ``(meta, terms by primary ID, alt ID → primary ID)``.

    Raises:
        SourceError: if the file is not a readable knowsum store (corrupt or truncated).
    """
    try:
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as con:
            meta = dict(con.execute("SELECT key, value FROM meta").fetchall())
            parts = {
                "syn": _grouped(con.execute("SELECT id, text, scope FROM synonyms").fetchall()),
                "rel": _grouped(con.execute("SELECT id, rel, parent FROM relations").fetchall()),
                "xref": _grouped(con.execute("SELECT id, xref FROM xrefs").fetchall()),
                "prop": _grouped(con.execute("SELECT id, key, value FROM props").fetchall()),
            }
            alts = dict(con.execute("SELECT alt, id FROM alt_ids").fetchall())
            parts["alt"] = _grouped([(p, a) for a, p in alts.items()])
            rows = {
                r[0]: r[1:]
                for r in con.execute("SELECT id, name, namespace, obsolete, definition FROM terms")
            }
    except sqlite3.DatabaseError as exc:
        raise SourceError(
            f"{path}: not a readable knowledge-base store ({exc}); reinstall it with --force"
        ) from exc
    return meta, TermTable(rows, parts), alts
