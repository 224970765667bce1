"""Back-test a census on its own queries: how far does each extrapolation hold? (KnowSum Fig. 7, to t = 99)

For each ``t`` of the grid, ``repeats`` times: shuffle the run's ``Q`` queries (seeded), keep the
first ``m = round(Q/(t+1))`` (at least 2, at most ``Q − 1``), and let every predictor of
:data:`knowsum.stats.foresee.PREDICTORS` say how many items the other ``Q − m`` queries show that the
kept ones do not, at ``t' = (Q − m)/m``; the truth is what they showed. Each split's interval is the
census's: Chao's log-normal interval with the variance of the predictor over ``resamples`` bootstrap
resamples of the kept queries (whole queries with replacement, as the census resamples). Every split
and every resample of one ``t`` is one column of one sparse product — items × queries times queries
× columns — so the repeats cost a few matrix products, not a Python loop over items.

:func:`trust_horizon` runs the same machinery, smaller, on the census's own estimator: the largest
``t`` whose relative RMSE ≤ :data:`MAX_ERROR` and coverage ≥ :data:`MIN_COVERAGE` (and every
smaller ``t`` of the grid passes too).
"""

from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.errors import InputError, UnknownNameError
from knowsum.records.backtest import Backtest, BacktestRow, BacktestSkip, TrustHorizon
from knowsum.records.census import CensusResult
from knowsum.stats import Prevalence, StatsWarning, select_k
from knowsum.stats import foresee as fs

__all__ = [
    "DEFAULT_TS",
    "HELDOUT_SHUFFLES",
    "backtest_run",
    "HORIZON_REPEATS",
    "HORIZON_RESAMPLES",
    "MAX_ERROR",
    "MIN_COVERAGE",
    "Splits",
    "kept_size",
    "run_splits",
    "score_splits",
    "too_small_horizon",
    "trust_horizon",
]

DEFAULT_TS: tuple[float, ...] = (1, 3, 9, 19, 49, 99)
"""Extrapolation factors of a back-test: ``1/(t+1)`` of the queries kept (1/2 … 1/100)."""
MAX_ERROR = 0.20
"""Trust horizon: relative RMSE limit."""
MIN_COVERAGE = 0.90
"""Trust horizon: share of 95 % intervals that must cover what the held-back queries showed."""
HORIZON_REPEATS = 40
"""Splits per ``t`` of the trust horizon (a census pays for it: a few hundred ms on 1,000 queries;
the coverage it reads is a share of 40, so ±5 % by the binomial s.e. near 90 %)."""
HORIZON_RESAMPLES = 20
"""Bootstrap resamples per split of the trust horizon (the interval's variance)."""
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
    item_query = prev.by_query.T.tocsr().astype(np.int32)
    incidence = not fs.INCIDENCE_PREDICTORS.isdisjoint(predictors)
    presence = (item_query > 0).astype(np.int32) if incidence else None
    width = resamples + 2  # kept, held back, resamples
    per_chunk = max(1, _CHUNK_COLUMNS // width)
    observed = np.empty(repeats)
    points: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    lows: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    highs: dict[str, list[NDArray[np.float64]]] = {name: [] for name in predictors}
    for start in range(0, repeats, per_chunk):
        count = min(per_chunk, repeats - start)
        weights = np.zeros((n_q, count * width), dtype=np.int32)
        ks = np.empty(count, dtype=np.int64)
        for j in range(count):
            order = rng.permutation(n_q)
            kept, rest = order[:m], order[m:]
            base = j * width
            weights[kept, base] = 1
            weights[rest, base + 1] = 1
            if resamples:  # multiplicities of the kept queries drawn with replacement, one bincount
                draws = kept[rng.integers(0, m, size=(resamples, m))] + np.arange(resamples)[:, None] * n_q
                flat = np.bincount(draws.ravel(), minlength=resamples * n_q)
                weights[:, base + 2 : base + width] = flat.reshape(resamples, n_q).T
            if heldout_shuffles:
                ks[j] = _heldout_k(prev.by_query, kept, heldout_shuffles, int(rng.integers(2**31)))
        counts = np.asarray(item_query @ weights)
        pres = None if presence is None else np.asarray(presence @ weights)
        cols = np.arange(count * width).reshape(count, width)
        use = np.concatenate([cols[:, :1], cols[:, 2:]], axis=1).ravel()  # kept and resamples
        held = counts[:, cols[:, 1]]
        observed[start : start + count] = ((held > 0) & (counts[:, cols[:, 0]] == 0)).sum(axis=0)
        panel = fs.panel(
            counts[:, use], None if pres is None else pres[:, use], (n_q - m) / m, m,
            np.repeat(ks, resamples + 1) if heldout_shuffles else None, full="good-toulmin" in predictors,
        )  # fmt: skip
        for name, predict in predictors.items():
            values = predict(panel).reshape(count, resamples + 1)
            boot = values[:, 1:]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                var = np.nanvar(np.where(np.isfinite(boot), boot, np.nan), axis=1, ddof=1) if resamples > 1 else (
                    np.full(count, np.nan)
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
                estimator=name, family=families.get(name, name), t=splits.t, t_effective=splits.t_effective,
                kept_queries=splits.kept, predicted=_none(s.predicted), observed=s.observed,
                bias=_none(s.bias), relative_bias=_none(s.relative_bias), relative_rmse=_none(s.relative_rmse),
                coverage=s.coverage, no_interval=s.no_interval, band=band, diverged=s.diverged,
            )  # fmt: skip
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
                prev, t, predictors, repeats, resamples, np.random.default_rng(stream), level, heldout_shuffles
            )
            if isinstance(out, str):
                skipped.append(BacktestSkip(t=t, reason=out))
            elif out.observed.mean() <= 0:
                skipped.append(BacktestSkip(t=t, reason="the held-back queries showed no new item"))
            else:
                rows.extend(score_splits(out))
    return rows, skipped


