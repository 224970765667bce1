"""The named-theorem list (``theorems_1000plus.tsv``, bundled in ``knowsum/kb/data``), keyed by Wikidata ID.

Columns: ``wikidata``, ``name``, ``wikipedia_titles`` (``|``-separated), ``msc``. The name is the
term name, Wikipedia titles are synonyms (scope ``TITLE``), the MSC code is the namespace. Rows
repeating a Wikidata ID (17 in the 1,200-row snapshot, e.g. Q1067156 "Dominated convergence
theorem" / "Bounded convergence theorem") add their name as a synonym (scope ``NAME``), so the
1,200 rows give 1,183 theorems.
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
        InputFileError: wrong header, a row with another number of columns than the header (a short
            row is a cut or hand-trimmed file, not empty columns), a missing name or a malformed
            Wikidata ID (names file and line).
    """
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    if not rows or tuple(c.strip().lower() for c in rows[0][:4]) != _COLUMNS:
        first = "\t".join(rows[0]) if rows else ""
        raise InputFileError(where, f"expected the header row {_HEADER!r}", 1, first)
    width = len(rows[0])
    for no, row in enumerate(rows[1:], 2):
        if not row or not any(row):
            continue
        if len(row) != width:
            raise InputFileError(
                where,
                f"{len(row)} tab-separated columns, the header has {width}: give every row all "
                "columns (an empty column still needs its tab)",
                no,
                "\t".join(row),
            )
        if len(row) < 2 or not _QID.fullmatch(row[0].strip()) or not row[1].strip():
            raise InputFileError(where, "expected a Wikidata ID (Q…) and a name", no, "\t".join(row))
        qid, name = row[0].strip(), row[1].strip()
        rec = data.terms.get(qid)
        if rec is None:
            rec = data.add(TermRecord(qid, name, row[3].strip() if len(row) > 3 else ""))
        else:  # a second row for the same Wikidata item: another name of the same theorem
            rec.synonyms.append((name, "NAME"))
        titles = [t.strip() for t in row[2].split("|")] if len(row) > 2 else []
        known = {rec.name, *(s for s, _ in rec.synonyms)}
        rec.synonyms += [(t, "TITLE") for t in dict.fromkeys(titles) if t and t not in known]
    if not data.terms:
        raise InputFileError(where, "no theorem rows")
    return data
