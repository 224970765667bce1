"""The named-theorem list (``shared/data/theorems/theorems_1000plus.tsv``), keyed by Wikidata ID.

Columns: ``wikidata``, ``name``, ``wikipedia_titles`` (``|``-separated), ``msc``. The name is the
term name, Wikipedia titles are synonyms (scope ``TITLE``), the MSC code is the namespace.
"""

from __future__ import annotations

import csv
import io
import re

from knowsum.errors import InputFileError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["load_theorems_tsv"]

_COLUMNS = ("wikidata", "name", "wikipedia_titles", "msc")
_QID = re.compile(r"Q[1-9]\d*")
_HEADER = "\t".join(_COLUMNS)


def load_theorems_tsv(text: str, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from the theorem TSV.

    Raises:
        InputFileError: wrong header, a missing name or a malformed Wikidata ID (names file and line).
    """
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or tuple(c.strip().lower() for c in rows[0][:4]) != _COLUMNS:
        first = "\t".join(rows[0]) if rows else ""
        raise InputFileError(where, f"expected the header row {_HEADER!r}", 1, first)
    for no, row in enumerate(rows[1:], 2):
        if not row or not any(row):
            continue
        if len(row) < 2 or not _QID.fullmatch(row[0].strip()) or not row[1].strip():
            raise InputFileError(where, "expected a Wikidata ID (Q…) and a name", no, "\t".join(row))
        rec = data.add(TermRecord(row[0].strip(), row[1].strip(), row[3].strip() if len(row) > 3 else ""))
        titles = row[2].split("|") if len(row) > 2 else []
        rec.synonyms = [(t.strip(), "TITLE") for t in titles if t.strip() and t.strip() != rec.name]
    if not data.terms:
        raise InputFileError(where, "no theorem rows")
    return data