def horizon_predictor(estimator: str, k: int | None) -> tuple[str, Predictor] | None:
    """The back-test predictor of a census estimator (``None``: not back-tested)."""
    if estimator == "et" and k is not None:
        return f"sgt-k{k}", lambda p: fs.sgt(p, k)
    if estimator in ("good-toulmin", "chao1"):
        return estimator, fs.PREDICTORS[estimator]
    return None


def _horizon(status: str, name: str, target_t: float, message: str, row: BacktestRow | None = None,
             checked: Sequence[float] = (), repeats: int = 0, resamples: int = 0) -> TrustHorizon:  # fmt: skip
    return TrustHorizon(
        status=status, t=row.t if row is not None and status == "back-tested" else None,
        error=None if row is None else row.relative_rmse, coverage=None if row is None else row.coverage,
        target_t=target_t, max_error=MAX_ERROR, min_coverage=MIN_COVERAGE, estimator=name,
        checked=list(checked), repeats=repeats, resamples=resamples, message=message,
    )  # fmt: skip


def _passes(row: BacktestRow) -> bool:
    return row.relative_rmse is not None and row.relative_rmse <= MAX_ERROR and row.coverage >= MIN_COVERAGE


def too_small_horizon(estimator: str, target_t: float) -> TrustHorizon:
    """The horizon of a census with nothing to split (no verified item)."""
    return _horizon("too-small", estimator, target_t, "too small to back-test")


def horizon_from_rows(
    rows: Sequence[BacktestRow], name: str, target_t: float, repeats: int, resamples: int
) -> TrustHorizon:
    """The trust horizon of predictor ``name`` from back-test rows: the largest ``t`` of the grid
    whose relative RMSE ≤ :data:`MAX_ERROR` and coverage ≥ :data:`MIN_COVERAGE`, every smaller
    ``t`` passing too."""
    mine = sorted((r for r in rows if r.estimator == name), key=lambda r: r.t)
    checked = [r.t for r in mine]
    if not mine:
        return _horizon("too-small", name, target_t, "too small to back-test", None, checked, repeats, resamples)
    passing = None
    for row in mine:
        if not _passes(row):
            break
        passing = row
    if passing is None:
        first = mine[0]
        err = "n/a" if first.relative_rmse is None else f"{first.relative_rmse:.0%}"
        message = (
            f"not back-tested even at t = {first.t:g} (error {err}, interval coverage {first.coverage:.0%}; "
            f"limits {MAX_ERROR:.0%} and {MIN_COVERAGE:.0%})"
        )
        return _horizon("fails", name, target_t, message, first, checked, repeats, resamples)
    error = passing.relative_rmse if passing.relative_rmse is not None else math.nan
    beyond = (
        f"t = {target_t:g} is beyond what this run can check" if target_t > passing.t else f"covers t = {target_t:g}"
    )
    message = f"back-tested to t = {passing.t:g} (error {error:.0%}, interval coverage {passing.coverage:.0%}); {beyond}"
    return _horizon("back-tested", name, target_t, message, passing, checked, repeats, resamples)


