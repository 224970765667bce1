"""Prediction intervals for new items, and the scores that judge an interval against what happened.

A **confidence interval** of ``Û(t)`` describes the uncertainty of the *estimate*: where ``E U(t)``
lies. A census user asks something else — how many new items will ``t`` times as many queries
*show*? The realised ``U(t)`` is random too, so its **prediction interval** must hold both parts::

    E(Û − U)² = Var(Û) + Var(U) + bias²        (Û and the future sample are independent)

- ``Var(Û)``: for the linear estimators ``Û = Σ_s h_s f_s`` (Good–Toulmin, Efron–Thisted /
  smoothed Good–Turing, KnowSum eq. 1), the Poisson plug-in ``Σ_s h_s² f_s`` (Orlitsky, Suresh & Wu
  2016, PNAS 113:13283, the variance part of their Lemma on ``E(Û − U)²`` under Poisson sampling,
  estimated by replacing ``E f_s`` by ``f_s``; :func:`plugin_variance`). Where no closed form exists
  (iNEXT's q = 0 extrapolation, the Chao asymptotes) the bootstrap variance of ``Û`` takes its place.
- ``Var(U)``: ``U = Σ_i 1{item i unseen now, seen in the future}`` is a sum of independent Bernoulli
  indicators under Poisson sampling, so ``Var(U) = Σ_i q_i (1 − q_i) ≤ E U``: the Poisson bound
  ``Var(U) ≈ E U``, estimated by ``max(Û, 0)`` (conservative by ``Σ q_i²``). A census's queries
  bring their new items in bundles, which makes ``Var(U)`` larger: the census's intervals multiply
  the bound by the queries' index of dispersion ``D̂ ≥ 1`` (:mod:`knowsum.stats.dispersion`),
  passed here as ``future_variance``.

:func:`prediction_bounds` puts the sum into Chao's (1987) log-normal form, the same shape as the
census's confidence interval: ``U ∈ [Û/C, Û·C]`` with ``C = exp(z·sqrt(ln(1 + v/Û²)))`` and
``v = Var̂(Û) + Û`` (``Var̂(Û) + D̂·Û`` for a census). It assumes (i) the future sample is
independent of the present one, and items enter independently or, with ``D̂``, in bundles of the
queries' dispersion; (ii) the estimator's bias is small beside ``sqrt(v)`` — the back-test
(:mod:`knowsum.stats.foresee`) checks this on the census's own queries. When ``Û ≤ 0`` the log-normal
form has no width and the interval is n/a (NaN ends); when ``Û < ln(2/α)`` (a few items, where
``U = 0`` is likely) the lower end is 0, the ``α/2`` quantile of the count ``U``.

Scores: the **interval score** of Gneiting & Raftery (2007, JASA 102:359, §6.2 eq. 43),
``S = (u − l) + (2/α)(l − x)·1{x < l} + (2/α)(x − u)·1{x > u}`` for a central ``(1 − α)`` interval
(lower is better: it charges width and misses), and the **Wilson score interval** of a coverage
share (Wilson 1927, JASA 22:209), which the trust horizon tests against the nominal level.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from scipy.stats import poisson

from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError

__all__ = [
    "interval_score",
    "plugin_variance",
    "prediction_bounds",
    "prediction_variance",
    "wilson_bounds",
]


def _z(level: float) -> float:
    if not 0 < level < 1:
        raise StatsError(f"level must be in (0, 1), got {level!r}")
    return NormalDist().inv_cdf(0.5 + level / 2)


def plugin_variance(hist: IntArray | FloatArray, weights: FloatArray) -> FloatArray:
    """``Σ_s h_s² f_s`` for each row of ``hist`` (``hist[b, s] = f_s``; a 1-D histogram gives a
    0-d array): the Poisson plug-in variance of the linear estimator ``Û = Σ_s h_s f_s``
    (Orlitsky, Suresh & Wu 2016). ``weights[s] = h_s``; counts above ``len(weights) − 1`` weigh 0.
    Where ``h_s²`` leaves the float range (Good–Toulmin at large ``t``) the row is ``inf`` or NaN,
    without a RuntimeWarning: :func:`prediction_bounds` reads a non-finite variance as n/a.
    """
    h = np.asarray(weights, dtype=np.float64)
    f = np.asarray(hist, dtype=np.float64)
    width = min(f.shape[-1], h.size)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(f[..., :width] @ (h[:width] * h[:width]), dtype=np.float64)


def prediction_variance(
    point: FloatArray | float,
    estimate_variance: FloatArray | float,
    future_variance: FloatArray | float | None = None,
) -> FloatArray:
    """``Var̂(Û) + Var̂(U)``: the estimate's variance plus the future ``U``'s, by default the Poisson
    bound ``max(Û, 0)`` (see the module docstring); a model that states its own ``Var(U)`` (the
    Pitman–Yor predictive) passes it as ``future_variance``. NaN where a variance is not finite."""
    u = np.asarray(point, dtype=np.float64)
    v = np.asarray(estimate_variance, dtype=np.float64)
    w = np.maximum(u, 0.0) if future_variance is None else np.asarray(future_variance, dtype=np.float64)
    return np.asarray(np.where(np.isfinite(v) & np.isfinite(w), v + w, np.nan))


def prediction_bounds(
    point: FloatArray | float,
    estimate_variance: FloatArray | float,
    level: float = 0.95,
    future_variance: FloatArray | float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """The log-normal ``level`` prediction interval of the new items ``U``: ``[Û/C, Û·C]``,
    ``C = exp(z·sqrt(ln(1 + v/Û²)))``, ``v`` = :func:`prediction_variance`. NaN ends (n/a) where
    ``Û ≤ 0`` or the variance is not finite. Add ``N_seen`` to both ends for ``N_tot``.

    ``U`` is a count, and ``Û/C > 0`` excludes ``U = 0``, the likeliest value when ``Û`` is a few
    items or less (small ``t``). The lower end of an equal-tailed prediction interval of a count is the
    ``α/2`` quantile of its predictive distribution (Krishnamoorthy & Peng 2011, *J. Stat. Plann.
    Inference* 141:1709, Poisson prediction limits), which is 0 when ``P(U = 0) > α/2``. Under the
    plug-in Poisson predictive ``P(U = 0) = e^{−Û}``, and the estimate's own spread only adds mass at
    0 (``E e^{−μ} ≥ e^{−E μ}``, Jensen), so the lower end is 0 where ``e^{−Û} > α/2``, i.e.
    ``Û < ln(2/α)`` (3.69 items at 95 %); above it the log-normal end stands.

    ``Û ≤ 0`` (a saturated sample, or the smoothed estimators' alternating weights at large ``t``)
    leaves the log-normal form without a centre, but not ``U`` without a bound: ``E U ≥ 0`` lies below
    ``μ⁺ = z·sqrt(v)`` at the one-sided ``1 − α/2`` level (``v`` the estimate's variance: the future's
    ``D̂·max(Û, 0)`` is 0), and ``U`` below the ``1 − α/2`` quantile of Poisson(``μ⁺``), so the interval
    is ``[0, that quantile]`` — knowsum's own conservative bound (the two ``α/2`` levels compound to at
    least ``1 − α``), not the paper's. Where ``v = 0`` too it is the point ``[0, 0]``: n/a (NaN)."""
    z = _z(level)
    u = np.asarray(point, dtype=np.float64)
    v = prediction_variance(u, estimate_variance, future_variance)
    ok = (u > 0) & np.isfinite(u) & np.isfinite(v)
    zero = u < math.log(2.0 / (1.0 - level))
    none = (u <= 0) & np.isfinite(v) & (v > 0)  # Û ≤ 0: [0, Poisson quantile at z·sqrt(v)]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = np.exp(z * np.sqrt(np.log1p(v / (u * u))))
        top = poisson.ppf(0.5 + level / 2, z * np.sqrt(np.where(none, v, 0.0)))
        lower = np.where(ok, np.where(zero, 0.0, u / c), np.where(none, 0.0, np.nan))
        return lower, np.where(ok, u * c, np.where(none, top, np.nan))


def interval_score(
    lower: FloatArray | float, upper: FloatArray | float, observed: FloatArray | float, level: float = 0.95
) -> FloatArray:
    """Gneiting & Raftery's (2007, eq. 43) interval score of central ``level`` intervals:
    ``(u − l) + (2/α)(l − x)·1{x < l} + (2/α)(x − u)·1{x > u}``, ``α = 1 − level``. NaN where an
    interval is n/a."""
    _z(level)
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    x = np.asarray(observed, dtype=np.float64)
    alpha = 1.0 - level
    return np.asarray(
        (hi - lo) + (2.0 / alpha) * np.maximum(lo - x, 0.0) + (2.0 / alpha) * np.maximum(x - hi, 0.0)
    )


def wilson_bounds(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's (1927) score interval of a proportion ``successes/trials`` (two-sided ``level``)."""
    if trials < 1 or not 0 <= successes <= trials:
        raise StatsError(f"need 0 <= successes <= trials and trials >= 1, got {successes}/{trials}")
    z = _z(level)
    p = successes / trials
    denom = 1.0 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
