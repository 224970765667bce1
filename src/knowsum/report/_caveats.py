"""How every surface prints caveats and intervals, from the record only (one place for all pages).

- :func:`marks` — the short marks of a record's caveats, ``"tiny sample; Û clamped at 0"`` (a table
  cell, a compare row, a profile card);
- :func:`marked` — a row or column label with its marks in brackets (compare tables);
- :func:`caveat_lines` — one ``caveat: …`` line per caveat for terminal output;
- :func:`caveat_sentence` — one caveat as a sentence starting with its mark (a harness log);
- :func:`caveat_section` — the page's "Caveats" section (each mark in bold, then its sentence);
- :func:`interval_text` — ``[lo, hi]``, or ``n/a: REASON`` when the interval cannot be a 95 % interval,
  never ``[x, x]``.

Records carry :class:`~knowsum.records.Caveat` s; nothing here re-derives a caveat.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from knowsum.caveats import NOTE, Caveat
from knowsum.report import _html as h
from knowsum.report._tables import format_value

__all__ = [
    "NA",
    "NOT_RESAMPLED",
    "caveat_lines",
    "caveat_section",
    "caveat_sentence",
    "interval_ends",
    "interval_text",
    "marked",
    "marks",
]

NA = "n/a"
"""What an interval that cannot be shown starts with: ``n/a: REASON``."""
NOT_RESAMPLED = f"{NA}: not asked (--n-bootstrap 0)"
"""An interval the user asked not to form: no bootstrap resamples."""


def marks(caveats: Iterable[Caveat] | None, sep: str = "; ") -> str:
    """The distinct marks of ``caveats`` in order (``""`` when there are none)."""
    return sep.join(dict.fromkeys(c.mark for c in caveats or ()))


def marked(label: str, caveats: Iterable[Caveat] | None) -> str:
    """``label`` followed by its caveats' marks in brackets: ``gpt-4 [differs: kb go vs doid]``."""
    shown = marks(caveats)
    return f"{label} [{shown}]" if shown else label


def caveat_sentence(c: Caveat) -> str:
    """The caveat as one sentence that starts with its mark: ``"tiny sample: only 3 queries…"`` (a
    :data:`~knowsum.caveats.NOTE` is its sentence alone: its mark says nothing)."""
    return c.message if c.kind == NOTE or c.message.startswith(c.mark) else f"{c.mark}: {c.message}"


def caveat_lines(caveats: Iterable[Caveat] | None, indent: str = "  ", skip: Sequence[str] = ()) -> list[str]:
    """``{indent}caveat: MESSAGE`` for each caveat whose message is not already among ``skip``
    (e.g. the notes printed next to it), after one ``{indent}caveats: MARKS`` line."""
    found = list(caveats or ())
    if not found:
        return []
    shown = " ".join(skip)
    lines = [f"{indent}caveats: {marks(found)}"]
    lines += [f"{indent}caveat: {caveat_sentence(c)}" for c in found if c.message not in shown]
    return lines


def caveat_section(caveats: Iterable[Caveat] | None, title: str = "Caveats") -> h.Markup:
    """A page section listing each caveat (mark in bold, then its sentence); empty without caveats."""
    found = list(caveats or ())
    if not found:
        return h.Markup("")
    items = [
        h.paragraph(
            h.Markup(f"<strong>{h.escape(c.mark)}</strong> — {h.escape(caveat_sentence(c))}"), cls="caveat"
        )
        for c in found
    ]
    return h.section(title, *items, anchor="caveats")


def interval_text(
    interval: Sequence[float | None] | None,
    reason: str | None,
    fmt: Callable[[float], str] = format_value,
    missing: str = "–",
) -> str:
    """``[lo, hi]``; ``n/a: REASON`` when ``reason`` is given (an interval that cannot be a 95 %
    interval) or the interval collapsed to a point; ``missing`` without an interval."""
    if reason:
        return f"{NA}: {reason}"
    if interval is None or interval[0] is None or interval[1] is None:
        return missing
    lo, hi = float(interval[0]), float(interval[1])
    if lo == hi:
        return f"{NA}: the interval is a point"
    return "[{}, {}]".format(*interval_ends(lo, hi, fmt))


def interval_ends(lo: float, hi: float, fmt: Callable[[float], str]) -> tuple[str, str]:
    """``fmt(lo)``, ``fmt(hi)``; where two different ends would print alike (``[0.0, 0.0]``: an
    interval narrower than the shown digits), with as many significant digits as tell them apart
    (up to 12), so that a printed interval is never a point that the figures are not."""
    a, b = fmt(lo), fmt(hi)
    digits = 4
    while a == b and lo != hi and digits <= 12:
        a, b = f"{lo:,.{digits}g}", f"{hi:,.{digits}g}"
        digits += 1
    return a, b
