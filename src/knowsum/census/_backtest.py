"""Back-test a census on its own queries: how far does each extrapolation hold? (KnowSum Fig. 7, to t = 99)

For each ``t`` of the grid, ``repeats`` times: shuffle the run's ``Q`` queries (seeded), keep the
first ``m = round(Q/(t+1))`` (at least 2, at most ``Q − 1``), and let every predictor of
:data:`knowsum.stats.foresee.PREDICTORS` say how many items the other ``Q − m`` queries show that the
kept ones do not, at ``t' = (Q − m)/m``; the truth is what they showed. Each split's interval is the
census's: Chao's log-normal interval with the variance of the predictor over ``resamples`` bootstrap
resamples of the kept queries (whole queries with replacement, as the census resamples). Every split
and every resample of one ``t`` is one column of one sparse product — items × queries times queries
× columns — so the repeats cost a few matrix products, not a Python loop over items.

:mod:`knowsum.census._horizon` runs the same machinery, smaller, on the census's own estimator.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.errors import InputError
from knowsum.records.backtest import BacktestRow, BacktestSkip
from knowsum.stats import Prevalence, StatsWarning, select_k
from knowsum.stats import foresee as fs

__all__ = [
    "DEFAULT_TS",
    "HELDOUT_SHUFFLES",
    "MIN_KEPT",
    "Predictor",
    "Splits",
    "collect",
    "kept_size",
    "run_splits",
    "score_splits",
]

DEFAULT_TS: tuple[float, ...] = (1, 3, 9, 19, 49, 99)
"""Extrapolation factors of a back-test: ``1/(t+1)`` of the queries kept (1/2 … 1/100)."""
HELDOUT_SHUFFLES = 20
"""Splits of the held-out choice of ``k`` inside each back-test split (the census uses 100)."""
MIN_KEPT = 2
"""Fewest kept queries a split may have (one query has no bootstrap variance)."""
_CHUNK_COLUMNS = 2048
"""Columns of one sparse product (memory: items × this many counts)."""

Predictor = Callable[[fs.Panel], NDArray[np.float64]]


def kept_size(n_queries: int, t: float) -> int | None:
    """``m = round(Q/(t+1))`` clipped to ``[MIN_KEPT, Q − 1]``; ``None`` when ``Q`` is too small."""
    if n_queries - 1 < MIN_KEPT:
        return None
    m = min(max(round(n_queries / (t + 1)), MIN_KEPT), n_queries - 1)
    return m


@dataclass(frozen=True, slots=True)
class Splits:
    """The predictions of every predictor on every split of one ``t``.

    Attributes:
        t: The ``t`` asked for.
        kept: Kept queries ``m``.
        t_effective: ``(Q − m)/m``.
        observed: New items the held-back queries showed, per split.
        point: Predictor → raw ``Û`` per split.
        lower: Predictor → lower end of the interval per split (NaN: n/a).
        upper: Predictor → upper end.
    """

    t: float
    kept: int
    t_effective: float
    observed: NDArray[np.float64]
    point: Mapping[str, NDArray[np.float64]]
    lower: Mapping[str, NDArray[np.float64]]
    upper: Mapping[str, NDArray[np.float64]]


def _heldout_k(by_query: sp.csr_matrix, kept: NDArray[np.int64], shuffles: int, seed: int) -> int:
    """The held-out ``k`` (KnowSum §5.1) of the kept queries alone."""
    sub = by_query[kept]
    totals = np.asarray(sub.sum(axis=0)).ravel()
    nz = np.flatnonzero(totals)
    if nz.size == 0:
        return fs.SGT_KS[0]
    return select_k(Prevalence(totals[nz], None, sub[:, nz]), fs.SGT_KS, n_shuffles=shuffles, seed=seed).k


def run_splits(
    prev: Prevalence,
    t: float,
    predictors: Mapping[str, Predictor],
    repeats: int,
    resamples: int,
    rng: np.random.Generator,
    level: float = 0.95,
    heldout_shuffles: int = 0,
) -> Splits | str:
    """Every split of one ``t`` (see the module docstring), or why ``t`` cannot be checked."""
    if prev.by_query is None:
        return "the sample has no queries to split"
    n_q = int(prev.by_query.shape[0])
    m = kept_size(n_q, t)
    if m is None:
        return f"{n_q} queries: a split needs at least {MIN_KEPT} kept and 1 held back"
    by_query = prev.by_query.astype(np.int32)
    incidence = not fs.INCIDENCE_PREDICTORS.isdisjoint(predictors)
    presence = (by_query > 0).astype(np.int32) if incidence else None
    width = resamples + 2  # kept, held back, resamples
    per_chunk = max(1, _CHUNK_COLUMNS // width)
    observed = np.empty(repeats)
    points: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    lows: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    highs: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    for start in range(0, repeats, per_chunk):
        count = min(per_chunk, repeats - start)
        sample_rows: list[NDArray[np.int64]] = []  # (sample, query) pairs of the weight matrix
        sample_queries: list[NDArray[np.int64]] = []
        ks = np.empty(count, dtype=np.int64)
        for j in range(count):
            order = rng.permutation(n_q)
            kept, rest = order[:m], order[m:]
            base = j * width
            draws = kept[rng.integers(0, m, size=(resamples, m))]  # queries drawn with replacement
            sample_rows += [
                np.full(m, base),
                np.full(n_q - m, base + 1),
                np.repeat(base + 2 + np.arange(resamples), m),
            ]
            sample_queries += [kept, rest, draws.ravel()]
            if heldout_shuffles:
                ks[j] = _heldout_k(prev.by_query, kept, heldout_shuffles, int(rng.integers(2**31)))
        r, q = np.concatenate(sample_rows), np.concatenate(sample_queries)
        weights = sp.csr_matrix((np.ones(r.size, dtype=np.int32), (r, q)), shape=(count * width, n_q))
        weights.sum_duplicates()  # a query drawn twice weighs 2
        counts = (weights @ by_query).tocsr()  # (samples, items): one sparse product for the chunk
        pres = None if presence is None else (weights @ presence).tocsr()
        for j in range(count):  # items the held-back queries show that the kept ones do not
            held = counts.indices[counts.indptr[j * width + 1] : counts.indptr[j * width + 2]]
            seen = counts.indices[counts.indptr[j * width] : counts.indptr[j * width + 1]]
            observed[start + j] = np.setdiff1d(held, seen, assume_unique=True).size
        use = np.delete(np.arange(count * width), np.arange(count) * width + 1)  # kept and resamples
        panel = fs.panel(
            counts[use],
            None if pres is None else pres[use],
            (n_q - m) / m,
            m,
            np.repeat(ks, resamples + 1) if heldout_shuffles else None,
            full="good-toulmin" in predictors,
        )
        for name, predict in predictors.items():
            values = predict(panel).reshape(count, resamples + 1)
            boot = values[:, 1:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                var = (
                    np.nanvar(np.where(np.isfinite(boot), boot, np.nan), axis=1, ddof=1)
                    if resamples > 1
                    else (np.full(count, np.nan))
                )
            lo, hi = fs.lognormal_bounds(np.maximum(values[:, 0], 0.0), var, level)
            points[name].append(values[:, 0])
            lows[name].append(lo)
            highs[name].append(hi)
    return Splits(
        t=float(t),
        kept=m,
        t_effective=(n_q - m) / m,
        observed=observed,
        point={k: np.concatenate(v) for k, v in points.items()},
        lower={k: np.concatenate(v) for k, v in lows.items()},
        upper={k: np.concatenate(v) for k, v in highs.items()},
    )


def _none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def score_splits(splits: Splits, families: Mapping[str, str] = fs.FAMILIES) -> list[BacktestRow]:
    """One :class:`BacktestRow` per predictor of ``splits``."""
    rows = []
    for name, point in splits.point.items():
        s = fs.score(point, splits.lower[name], splits.upper[name], splits.observed)
        band = (s.band[0], s.band[1]) if math.isfinite(s.band[0]) else None
        rows.append(
            BacktestRow(
                estimator=name,
                family=families.get(name, name),
                t=splits.t,
                t_effective=splits.t_effective,
                kept_queries=splits.kept,
                predicted=_none(s.predicted),
                observed=s.observed,
                bias=_none(s.bias),
                relative_bias=_none(s.relative_bias),
                relative_rmse=_none(s.relative_rmse),
                coverage=s.coverage,
                no_interval=s.no_interval,
                band=band,
                diverged=s.diverged,
            )
        )
    return rows


def collect(
    prev: Prevalence,
    ts: Sequence[float],
    predictors: Mapping[str, Predictor],
    repeats: int,
    resamples: int,
    seed: int,
    level: float = 0.95,
    heldout_shuffles: int = 0,
) -> tuple[list[BacktestRow], list[BacktestSkip]]:
    """Rows and skipped ``t`` of a back-test (each ``t`` from its own seeded stream)."""
    if repeats < 1 or resamples < 0:
        raise InputError(f"repeats must be >= 1 and resamples >= 0, got {repeats} and {resamples}")
    rows: list[BacktestRow] = []
    skipped: list[BacktestSkip] = []
    streams = np.random.SeedSequence(seed).spawn(len(ts))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for t, stream in zip(ts, streams, strict=True):
            out = run_splits(
                prev,
                t,
                predictors,
                repeats,
                resamples,
                np.random.default_rng(stream),
                level,
                heldout_shuffles,
            )
            if isinstance(out, str):
                skipped.append(BacktestSkip(t=t, reason=out))
            elif out.observed.mean() <= 0:
                skipped.append(BacktestSkip(t=t, reason="the held-back queries showed no new item"))
            else:
                rows.extend(score_splits(out))
    return rows, skipped
