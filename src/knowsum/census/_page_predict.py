"""The prediction interval and the simulated error at the census's own ``t``, as the census surfaces
print them (terminal table, ``--json``, page). Reads census records only."""

from __future__ import annotations

from collections.abc import Sequence

from knowsum.census.record import CensusRecord
from knowsum.report import interval_text

__all__ = ["own_t_cell", "prediction_cell"]


def prediction_cell(result: CensusRecord, interval: Sequence[float] | None) -> str:
    """``[lo, hi]`` of a prediction interval, ``n/a: REASON`` when it cannot be formed, ``–`` in a
    record written before prediction intervals (no method recorded)."""
    if result.prediction_method is None and result.prediction_reason is None:
        return "–" if result.n_seen else "n/a: nothing to estimate (N_seen = 0)"
    return interval_text(interval, result.prediction_reason)


def own_t_cell(result: CensusRecord) -> str:
    """The simulated error at the census's own ``t`` in one line, or why there is none."""
    check = result.own_t_check
    if check is not None:
        err = "n/a" if check.error_total is None else f"{check.error_total:.0%}"
        return (
            f"{err} of N_tot at t = {check.t:g}, prediction interval covers {check.coverage:.0%} "
            f"({check.replicates} simulated censuses)"
        )
    if result.own_t_reason:
        return f"n/a: {result.own_t_reason}"
    return "–"
