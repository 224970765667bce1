"""Web-popularity tables: ``(ID, count)`` rows for the recall instrument's popularity buckets.

The web-occurrence tables of GO and Uberon (from Bombieri et al., "Do LLMs Dream of Ontologies?",
CC0; shipped gzip-compressed in ``knowsum/kb/data``, see its README) are ``;``-separated without
header: ``ID;label;n_annotations;n_web_occurrences``. Generic two-column tables ``ID<sep>count``
(``,``, ``;`` or tab, optional header) are read too. Rows whose label contains the separator are
handled by taking the ID from the first field and the counts from the last fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from knowsum.errors import InputError, InputFileError
from knowsum.kb._sources import data_file, read_text

__all__ = ["POPULARITY_FILES", "PopularityRow", "load_popularity"]

POPULARITY_FILES = {
    "go": "data/web_popularity/go_web_occurrences.csv",
    "uberon": "data/web_popularity/uberon_web_occurrences.csv",
}


@dataclass(frozen=True, slots=True)
class PopularityRow:
    """One row: the ID, its label (``""`` if the table has none), the count, and annotations (or ``None``)."""

    id: str
    label: str
    count: int
    n_annotations: int | None = None


def _count(path: Path, no: int, line: str, cols: list[str], i: int, field: str) -> int:
    """Field ``i`` of a row as a count ``>= 0``, or one line naming file, line, field and value."""
    raw = cols[i].strip()
    try:
        value = int(raw)
    except ValueError:
        value = None
    if value is None or value < 0:
        problem = "is not a whole number" if value is None else "is negative"
        raise InputFileError(
            path,
            f"field {field} {raw!r} (column {i + 1}) {problem}: a popularity is a whole number >= 0; "
            "correct it, or remove the line",
            no,
            line,
        )
    return value


def load_popularity(kb: str | None = None, path: Path | None = None) -> list[PopularityRow]:
    """Read a popularity table.

    Args:
        kb: ``"go"`` or ``"uberon"`` to use the table shipped with knowsum (or, when it exists,
            ``$KNOWSUM_SHARED/data/web_popularity/…``) when ``path`` is not given.
        path: A table file (``--from FILE``).

    Raises:
        InputError: neither ``kb`` nor ``path``, or no web table for ``kb``.
        SourceError: the bundled table is missing (a broken install; says to pass a file).
        InputFileError: a malformed line (names file and line).
    """
    if path is None:
        if kb not in POPULARITY_FILES:
            raise InputError(
                f"no popularity table for {kb!r}; known: {', '.join(POPULARITY_FILES)} (or pass a file)"
            )
        path = data_file(POPULARITY_FILES[kb])
    try:
        lines = read_text(path).splitlines()
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise InputFileError(path, f"cannot read popularity table: {exc}") from exc
    rows: list[PopularityRow] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        sep = next((c for c in ("\t", ";", ",") if c in line), None)
        cols = line.split(sep) if sep is not None else [line]
        if no == 1 and not rows and not any(ch.isdigit() for ch in cols[0] + cols[-1]):
            continue  # a header row ("id,count"): neither the ID nor the count holds a digit
        if len(cols) < 2:
            raise InputFileError(
                path,
                "expected ID<sep>[label<sep>[annotations<sep>]]count (<sep>: tab, ; or ,), found one field",
                no,
                line,
            )
        if len(cols) >= 4:
            label = cols[1] if len(cols) == 4 else ";".join(cols[1:-2])
            count = _count(path, no, line, cols, len(cols) - 1, "n_web_occurrences")
            annotations = _count(path, no, line, cols, len(cols) - 2, "n_annotations")
            rows.append(PopularityRow(cols[0].strip(), label, count, annotations))
        else:
            count = _count(path, no, line, cols, len(cols) - 1, "count")
            rows.append(PopularityRow(cols[0].strip(), cols[1] if len(cols) == 3 else "", count))
    if not rows:
        raise InputFileError(path, "no rows")
    return rows
