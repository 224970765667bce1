"""Plain-text tables for terminals and Markdown, sharing one cell formatter.

Example:
    >>> print(markdown_table(["model", "N_seen"], [["a|b", 3]]))
    | model | N_seen |
    |---|---:|
    | a\\|b | 3 |
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["format_value", "markdown_table", "text_table"]


def format_value(value: Any, digits: int = 4) -> str:
    """Format a cell: floats with ``digits`` significant digits, ``None``/NaN as ``-``."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if value != value:
            return "-"
        return f"{value:,.{digits}g}" if abs(value) < 1e15 else f"{value:.3e}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _is_num(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _cells(rows: Iterable[Sequence[Any]], width: int, digits: int) -> tuple[list[list[str]], list[bool]]:
    raw = [list(r) for r in rows]
    for r in raw:
        if len(r) != width:
            raise ValueError(f"table row has {len(r)} cells, expected {width}")
    numeric = [bool(raw) and all(_is_num(r[c]) or r[c] is None for r in raw) for c in range(width)]
    text = [[" ".join(format_value(v, digits).split()) for v in r] for r in raw]
    return text, numeric


def markdown_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table; ``|`` inside cells is escaped, numbers right-aligned."""
    text, numeric = _cells(rows, len(headers), digits)
    esc = [[c.replace("|", "\\|") for c in r] for r in text]
    lines = ["| " + " | ".join(h.replace("|", "\\|") for h in headers) + " |"]
    lines.append("|" + "|".join("---:" if n else "---" for n in numeric) + "|")
    lines += ["| " + " | ".join(r) + " |" for r in esc]
    return "\n".join(lines)


def text_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 4) -> str:
    """A fixed-width terminal table (two spaces between columns, numbers right-aligned)."""
    text, numeric = _cells(rows, len(headers), digits)
    widths = [max([len(h)] + [len(r[c]) for r in text]) for c, h in enumerate(headers)]

    def fmt(cells: Sequence[str]) -> str:
        out = [c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True)]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(list(headers)), rule] + [fmt(r) for r in text])
