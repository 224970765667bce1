"""Estimation (KnowSum Algorithm 1, steps 4-5): histogram, Û(t) with band, held-out check.

- :func:`curve` — ``Û(t)``, ``N̂_tot(t)`` and ``SKR(t)`` on a log grid of ``t`` up to the
  run's ``t``, each with a bootstrap band (whole queries resampled; paper Fig. 8).
- :func:`heldout_check` — paper §5.1 / Fig. 7: shuffle the queries, observe the first fraction
  ``r_obs ∈ {1/2, 1/3, 1/4}``, and compare the estimate ``Û(h/m)`` from the ``m`` observed
  queries with the actual number of items that first appear in the next ``h`` queries, for
  several ``h`` up to all held-out queries (``t = (1 − r)/r`` = 1, 2, 3). Computed from each
  item's first position in the shuffled order, so one shuffle costs one pass over the data.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from knowsum.census._result import CurvePoint, HeldoutPoint
from knowsum.stats import IntervalMethod, Prevalence, StatsWarning, bootstrap, estimate_unseen, intervals
from knowsum.stats.unseen import plan_estimator
from knowsum.stats.weights import binomial_tail_weights, et_q

__all__ = ["curve", "heldout_check", "new_rate", "t_grid"]


def t_grid(t: float, points: int = 12) -> list[float]:
    """Log-spaced ``t`` values from ``min(0.1, t)`` to ``t``, including 1 when ``t ≥ 1``."""
    lo = min(0.1, t)
    grid = set(np.geomspace(lo, t, points).round(6).tolist())
    if t >= 1:
        grid.add(1.0)
    return sorted(grid)


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _resampled_counts(prev: Prevalence, n_resamples: int, seed: int | None) -> NDArray[np.int64]:
    """Item counts ``(n_items, n_resamples)`` of bootstrap resamples of whole queries (or, without
    queries, multinomial redraws of the observations)."""
    rng = np.random.default_rng(seed)
    if prev.by_query is None:
        n = prev.n_observations
        return rng.multinomial(n, prev.counts / n, size=n_resamples).T.astype(np.int64)
    n_q = int(prev.by_query.shape[0])
    item_query = prev.by_query.T.tocsr()
    out = np.empty((prev.n_seen, n_resamples), dtype=np.int64)
    for start in range(0, n_resamples, 50):
        stop = min(start + 50, n_resamples)
        weights = np.stack(
            [np.bincount(rng.integers(n_q, size=n_q), minlength=n_q) for _ in range(start, stop)], 1
        )
        out[:, start:stop] = item_query @ weights
    return out


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
) -> list[CurvePoint]:
    """The extrapolation curve with bootstrap bands (``n_resamples = 0``: no bands).

    One set of resamples serves every ``t`` (the weights ``h_s(t)`` are re-applied to the same
    resampled counts), and the bands are formed as in :func:`knowsum.stats.bootstrap`: Chao's
    log-normal interval from the variance of ``Û*(t)`` (``method="lognormal"``, never below
    ``N_seen``) or re-centred percentiles. ``grid`` replaces the default log grid of ``t``.
    """
    grid = list(grid) if grid is not None else t_grid(t, points)
    draws = _resampled_counts(prev, n_resamples, seed) if n_resamples else None
    seen_b = (draws > 0).sum(axis=0).astype(np.float64) if draws is not None else None
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for ti in grid:
            est = estimate_unseen(prev, estimator, ti, k)
            lo = hi = slo = shi = None
            if draws is not None and seen_b is not None:
                plan = plan_estimator(prev, estimator, ti, k)
                if plan.weights is not None:
                    h = plan.weights(int(draws.max()))
                    unseen_b = h[draws].sum(axis=0)
                else:  # Chao1 has no weights: its own bootstrap
                    boot = bootstrap(prev, estimator, ti, k, n_resamples, level, seed)
                    unseen_b = np.asarray(boot.unseen_draws, dtype=np.float64)
                band = intervals(method, est.n_seen, est.estimate, unseen_b, seen_b, level)
                lo, hi = (_finite(x) for x in band.unseen)
                slo, shi = (_finite(x) for x in band.skr)
            out.append(
                CurvePoint(
                    t=ti,
                    unseen=est.estimate,
                    unseen_lower=lo,
                    unseen_upper=hi,
                    n_total=est.n_total,
                    skr=_finite(est.skr),
                    skr_lower=slo,
                    skr_upper=shi,
                )
            )
    return out


def heldout_check(
    prev: Prevalence,
    estimator: str,
    k: int | None,
    fractions: Sequence[float] = (1 / 2, 1 / 3, 1 / 4),
    points: int = 5,
    n_shuffles: int | None = None,
    seed: int | None = 0,
) -> list[HeldoutPoint]:
    """Mean estimated vs actual unseen over ``n_shuffles`` random query orders (empty without queries).

    Args:
        prev: The sample, grouped by query (``Prevalence.from_items(..., queries=...)``).
        estimator: Estimator name.
        k: Truncation level (the selected one).
        fractions: Observed fractions ``r_obs``.
        points: Held-out sizes per fraction, evenly spaced up to all held-out queries.
        n_shuffles: Random query orders (shared by all fractions); default 30, fewer for very
            large samples (``2·10⁷ / entries``, at least 8) to bound the cost.
        seed: Seed of the shuffles.
    """
    if prev.by_query is None or (prev.n_queries or 0) < 4:
        return []
    n_q = int(prev.by_query.shape[0])
    csc = prev.by_query.tocsc()
    if n_shuffles is None:
        n_shuffles = max(8, min(30, int(2e7 // max(csc.nnz, 1))))
    starts = csc.indptr[:-1]
    rows, data = csc.indices, csc.data
    rng = np.random.default_rng(seed)
    sizes = {r: min(max(round(r * n_q), 1), n_q - 1) for r in fractions}
    grids = {
        r: sorted({max(1, round((n_q - m) * j / points)) for j in range(1, points + 1)})
        for r, m in sizes.items()
    }
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
                    e = _unseen(sub, estimator, h / m, k)
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


def _unseen(prev: Prevalence, estimator: str, t: float, k: int | None) -> float:
    """``Û(t)``; for ``et`` straight from ``n_1..n_k`` (eq. 1), skipping weights beyond ``k``."""
    if estimator == "et" and k is not None:
        h = binomial_tail_weights(t, k, et_q(t))
        n_s = np.bincount(np.minimum(prev.counts, k + 1), minlength=k + 2)
        return float(np.dot(h[1 : k + 1], n_s[1 : k + 1]))
    return estimate_unseen(prev, estimator, t, k).estimate


def new_rate(prev: Prevalence, n_queries: int, batch: int, k: int | None) -> float:
    """Predicted new items per further query over the next ``batch`` queries: ``Û(batch/Q)/batch``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        return max(0.0, estimate_unseen(prev, "et", batch / n_queries, k).estimate) / batch
