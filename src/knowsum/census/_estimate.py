"""Estimation (KnowSum Algorithm 1, steps 4-5): histogram, Û(t) with band, held-out check.

- :func:`curve` — ``Û(t)``, ``N̂_tot(t)`` and ``SKR(t)`` on a log grid of ``t`` up to the
  run's ``t``, each with a bootstrap band (whole queries resampled; paper Fig. 8).
- :func:`heldout_check` — paper §5.1 / Fig. 7: shuffle the queries (100 times, as the paper),
  observe the first fraction ``r_obs ∈ {1/2, 1/3, 1/4}``, and compare the estimate ``Û(h/m)``
  from the ``m`` observed queries with the actual number of items that first appear in the
  next ``h`` queries, for several ``h`` up to all held-out queries (``t = (1 − r)/r`` = 1, 2,
  3). Computed from each item's first position in the shuffled order, so one shuffle costs one
  pass over the data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from knowsum.caveats import Caveat
from knowsum.census.record import CurvePoint, HeldoutPoint
from knowsum.stats import IntervalMethod, Prevalence, StatsWarning, estimate_unseen
from knowsum.stats.bootstrap import BootstrapResult, bootstrap_plans
from knowsum.stats.dispersion import query_dispersion
from knowsum.stats.predict_unseen import predict_unseen, simulated_biases
from knowsum.stats.unseen import T_ABOVE, apply_plan, plan_estimator
from knowsum.stats.weights import binomial_tail_weights, et_q

__all__ = [
    "FALLS",
    "HELDOUT_SHUFFLES",
    "T_ABOVE",
    "curve",
    "falling_curve",
    "heldout_check",
    "new_rate",
    "t_grid",
]


def t_grid(t: float, points: int = 12, estimator: str = "et") -> list[float]:
    """Log-spaced ``t`` values up to the run's ``t`` (exactly), all in ``estimator``'s domain.

    From ``min(0.1, t)``, including 1 when ``t ≥ 1``; for an estimator defined above ``t = a > 0``
    (:data:`T_ABOVE`) from ``min(1.1·a, t)``, every point above ``a`` — so every ``t`` of the curve can
    be estimated wherever the run's own ``t`` can.
    """
    above = T_ABOVE.get(estimator, 0.0)
    lo = min(0.1, t) if above <= 0 else min(1.1 * above, t)
    grid = {x for x in np.geomspace(lo, t, points)[:-1].round(6).tolist() if above < x < t}
    grid.add(t)
    if t >= 1 and above < 1.0:
        grid.add(1.0)
    return sorted(grid)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def curve(
    prev: Prevalence,
    estimator: str,
    t: float,
    k: int | None,
    n_resamples: int,
    level: float,
    seed: int | None,
    points: int = 12,
    method: IntervalMethod = "lognormal",
    grid: Sequence[float] | None = None,
    boots: Sequence[BootstrapResult] | None = None,
) -> list[CurvePoint]:
    """The extrapolation curve with bootstrap (confidence) bands (``n_resamples = 0``: no bands) and
    the prediction band of ``U(t)``.

    Every ``t`` is re-estimated on the same resamples, drawn by the resampler of the headline
    interval (:func:`knowsum.stats.bootstrap.bootstrap_plans`): with the run's ``n_resamples``,
    ``seed``, level and ``method``, the band at the run's ``t`` is exactly the headline interval.
    The prediction band at each ``t`` is the headline's rule,
    :func:`~knowsum.stats.predict_unseen.predict_unseen`, with that ``t``'s own bootstrap variance and
    confidence interval and that ``t``'s simulated bias
    (:func:`~knowsum.stats.predict_unseen.simulated_biases`, the simulation of the headline's check
    with ``seed``): at the run's ``t`` it is exactly the headline prediction interval, and at no
    ``t`` is it narrower than the band. ``Û(t)`` is reported as ``max(Û, 0)`` (the curve never dips
    below ``N_seen``), the value as computed in ``unseen_raw``. ``grid`` replaces the default log grid
    of ``t`` (:func:`t_grid`); its points outside the estimator's domain (:data:`T_ABOVE`) are left out.
    ``boots``: the bootstrap of each ``t`` of the grid, already drawn on the headline's resamples
    (``summarize(curve_ts=t_grid(...))``: :attr:`~knowsum.stats.Summary.curve`), so that the resamples
    are drawn once for the headline and its curve.

    Raises:
        ValueError: ``boots`` does not hold one result per ``t`` of the grid, of this estimator.
    """
    above = T_ABOVE.get(estimator, 0.0)
    grid = [x for x in grid if x > above] if grid is not None else t_grid(t, points, estimator)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        plans = [plan_estimator(prev, estimator, ti, k) for ti in grid]
        estimates = [apply_plan(plan, prev) for plan in plans]
        if boots is not None:
            names = [b.estimator for b in boots]
            if names != [p.name for p in plans]:
                raise ValueError(f"boots: one bootstrap result of {estimator} per t of the grid {grid}")
        elif n_resamples:
            boots = bootstrap_plans(prev, plans, n_resamples, level, seed, estimates, method)
        biases = simulated_biases(prev, plans, seed)
    dispersion = query_dispersion(prev.by_query)
    out = []
    for i, (ti, est) in enumerate(zip(grid, estimates, strict=True)):
        lo = hi = slo = shi = None
        shown, why, boot_var = None, None, None
        if boots is not None:
            lo, hi = (_finite(x) for x in boots[i].unseen)
            slo, shi = (_finite(x) for x in boots[i].skr)
            why = boots[i].reason
            shown, boot_var = (None, None) if why else (boots[i].unseen, boots[i].unseen_se ** 2)
        band = predict_unseen(plans[i], prev, est, shown, why, level, biases[i], boot_var, dispersion).unseen
        out.append(
            CurvePoint(
                t=ti,
                unseen=est.estimate,
                unseen_raw=est.raw,
                unseen_lower=lo,
                unseen_upper=hi,
                unseen_pred_lower=None if band is None else band[0],
                unseen_pred_upper=None if band is None else band[1],
                n_total=est.n_total,
                skr=_finite(est.skr),
                skr_lower=slo,
                skr_upper=shi,
            )
        )
    return out


FALLS = "N̂_tot falls as t grows"
"""The mark of :func:`falling_curve`'s caveat (an instrument's own kind, ``curve-falls``)."""


def falling_curve(points: Sequence[CurvePoint], t: float) -> Caveat | None:
    """The caveat of an ``N̂_tot(t)`` below the same estimator's ``N̂_tot`` at a smaller ``t`` of the
    curve (by more than 1 % of it and one item), else ``None``.

    A longer census cannot show fewer items than a shorter one, so ``N̂_tot(t)`` should never fall as
    ``t`` grows; the smoothed Good–Turing weights alternate in sign, and far beyond the data their sum
    can fall (down to the clamp at ``N_seen``). Where it does, the two estimates contradict each other,
    and the larger ``t`` is the less reliable one. knowsum's own check (the paper reports the curve
    without it)."""
    at = next((p for p in points if p.t == t), None)
    earlier = [p for p in points if p.t < t]
    if at is None or not earlier:
        return None
    peak = max(earlier, key=lambda p: p.n_total)
    drop = peak.n_total - at.n_total
    if drop <= max(1.0, 0.01 * peak.n_total):
        return None
    return Caveat(
        "curve-falls",
        f"{FALLS}: {peak.n_total:,.1f} at t = {peak.t:g} on this run's curve, {at.n_total:,.1f} at "
        f"t = {t:g}. A longer census cannot show fewer items, so the two estimates contradict each "
        "other; the fall comes from the estimator's alternating weights far beyond the data, and the "
        "larger t is the less reliable: read N̂_tot with the curve, the trust horizon and the simulated "
        "error at its own t",
        "N̂_tot",
        mark=FALLS,
    )


HELDOUT_SHUFFLES = 100
"""Random query orders of the held-out check: the paper repeats it 100 times (§5.1, Fig. 7)."""


def heldout_check(
    prev: Prevalence,
    estimator: str,
    k: int | None,
    fractions: Sequence[float] = (1 / 2, 1 / 3, 1 / 4),
    points: int = 5,
    n_shuffles: int = HELDOUT_SHUFFLES,
    seed: int | None = 0,
) -> list[HeldoutPoint]:
    """Mean estimated vs actual unseen over ``n_shuffles`` random query orders (empty without queries).

    Each shuffle's estimate is reported as ``max(Û, 0)``, the rule of the headline estimate. Held-out
    sizes whose ``t = h/m`` lies outside the estimator's domain (:data:`T_ABOVE`: the OSW smoothings
    need ``t > 1``) are left out.

    Args:
        prev: The sample, grouped by query (``Prevalence.from_items(..., queries=...)``).
        estimator: Estimator name.
        k: Truncation level (the selected one).
        fractions: Observed fractions ``r_obs``.
        points: Held-out sizes per fraction, evenly spaced up to all held-out queries.
        n_shuffles: Random query orders (shared by all fractions); default
            :data:`HELDOUT_SHUFFLES` = 100, the paper's number.
        seed: Seed of the shuffles.
    """
    if prev.by_query is None or (prev.n_queries or 0) < 4:
        return []
    n_q = int(prev.by_query.shape[0])
    csc = prev.by_query.tocsc()
    starts = csc.indptr[:-1]
    rows, data = csc.indices, csc.data
    rng = np.random.default_rng(seed)
    sizes = {r: min(max(round(r * n_q), 1), n_q - 1) for r in fractions}
    above = T_ABOVE.get(estimator, 0.0)  # held-out sizes whose t = h/m the estimator cannot take: left out
    grids = {
        r: sorted(
            {h for j in range(1, points + 1) if (h := max(1, round((n_q - m) * j / points))) / m > above}
        )
        for r, m in sizes.items()
    }
    weights: dict[tuple[float, int], np.ndarray[Any, Any]] = {}  # et's h_s(t, k), shared by the shuffles
    est: dict[tuple[float, int], list[float]] = {}
    act: dict[tuple[float, int], list[float]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for _ in range(n_shuffles):
            rank = rng.permutation(n_q)[rows]  # position of each (query, item) entry's query
            first = np.minimum.reduceat(rank, starts)
            for r, m in sizes.items():
                seen = np.add.reduceat(np.where(rank < m, data, 0), starts)
                observed = seen[seen > 0]
                if observed.size == 0:
                    continue
                sub = Prevalence(observed)
                for h in grids[r]:
                    e = _unseen(sub, estimator, h / m, k, weights)
                    a = int(np.count_nonzero((first >= m) & (first < m + h)))
                    est.setdefault((r, h), []).append(e)
                    act.setdefault((r, h), []).append(a)
    out = []
    for (r, h), values in est.items():
        e_arr, a_arr = np.array(values), np.array(act[(r, h)], dtype=np.float64)
        out.append(
            HeldoutPoint(
                r_obs=r,
                t=h / sizes[r],
                estimated=float(e_arr.mean()),
                actual=float(a_arr.mean()),
                estimated_sd=float(e_arr.std()),
                actual_sd=float(a_arr.std()),
            )
        )
    return out


def _unseen(
    prev: Prevalence,
    estimator: str,
    t: float,
    k: int | None,
    cache: dict[tuple[float, int], np.ndarray[Any, Any]] | None = None,
) -> float:
    """``max(Û(t), 0)``; for ``et`` straight from ``n_1..n_k`` (eq. 1), skipping weights beyond ``k``,
    the weights of each ``(t, k)`` computed once when a ``cache`` is given."""
    if estimator == "et" and k is not None:
        h = None if cache is None else cache.get((t, k))
        if h is None:
            h = binomial_tail_weights(t, k, et_q(t))
            if cache is not None:
                cache[(t, k)] = h
        n_s = np.bincount(np.minimum(prev.counts, k + 1), minlength=k + 2)
        return max(float(np.dot(h[1 : k + 1], n_s[1 : k + 1])), 0.0)
    return estimate_unseen(prev, estimator, t, k).estimate


def new_rate(prev: Prevalence, n_queries: int, batch: int, k: int | None) -> float:
    """Predicted new items per further query over the next ``batch`` queries: ``Û(batch/Q)/batch``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        return max(0.0, estimate_unseen(prev, "et", batch / n_queries, k).estimate) / batch
