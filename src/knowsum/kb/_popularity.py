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


def _sep(line: str) -> str:
    for sep in ("\t", ";", ","):
        if sep in line:
            return sep
    raise ValueError("no separator")


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
        try:
            cols = line.split(_sep(line))
            if len(cols) >= 4:
                rows.append(
                    PopularityRow(
                        cols[0].strip(),
                        cols[1:-2][0] if len(cols) == 4 else ";".join(cols[1:-2]),
                        int(cols[-1]),
                        int(cols[-2]),
                    )
                )
            elif len(cols) in (2, 3):
                rows.append(PopularityRow(cols[0].strip(), cols[1] if len(cols) == 3 else "", int(cols[-1])))
            else:
                raise ValueError("expected 2 to 4 columns")
        except ValueError as exc:
            if no == 1 and not rows:  # a header row
                continue
            raise InputFileError(
                path, f"expected ID<sep>[label<sep>[annotations<sep>]]count ({exc})", no, line
            ) from exc
    if not rows:
        raise InputFileError(path, "no rows")
    return rows
