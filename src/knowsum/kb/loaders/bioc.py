"""Readers of the Bioconductor annotation SQLite files shipped by Debian ``r-bioc-*`` packages (no R needed).

- ``GO.sqlite`` (GO.db): definitions and obsolete terms enrich the ``go`` KB.
- ``org.Hs.eg.sqlite`` (org.Hs.eg.db): the human gene records of :class:`~knowsum.kb.GeneStore`.
"""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

from knowsum.errors import SourceError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["enrich_go", "open_bioc"]

_ASPECT = {"BP": "biological_process", "MF": "molecular_function", "CC": "cellular_component"}


def open_bioc(path: Path, table: str) -> sqlite3.Connection:
    """Open a Bioconductor SQLite read-only and check that ``table`` is there.

    Raises:
        SourceError: not a SQLite file (corrupt/truncated) or lacks ``table`` (names the file).
    """
    try:
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        con.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall()
    except sqlite3.DatabaseError as exc:
        raise SourceError(
            f"{path}: corrupt, truncated or not the expected database ({exc}); delete it and reinstall"
        ) from exc
    return con


def enrich_go(data: OntologyData, path: Path) -> OntologyData:
    """Add GO.db definitions to ``data`` and its obsolete terms (flagged ``obsolete``)."""
    with contextlib.closing(open_bioc(path, "go_term")) as con:
        meta = dict(con.execute("SELECT name, value FROM metadata").fetchall())
        for go_id, definition in con.execute("SELECT go_id, definition FROM go_term"):
            rec = data.terms.get(go_id)
            if rec is not None and definition:
                rec.definition = definition
        for go_id, term, ont, definition in con.execute(
            "SELECT go_id, term, ontology, definition FROM go_obsolete"
        ):
            if go_id not in data.terms:
                data.add(TermRecord(go_id, term, _ASPECT.get(ont, ont), True, definition or ""))
    data.meta["definitions_release"] = meta.get("GOSOURCEDATE", "")
    return data
