"""The one sentence that states a simulated check at an estimator's own ``t``
(:class:`~knowsum.stats.community.OwnTCheck`): printed beside a census's ``N̂_tot`` (its
``own-t-error`` caveat and the ``message`` of its record) and by ``knowsum estimate``, so that the two
surfaces say the same thing in the same words. Undefined figures (NaN) read ``n/a``."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

from knowsum.stats.community import OwnTCheck

__all__ = [
    "SCORED_INTERVAL",
    "describe_own_t",
    "finite_or_none",
    "own_t_dict",
    "percent",
    "share",
]

SCORED_INTERVAL = "the plug-in interval, v = Σh²f + Û + b̂², which a bootstrap or D̂ > 1 only widens"
"""Which prediction interval the check scores (:func:`knowsum.stats.community.score_linear`): the
census's own without a bootstrap and with a query dispersion ``D̂ = 1`` (the simulated community
draws items independently); with a bootstrap variance above the plug-in, or ``D̂ > 1``
(:mod:`knowsum.stats.dispersion`), the census's interval contains it, so its coverage is at least the
figure printed."""


def finite_or_none(x: float) -> float | None:
    """``x``, or ``None`` when it is NaN or infinite (how a record stores an undefined figure)."""
    return x if math.isfinite(x) else None


def percent(x: float | None) -> str:
    """An error or bias as a whole percentage; past 10,000 % (an estimator far beyond its range) a
    bound, ``over 10,000%``; ``n/a`` without a value. The one formatter of these figures on every
    surface (the census table and page, ``knowsum estimate``)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    return "over 10,000%" if abs(x) > 100 else f"{x:.0%}"


_pct = percent


def share(x: float | None) -> str:
    """A share in ``[0, 1]`` (a coverage, the share of n/a intervals) as a percentage that never reads
    as all or nothing when it is not: whole percent when that is exact to 0.05 points, else one
    decimal, and ``> 99.9%`` / ``< 0.1%`` beyond. Shares of 200 replicates (multiples of 0.5 %)
    print exactly, so parts that add up to a whole print as parts that add up to it."""
    if x is None or not math.isfinite(x):
        return "n/a"
    p = 100.0 * x
    if p in (0.0, 100.0):
        return f"{p:.0f}%"
    if 0.0 < p < 0.05:
        return "< 0.1%"
    if 99.95 <= p < 100.0:
        return "> 99.9%"
    whole = round(p)
    if abs(p - whole) < 0.05 and 0 < whole < 100:
        return f"{whole}%"
    return f"{p:.1f}%"


def _pct_se(x: float | None) -> str:
    """A Monte Carlo s.e. as ``±3%``, one decimal below 1 % so that it never reads ``±0%``;
    ``±n/a`` without a value, ``± over 10,000%`` past it."""
    if x is None or not math.isfinite(x):
        return "±n/a"
    if x > 100:
        return "± over 10,000%"
    return f"±{x:.1%}" if x < 0.01 else f"±{x:.0%}"


def _signed(x: float | None) -> str:
    """``+12%`` / ``-3%``, ``+0%`` for what rounds to zero (never ``-0%``), ``n/a`` without a value;
    ``over +10,000%`` / ``below -10,000%`` past 10,000 %."""
    if x is None or not math.isfinite(x):
        return "n/a"
    if abs(x) > 100:
        return "over +10,000%" if x > 0 else "below -10,000%"
    return f"{x if abs(x) >= 0.005 else 0.0:+.0%}"


def describe_own_t(check: OwnTCheck, *, whole: str = "census", unit: str = "queries") -> str:
    """The check in one sentence: the expected error of ``N̂_tot`` and of ``U`` (with its Monte Carlo
    s.e.), the bias, the prediction interval's coverage and which interval was scored
    (:data:`SCORED_INTERVAL`), and what was simulated (``whole``: what one
    replicate is, ``"census"`` or ``"sample"``; ``unit``: what it has ``check.n_queries`` of); the
    truncation level kept for every replicate is named where the estimator has one."""
    seen = check.community_size - check.undetected
    plural = f"{whole}es" if whole.endswith("s") else f"{whole}s"
    missing = "" if not check.unavailable > 0 else f"; n/a in {share(check.unavailable)} of them, each a miss"
    kept = "" if check.k is None else f", the {whole}'s k = {check.k} kept"
    return (
        f"at t = {check.t:g} from this {whole}: expected error {_pct(check.error_total)} of N_tot "
        f"({_pct_se(check.error_se)} MC; {_pct(check.error)} of the new items U, "
        f"bias {_signed(check.bias)}), "
        f"prediction interval covers {share(check.coverage)} "
        f"({_pct_se(check.coverage_se)}{missing}) — scored: {SCORED_INTERVAL}; "
        "simulated: "
        f"{check.replicates} {plural} of {check.n_queries:,} {unit} from the fitted community ({seen:,} seen "
        f"items + {check.undetected:,} unseen of equal probability, Chao1's lower bound, so at large t the "
        f"simulated error is optimistic){kept}"
    )


def own_t_dict(check: OwnTCheck, *, whole: str = "sample", unit: str = "observations") -> dict[str, Any]:
    """The one JSON object of a check, for ``knowsum estimate --json`` and a census record's
    ``own_t_check`` alike: its figures (an undefined one ``None``; without its time, so that the same
    sample and seed give the same object) and ``message``, the sentence of :func:`describe_own_t`."""
    figures: dict[str, Any] = {f.name: getattr(check, f.name) for f in fields(check) if f.name != "seconds"}
    figures = {k: finite_or_none(v) if isinstance(v, float) else v for k, v in figures.items()}
    return figures | {"message": describe_own_t(check, whole=whole, unit=unit)}
