"""The knowledge two census runs share (``knowsum census overlap``), as a table or JSON. Reads the
:class:`~knowsum.census.record.Overlap` record only."""

from __future__ import annotations

from typing import Any

from knowsum.census.record import Overlap
from knowsum.report import caveat_lines, format_value, markdown_table, marks, text_table

__all__ = ["overlap_data", "overlap_table"]


def overlap_table(result: Overlap, markdown: bool = False) -> str:
    """A heading line naming the two runs, then one row per estimator with s.e., interval and method."""
    unit = "responses (incidence)" if result.data == "incidence" else "mentions (abundance)"
    head = (
        f"shared by {result.models[0]} and {result.models[1]} · {result.task} · "
        f"criterion {result.criterion} · "
        f"N_seen {result.n_seen[0]:,} and {result.n_seen[1]:,} from {result.sizes[0]:,} and "
        f"{result.sizes[1]:,} {unit}"
    )
    rows: list[list[Any]] = []
    for e in result.estimates:
        iv = "–" if e.interval is None else f"[{format_value(e.interval[0])}, {format_value(e.interval[1])}]"
        se = "–" if e.std_error is None else e.std_error
        rows.append(
            [e.name, e.estimate, se, iv, e.method, marks(c for c in result.caveats if c.figure == e.name)]
        )
    headers = [
        "estimator",
        "shared items",
        "s.e.",
        f"{result.level:.0%} interval (log-normal)",
        "method",
        "caveats",
    ]
    table = (markdown_table if markdown else text_table)(headers, rows)
    return "\n".join([head, table, *caveat_lines(result.caveats, indent="")])


def overlap_data(result: Overlap) -> dict[str, Any]:
    """The overlap as one JSON-ready object."""
    return result.model_dump(mode="json")
