"""Marks shown next to a census estimate that needs one: a clamped ``Û`` or a run with nothing to
estimate.

``Û(t)`` is reported as ``max(Û, 0)`` (SpadeR/iNEXT convention, :mod:`knowsum.stats.unseen`); the
value as computed is kept in the record (``n_unseen_raw``, ``unseen_raw``) and shown beside the
reported one wherever it differs. Reads census records only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knowsum.census.record import CensusRecord, CurvePoint
from knowsum.report import format_value

__all__ = ["NO_ITEMS", "clamp_mark", "clamp_note", "run_mark", "unseen_cell"]

NO_ITEMS = "no valid items"
"""Mark of a run without a single verified item (``N_seen = 0``: nothing to estimate)."""


def clamp_mark(raw: float | None) -> str:
    """``"Û clamped at 0 (raw −3.5)"`` when the computed ``Û`` is negative, else ``""``."""
    if raw is None or not raw < 0:
        return ""
    return f"Û clamped at 0 (raw {format_value(float(raw))})"


def run_mark(result: CensusRecord) -> str:
    """The mark of one run: :data:`NO_ITEMS`, a :func:`clamp_mark`, or ``""``."""
    if result.n_total is None or result.n_seen == 0:
        return NO_ITEMS
    return clamp_mark(result.n_unseen_raw)


def unseen_cell(value: float | None, raw: float | None) -> Any:
    """A table cell for ``Û``: the value, or ``"0 (raw -3.5, clamped at 0)"`` when clamped."""
    if raw is None or not raw < 0:
        return value
    return f"{format_value(value)} (raw {format_value(float(raw))}, clamped at 0)"


def clamp_note(points: Sequence[CurvePoint]) -> str:
    """A caption sentence naming the ``t`` where a curve's ``Û(t)`` was clamped at 0 (or ``""``)."""
    clamped = [c.t for c in points if c.unseen_raw is not None and c.unseen_raw < 0]
    if not clamped:
        return ""
    where = ", ".join(format_value(float(t)) for t in clamped[:6]) + ("…" if len(clamped) > 6 else "")
    return f" Û(t) was negative at t = {where}: drawn as 0 (N̂_tot = N_seen)."
