"""Back-test a census on its own queries: how far does each extrapolation hold? (KnowSum Fig. 7, to t = 99)

For each ``t`` of the grid, ``repeats`` times: shuffle the run's ``Q`` queries, keep the first
``m = round(Q/(t+1))`` (at least 2, at most ``Q − 1``), and let every predictor of
:data:`knowsum.stats.foresee.PREDICTORS` say how many items the other ``Q − m`` queries show that the
kept ones do not, at ``t' = (Q − m)/m``; the truth is what they showed (``U = N_seen − N_seen(kept)``).

Each split gets two intervals. The **confidence interval** is the census's: Chao's log-normal
interval with the variance of the predictor over ``resamples`` bootstrap resamples of the kept
queries (whole queries with replacement). The **prediction interval** adds the variance of ``U``,
Poisson times the kept queries' index of dispersion ``D̂`` (:mod:`knowsum.stats.dispersion`): for the
linear predictors ``max(Σ h_s² f_s, bootstrap variance) + D̂·Û``, the larger of the closed form (every
mention drawn on its own) and the query bootstrap (the items one answer names kept together), as the
census headline takes it (:func:`~knowsum.stats.predict_unseen.predict_unseen`), or the closed form
alone without resamples; the bootstrap variance ``+ D̂·Û`` for the others (Pitman–Yor: its process's
``Var(U)``); the iNEXT rows take iNEXT's own pair instead (:mod:`knowsum.census._backtest_inext`).

One seed scheme: split ``j`` of ``t`` takes its shuffle from row ``j mod 100`` of the block
``SeedSequence([seed, round(1000 t), j // 100])`` (:func:`split_orders`) and its held-out ``k`` and
resamples from ``SeedSequence([seed, round(1000 t), j, 1])``, so the trust horizon,
``census backtest`` and a longer back-test give the same split ``j`` at the same ``(seed, t)``.
Every split and resample of one ``t`` is one column of one sparse product — splits × queries times
queries × items — so the repeats cost a few matrix products, not a Python loop over items.

:mod:`knowsum.census._horizon` runs the same machinery, smaller, on the census's own estimator.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.census._backtest_inext import INEXT_OWN, inext_own
from knowsum.census._split_seeds import SplitDesign, split_orders, split_rng
from knowsum.census.backtest_record import BacktestRow, BacktestSkip
from knowsum.errors import InputError
from knowsum.stats import Prevalence, StatsWarning, select_k
from knowsum.stats import foresee as fs
from knowsum.stats.dispersion import split_dispersion
from knowsum.stats.prediction import prediction_bounds

__all__ = [
    "DEFAULT_TS",
    "HELDOUT_SHUFFLES",
    "INEXT_OWN",
    "MIN_KEPT",
    "Predictor",
    "SplitDesign",
    "Splits",
    "collect",
    "interval_methods",
    "kept_size",
    "run_splits",
    "score_splits",
    "split_orders",
    "split_rng",
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


def kept_size(n_queries: int, t: float, reach: bool = False) -> int | None:
    """``m = round(Q/(t+1))`` clipped to ``[MIN_KEPT, Q − 1]``; ``None`` when ``Q`` is too small.
    ``reach``: ``floor`` instead of ``round``, so the split reaches ``t`` when it can."""
    if n_queries - 1 < MIN_KEPT:
        return None
    m = math.floor(n_queries / (t + 1)) if reach else round(n_queries / (t + 1))
    return min(max(m, MIN_KEPT), n_queries - 1)


@dataclass(frozen=True, slots=True)
class Splits:
    """The predictions of every predictor on every split of one ``t``.

    Attributes:
        t: The ``t`` asked for.
        kept: Kept queries ``m``.
        t_effective: held-back / kept queries.
        observed: New items the held-back queries showed, per split.
        point: Predictor → raw ``Û`` per split.
        lower: Predictor → lower end of the confidence interval per split (NaN: n/a).
        upper: Predictor → upper end.
        kept_seen: ``N_seen`` of each split's kept queries.
        pi_lower: Predictor → lower end of the prediction interval per split (NaN: n/a).
        pi_upper: Predictor → upper end.
    """

    t: float
    kept: int
    t_effective: float
    observed: NDArray[np.float64]
    point: Mapping[str, NDArray[np.float64]]
    lower: Mapping[str, NDArray[np.float64]]
    upper: Mapping[str, NDArray[np.float64]]
    kept_seen: NDArray[np.float64]
    pi_lower: Mapping[str, NDArray[np.float64]]
    pi_upper: Mapping[str, NDArray[np.float64]]

    def extend(self, more: Splits) -> Splits:
        """These splits followed by ``more`` (the same ``t`` and kept size)."""

        def cat(
            a: Mapping[str, NDArray[np.float64]], b: Mapping[str, NDArray[np.float64]]
        ) -> dict[str, NDArray[np.float64]]:
            return {k: np.concatenate([a[k], b[k]]) for k in a}

        return Splits(
            self.t,
            self.kept,
            self.t_effective,
            np.concatenate([self.observed, more.observed]),
            cat(self.point, more.point),
            cat(self.lower, more.lower),
            cat(self.upper, more.upper),
            np.concatenate([self.kept_seen, more.kept_seen]),
            cat(self.pi_lower, more.pi_lower),
            cat(self.pi_upper, more.pi_upper),
        )


def _heldout_k(by_query: sp.csr_matrix, kept: NDArray[np.int64], shuffles: int, seed: int) -> int:
    """The held-out ``k`` (KnowSum §5.1) of the kept queries alone."""
    sub = by_query[kept]
    totals = np.asarray(sub.sum(axis=0)).ravel()
    nz = np.flatnonzero(totals)
    if nz.size == 0:
        return fs.SGT_KS[0]
    return select_k(Prevalence(totals[nz], None, sub[:, nz]), fs.SGT_KS, n_shuffles=shuffles, seed=seed).k


class _Layout(NamedTuple):
    """Rows of one split in the chunk's sample matrix: kept, [kept + held], resamples."""

    kept: int
    held: int
    union: bool
    boot: int

    @property
    def width(self) -> int:
        return 1 + int(self.union) + self.boot