def trust_horizon(
    prev: Prevalence,
    estimator: str,
    k: int | None,
    target_t: float,
    seed: int = 0,
    ts: Sequence[float] = DEFAULT_TS,
    repeats: int = HORIZON_REPEATS,
    resamples: int = HORIZON_RESAMPLES,
) -> TrustHorizon:
    """How far this run back-tests its own estimator (see the module docstring)."""
    found = horizon_predictor(estimator, k)
    if found is None:
        return _horizon("not-applicable", estimator, target_t, f"no back-test for {estimator}")
    name, predictor = found
    rows: list[BacktestRow] = []
    for i, t in enumerate(sorted(ts)):  # stop at the first t that fails: no larger t can count
        found_rows, _ = collect(prev, [t], {name: predictor}, repeats, resamples, seed + i)
        rows.extend(found_rows)
        if not found_rows or not _passes(found_rows[0]):
            break
    return horizon_from_rows(rows, name, target_t, repeats, resamples)


def backtest_run(
    result: CensusResult,
    prev: Prevalence,
    run: str,
    ts: Sequence[float] = DEFAULT_TS,
    repeats: int = 100,
    resamples: int = 50,
    seed: int = 0,
    estimators: Sequence[str] | None = None,
    level: float = 0.95,
    heldout_shuffles: int = HELDOUT_SHUFFLES,
) -> Backtest:
    """Back-test every predictor (or ``estimators``) on a census run's queries.

    Args:
        result: The run's record (task, model, counting, the estimator of its trust horizon).
        prev: The run's sample, grouped by query (:func:`knowsum.census.run_prevalence`).
        run: The run directory, as the record names it.
        ts: Extrapolation factors (each keeps ``1/(t+1)`` of the queries).
        repeats: Random splits per ``t``.
        resamples: Bootstrap resamples per split (the interval).
        seed: Seed of the splits and resamples.
        estimators: Names of :data:`knowsum.stats.foresee.PREDICTORS` (default: all).
        level: Interval level.
        heldout_shuffles: Splits of the held-out ``k`` inside each split (``sgt-heldout``).

    Raises:
        UnknownNameError: an estimator that is not a predictor.
        InputError: ``repeats < 1``, ``resamples < 0`` or a ``t ≤ 0``.
    """
    names = list(fs.PREDICTORS) if not estimators else list(dict.fromkeys(estimators))
    unknown = [n for n in names if n not in fs.PREDICTORS]
    if unknown:
        raise UnknownNameError("estimator", unknown[0], list(fs.PREDICTORS))
    bad = [t for t in ts if not (math.isfinite(t) and t > 0)]
    if bad or not ts:
        raise InputError(f"--t: invalid t={bad[0] if bad else ''!r}: each t must be a number > 0")
    grid = sorted({float(t) for t in ts})
    start = time.perf_counter()
    shuffles = heldout_shuffles if "sgt-heldout" in names else 0
    rows, skipped = collect(
        prev, grid, {n: fs.PREDICTORS[n] for n in names}, repeats, resamples, seed, level, shuffles
    )
    found = horizon_predictor(result.estimator, result.k)
    if found is not None and found[0] not in names:
        extra, _ = collect(prev, grid, dict([found]), repeats, resamples, seed, level)
        horizon = horizon_from_rows(extra, found[0], result.t, repeats, resamples)
    elif found is not None:
        horizon = horizon_from_rows(rows, found[0], result.t, repeats, resamples)
    else:
        horizon = trust_horizon(prev, result.estimator, result.k, result.t, seed)
    return Backtest(
        run=run, task=result.task, model=result.model, counting=result.counting, n_queries=result.n_queries,
        n_seen=result.n_seen, ts=grid, repeats=repeats, resamples=resamples, level=level, seed=seed,
        heldout_shuffles=shuffles, estimators=names, rows=rows, skipped=skipped, horizon=horizon,
        seconds=time.perf_counter() - start,
    )  # fmt: skip
