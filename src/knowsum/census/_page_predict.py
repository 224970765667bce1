"""The prediction interval and the simulated error at the census's own ``t``, as the census surfaces
print them (terminal table, ``--json``, page). Reads census records only."""

from __future__ import annotations

from collections.abc import Sequence

from knowsum.census.record import CensusRecord
from knowsum.report import interval_text
from knowsum.stats.own_t_text import SCORED_INTERVAL, percent, share

__all__ = ["own_t_cell", "prediction_cell"]


def prediction_cell(result: CensusRecord, interval: Sequence[float] | None) -> str:
    """``[lo, hi]`` of a prediction interval, ``n/a: REASON`` when it cannot be formed, ``–`` in a
    record written before prediction intervals (no method recorded)."""
    if result.prediction_method is None and result.prediction_reason is None:
        return "–" if result.n_seen else "n/a: nothing to estimate (N_seen = 0)"
    return interval_text(interval, result.prediction_reason)


def own_t_cell(result: CensusRecord) -> str:
    """The simulated error at the census's own ``t`` in one line, or why there is none: its figures in
    the words of :mod:`knowsum.stats.own_t_text` (``over 10,000%``, a coverage never rounded to 100 %)."""
    check = result.own_t_check
    if check is not None:
        return (
            f"{percent(check.error_total)} of N_tot at t = {check.t:g}, "
            f"prediction interval covers {share(check.coverage)} "
            f"({SCORED_INTERVAL}; {check.replicates} simulated censuses)"
        )
    if result.own_t_reason:
        return f"n/a: {result.own_t_reason}"
    return "–"