def _weights(
    prev_q: sp.csr_matrix,
    lay: _Layout,
    seed: int,
    t: float,
    splits: range,
    heldout_shuffles: int,
) -> tuple[sp.csr_matrix, NDArray[np.int64]]:
    """The ``(splits × width, Q)`` weight matrix of a chunk and each split's held-out ``k``.

    Its rows are built in order (split by split: kept, [union], resamples), so the CSR arrays are
    written directly: no COO sort. A query drawn twice stays two stored entries of one row; the
    sparse product sums them (it weighs 2)."""
    n_q, m, w = prev_q.shape[0], lay.kept, lay.width
    n_s = len(splits)
    ks = np.full(n_s, fs.SGT_KS[0], dtype=np.int64)
    orders = split_orders(seed, t, splits, n_q)
    kept_all = orders[:, :m]
    draws = np.empty((n_s, lay.boot * m), dtype=np.int64)
    for i, j in enumerate(splits):
        if w == 1 and not heldout_shuffles:
            break  # kept rows only: nothing else to draw
        kept = kept_all[i]
        rng = split_rng(seed, t, j)
        inner = int(rng.integers(2**31))
        if heldout_shuffles:
            ks[i] = _heldout_k(prev_q, kept, heldout_shuffles, inner)
        if lay.boot:  # queries drawn with replacement
            draws[i] = kept[rng.integers(0, m, size=(lay.boot, m))].ravel()
    blocks = [kept_all, *([orders[:, : m + lay.held]] if lay.union else []), draws]
    indices = np.concatenate(blocks, axis=1).ravel()
    lengths = np.tile([m, *([m + lay.held] if lay.union else []), *([m] * lay.boot)], n_s)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    ones = np.ones(indices.size, dtype=np.int32)
    return sp.csr_matrix((ones, indices, indptr), shape=(n_s * w, n_q)), ks


