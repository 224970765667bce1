"""Confidence intervals for ``Û(t)``, ``N̂_tot`` and ``SKR`` from an estimate and its variance.

Two methods, one signature (:func:`intervals`):

``lognormal`` (the default) — Chao's log-transformed interval (Chao 1987, *Biometrics* 43:783–791;
the interval of SpadeR, iNEXT and EstimateS). The unseen part ``Û = N̂_tot − N_seen`` is taken
as log-normal, which keeps the interval on the possible side of the data::

    C = exp(z · sqrt(ln(1 + v / Û²)))
    N̂_tot ∈ [N_seen + Û / C,  N_seen + Û · C]        Û ∈ [Û / C, Û · C]
    SKR   ∈ [N_seen / (N_seen + Û · C),  N_seen / (N_seen + Û / C)]

with ``z`` the normal quantile of the level and ``v`` the variance of ``Û`` (here: the bootstrap
variance of the resampled ``Û*``). The lower end of ``N̂_tot`` is never below ``N_seen`` and that
of ``Û`` never below 0. When ``Û ≤ 0`` (nothing to extrapolate, or a negative Efron–Thisted
value) the interval is the point ``[N_seen, N_seen]`` (``Û ∈ [0, 0]``), as SpadeR and scikit-bio
return it when ``Û = 0`` — the limit of the formula as ``Û → 0``.

``percentile`` — the bootstrap percentile interval re-centred on the point estimate,
``[θ̂ − (mean* − q*_{α/2}), θ̂ + (q*_{1−α/2} − mean*)]`` (as copia reports it). It follows the
spread of the resamples; on small samples its lower end can fall below ``N_seen`` (below 0 for
``Û``), which no real total can, so each end is cut at the possible range (``Û ≥ 0``,
``N̂_tot ≥ N_seen``) and widened, if need be, to contain the point estimate (a skewed set of
resamples can put ``mean*`` outside its own quantiles); the ``SKR`` interval is ``N_seen`` over
the ends of the ``N̂_tot`` interval, as for ``lognormal``, hence in ``(0, 1]``. Copia reports
the uncut intervals; the cut is knowsum's (it keeps N̂_tot ≥ N_seen, as SpadeR and iNEXT report).

The point estimate passed in is the reported one, ``max(Û, 0)`` (see :mod:`knowsum.stats.unseen`);
the resampled ``Û*`` are used as computed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from knowsum.stats._errors import StatsError

__all__ = [
    "INTERVAL_METHODS",
    "IntervalMethod",
    "Intervals",
    "intervals",
    "lognormal_total",
    "recentred_percentile",
]

IntervalMethod = Literal["lognormal", "percentile"]
INTERVAL_METHODS: tuple[IntervalMethod, ...] = ("lognormal", "percentile")
"""Interval methods, the default first."""

Interval = tuple[float, float]
NAN_INTERVAL: Interval = (math.nan, math.nan)


@dataclass(frozen=True, slots=True)
class Intervals:
    """Intervals of the three quantities at one level.

    Attributes:
        method: ``lognormal`` or ``percentile``.
        unseen: Interval of ``Û(t)``.
        total: Interval of ``N̂_tot``.
        skr: Interval of ``SKR(t)``.
    """

    method: IntervalMethod
    unseen: Interval
    total: Interval
    skr: Interval


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise StatsError(f"level must be in (0, 1), got {level!r}")
    return float(norm.ppf((1 + level) / 2))


def lognormal_total(n_seen: float, unseen: float, variance: float, level: float = 0.95) -> Interval:
    """Chao's (1987) log-transformed interval of ``N̂_tot = N_seen + Û``.

    Args:
        n_seen: ``N_seen``.
        unseen: ``Û``, the estimated number of unseen items.
        variance: ``v``, the variance of ``Û`` (of ``N̂_tot``: the same, as ``N_seen`` is fixed).
        level: Coverage (default 0.95, ``z = 1.96``).

    Returns:
        ``(N_seen + Û/C, N_seen + Û·C)`` with ``C = exp(z·sqrt(ln(1 + v/Û²)))``; ``(N_seen, N_seen)``
        when ``Û ≤ 0``; NaNs when ``Û`` or ``v`` is not finite.
    """
    lo, hi = _lognormal_unseen(unseen, variance, level)
    return (n_seen + lo, n_seen + hi)


def _lognormal_unseen(unseen: float, variance: float, level: float) -> Interval:
    """``(Û/C, Û·C)`` (``(0, 0)`` when ``Û ≤ 0``; NaNs when ``Û`` or ``v`` is not finite)."""
    z = _z(level)
    if not (math.isfinite(unseen) and math.isfinite(variance)):
        return NAN_INTERVAL
    if unseen <= 0:
        return (0.0, 0.0)
    ratio = math.sqrt(max(variance, 0.0)) / unseen  # sqrt(v)/Û: no underflow of Û² for tiny Û
    c = math.exp(min(z * math.sqrt(math.log1p(ratio * ratio)), 700.0))  # e^700 ≈ 1e304, no overflow
    return (unseen / c, unseen * c)


def recentred_percentile(point: float, draws: NDArray[np.float64], level: float) -> Interval:
    """``[θ̂ − (mean* − q*_lo), θ̂ + (q*_hi − mean*)]`` over the finite ``draws``."""
    _z(level)
    finite = draws[np.isfinite(draws)]
    if finite.size == 0 or not math.isfinite(point):
        return NAN_INTERVAL
    lo, hi = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
    centre = float(finite.mean())
    return (point - (centre - float(lo)), point + (float(hi) - centre))


def _cut(iv: Interval, point: float, low: float, high: float) -> Interval:
    """``iv`` cut to ``[low, high]`` and widened to contain ``point`` (NaN ends stay NaN)."""
    lo, hi = iv
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return iv
    lo, hi = max(lo, low), min(hi, high)
    if math.isfinite(point):
        lo, hi = min(lo, point), max(hi, point)
    return (lo, hi)


def _skr(n_seen: float, total: Interval) -> Interval:
    lo, hi = total
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo <= 0:
        return NAN_INTERVAL
    return (n_seen / hi, n_seen / lo)


def intervals(
    method: IntervalMethod,
    n_seen: int,
    unseen: float,
    unseen_draws: NDArray[np.float64],
    seen_draws: NDArray[np.int64] | NDArray[np.float64],
    level: float = 0.95,
    ceiling: float = math.inf,
) -> Intervals:
    """Intervals of ``Û``, ``N̂_tot`` and ``SKR`` from the bootstrap draws of ``(Û*, N_seen*)``.

    Args:
        method: ``lognormal`` (Chao 1987, with ``v`` the sample variance of ``Û*``) or
            ``percentile`` (re-centred percentiles of ``Û*`` and ``N_seen* + Û*``, cut at the
            possible range; ``SKR`` from the ends of the ``N̂_tot`` interval, as for ``lognormal``).
        n_seen: ``N_seen`` of the sample.
        unseen: ``Û`` of the sample.
        unseen_draws: ``Û*`` of each resample.
        seen_draws: ``N_seen*`` of each resample (used by ``percentile`` only).
        level: Coverage.
        ceiling: The most ``Û`` can be (``t·n``: :attr:`~knowsum.stats.unseen.UnseenEstimate.ceiling`);
            both intervals' ends are cut there.

    Raises:
        StatsError: an unknown method or a level outside (0, 1).
    """
    if method == "lognormal":
        finite = unseen_draws[np.isfinite(unseen_draws)]
        with np.errstate(over="ignore"):  # draws past sqrt(float max) (Good–Toulmin): v = inf, n/a
            variance = float(np.var(finite, ddof=1)) if finite.size > 1 else math.nan
        lo, hi = (min(x, ceiling) for x in _lognormal_unseen(unseen, variance, level))
        total = (n_seen + lo, n_seen + hi)
        return Intervals(method, (lo, hi), total, _skr(n_seen, total))
    if method == "percentile":
        seen = np.asarray(seen_draws, dtype=np.float64)
        total_draws = seen + unseen_draws
        point_total = n_seen + unseen
        total = _cut(
            recentred_percentile(point_total, total_draws, level), point_total, n_seen, n_seen + ceiling
        )
        return Intervals(
            method,
            _cut(recentred_percentile(unseen, unseen_draws, level), unseen, 0.0, ceiling),
            total,
            _skr(n_seen, total),
        )
    raise StatsError(f"unknown interval method {method!r}; use one of {', '.join(INTERVAL_METHODS)}")