def run_splits(
    prev: Prevalence,
    t: float,
    predictors: Mapping[str, Predictor],
    repeats: int,
    resamples: int,
    seed: int,
    level: float = 0.95,
    heldout_shuffles: int = 0,
    *,
    start: int = 0,
    kept: int | None = None,
    held: int | None = None,
) -> Splits | str:
    """Splits ``start … start + repeats − 1`` of one ``t`` (see the module docstring), or why ``t``
    cannot be checked. ``kept``/``held``: split sizes other than ``kept_size(Q, t)`` and the rest
    (the size curve holds back ``held`` of the other queries). ``resamples < 2``: no bootstrap, so
    no confidence interval, and a prediction interval only for the linear predictors."""
    if prev.by_query is None:
        return "the sample has no queries to split"
    n_q = int(prev.by_query.shape[0])
    m = kept_size(n_q, t) if kept is None else kept
    n_held = (n_q - (m or 0)) if held is None else held
    if m is None or m < MIN_KEPT or n_held < 1 or m + n_held > n_q:
        return f"{n_q} queries: a split needs at least {MIN_KEPT} kept and 1 held back"
    by_query = sp.csr_matrix(prev.by_query, dtype=np.int32)
    all_seen = int(np.count_nonzero(np.asarray(by_query.sum(axis=0)).ravel()))
    present = (by_query > 0).astype(np.int32)
    presence = present if not fs.INCIDENCE_PREDICTORS.isdisjoint(predictors) else None
    lay = _Layout(m, n_held, n_held < n_q - m, resamples if resamples >= 2 else 0)
    per_chunk = max(1, _CHUNK_COLUMNS // lay.width)
    parts: list[Splits] = []
    for first in range(start, start + repeats, per_chunk):
        chunk = range(first, min(first + per_chunk, start + repeats))
        weights, ks = _weights(by_query, lay, seed, t, chunk, heldout_shuffles)
        counts = (weights @ by_query).tocsr()  # (samples, items): one sparse product for the chunk
        nnz = np.diff(counts.indptr).astype(np.float64)
        base = np.arange(len(chunk)) * lay.width
        seen = nnz[base]
        observed = (nnz[base + 1] if lay.union else all_seen) - seen
        use = (base[:, None] + np.r_[0, 1 + int(lay.union) + np.arange(lay.boot)][None, :]).ravel()
        panel = fs.panel(
            counts[use],
            None if presence is None else (weights @ presence).tocsr()[use],
            n_held / m,
            m,
            np.repeat(ks, lay.boot + 1) if heldout_shuffles else None,
            full=not fs.FULL_HISTOGRAM.isdisjoint(predictors),
        )
        own = inext_own(panel, predictors, lay.boot, seed, t, chunk, level)
        dispersion = split_dispersion(present, weights[base])
        parts.append(_predict(panel, predictors, lay, (t, level), (observed, seen, dispersion), own))
    out = parts[0]
    for more in parts[1:]:
        out = out.extend(more)
    return out


def _predict(
    panel: fs.Panel,
    predictors: Mapping[str, Predictor],
    lay: _Layout,
    at: tuple[float, float],
    split: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    own: Mapping[str, tuple[NDArray[np.float64], ...]],
) -> Splits:
    """Every predictor's point and both intervals on one chunk's panel (kept row, then resamples).
    ``at``: ``t`` and the level; ``split``: per split, the new items observed, ``N_seen`` of the kept
    queries and their ``D̂`` (:func:`~knowsum.stats.dispersion.split_dispersion`); ``own``: the iNEXT
    rows' own intervals (:func:`inext_own`), which replace the query bootstrap's."""
    t, level = at
    observed, seen, dispersion = split
    count = observed.size
    point, lows, highs, pi_lows, pi_highs = {}, {}, {}, {}, {}
    for name, predict in predictors.items():
        values = predict(panel).reshape(count, lay.boot + 1)
        if name in own:
            point[name] = values[:, 0]
            lows[name], highs[name], pi_lows[name], pi_highs[name] = own[name]
            continue
        boot = values[:, 1:]
        var = np.full(count, np.nan)
        if lay.boot > 1:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                var = np.nanvar(np.where(np.isfinite(boot), boot, np.nan), axis=1, ddof=1)
        shown = np.maximum(values[:, 0], 0.0)
        lows[name], highs[name] = fs.lognormal_bounds(shown, var, level)
        closed = fs.linear_variance(name, panel)
        est_var = var  # the larger of the two views, as the census headline takes (NaN: no resample)
        if closed is not None:
            est_var = np.fmax(closed.reshape(count, lay.boot + 1)[:, 0], var)
        own_future = fs.future_variance(name, panel)
        future = dispersion * shown if own_future is None else own_future.reshape(count, lay.boot + 1)[:, 0]
        pi_lows[name], pi_highs[name] = prediction_bounds(shown, est_var, level, future)
        point[name] = values[:, 0]
    return Splits(
        float(t), lay.kept, lay.held / lay.kept, observed, point, lows, highs, seen, pi_lows, pi_highs
    )


_FUTURE = "D̂·Û (of U; D̂ the kept queries' dispersion; Û ≤ 0: [0, Poisson quantile at z·sqrt(v)])"


def interval_methods(name: str) -> tuple[str, str]:
    """What the confidence and the prediction interval of predictor ``name`` are (one line each)."""
    ci = "log-normal, bootstrap variance of Û over query resamples (of E U)"
    if fs.linear_variance_of(name):
        return ci, f"log-normal, max(closed form Σ h_s² f_s, bootstrap variance of Û) + {_FUTURE}"
    if name in INEXT_OWN:
        return (
            "iNEXT's: Û ± z·ŝ, ŝ over replicates from its estimated community (of E U)",
            "normal, iNEXT's ŝ² + Û (of U)",
        )
    if name.startswith("inext"):
        return ci, f"log-normal, bootstrap variance of Û + {_FUTURE}; knowsum's query bootstrap, not iNEXT's"
    if fs.future_variance_of(name):
        return ci, "log-normal, bootstrap variance of Û + the fitted process's Var(U) (of U)"
    return ci, f"log-normal, bootstrap variance of Û + {_FUTURE}"


def _none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def score_splits(
    splits: Splits, families: Mapping[str, str] = fs.FAMILIES, level: float = 0.95
) -> list[BacktestRow]:
    """One :class:`BacktestRow` per predictor of ``splits``."""
    rows = []
    for name, point in splits.point.items():
        s = fs.score(
            point,
            splits.lower[name],
            splits.upper[name],
            splits.observed,
            pi_lower=splits.pi_lower[name],
            pi_upper=splits.pi_upper[name],
            kept_seen=splits.kept_seen,
            level=level,
        )
        band = (s.band[0], s.band[1]) if math.isfinite(s.band[0]) else None
        ci, pi = interval_methods(name)
        rows.append(
            BacktestRow(
                estimator=name,
                family=families.get(name) or fs.family(name),
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
                repeats=s.repeats,
                ci_method=ci,
                pi_method=pi,
                pi_coverage=_none(s.pi_coverage),
                pi_no_interval=_none(s.pi_no_interval),
                ci_score=_none(s.ci_score),
                pi_score=_none(s.pi_score),
                n_total=_none(s.n_total),
                relative_bias_total=_none(s.relative_bias_total),
                relative_rmse_total=_none(s.relative_rmse_total),
                noise_floor=_none(s.noise_floor),
                bias_se=_none(s.bias_se),
                relative_rmse_se=_none(s.rmse_se / s.observed) if s.observed > 0 else None,
                coverage_se=_none(s.coverage_se),
                pi_coverage_se=_none(s.pi_coverage_se),
            )
        )
    return rows


def collect(
    prev: Prevalence, ts: Sequence[float], predictors: Mapping[str, Predictor], design: SplitDesign
) -> tuple[list[BacktestRow], list[BacktestSkip]]:
    """Rows and skipped ``t`` of a back-test (split ``j`` of ``t`` from :func:`split_rng`)."""
    repeats, resamples = design.repeats, design.resamples
    if repeats < 1 or resamples < 0:
        raise InputError(f"repeats must be >= 1 and resamples >= 0, got {repeats} and {resamples}")
    rows: list[BacktestRow] = []
    skipped: list[BacktestSkip] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for t in ts:
            out = run_splits(
                prev, t, predictors, repeats, resamples, design.seed, design.level, design.heldout_shuffles
            )
            if isinstance(out, str):
                skipped.append(BacktestSkip(t=t, reason=out))
            elif out.observed.mean() <= 0:
                skipped.append(BacktestSkip(t=t, reason="the held-back queries showed no new item"))
            else:
                rows.extend(score_splits(out, level=design.level))
    return rows, skipped
