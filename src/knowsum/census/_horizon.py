"""The trust horizon every census carries: how far its own queries back-test its estimator.

:func:`trust_horizon` back-tests (:mod:`knowsum.census._backtest`) the census's own estimator and
``k`` at each ``t`` of the grid (:data:`HORIZON_TS`: 0.5, 1, 3, 9, 19, 49, 99) and at the census's
own ``t`` (its splits keep ``Q/(t+1)`` queries, rounded, so they reach it when the run is large enough), in
order, and stops at the first ``t`` that fails.
A ``t`` **passes** when, over its splits,

(a) the bias is within the band: ``|bias| / N_tot ≤`` :data:`MAX_BIAS` is not rejected — the
    99 % interval ``|b| ± z·s.e.`` (Monte Carlo s.e. of the mean error) reaches below the limit. The
    bias, unlike the RMSE, does not grow as the census shrinks (its noise floor ``sqrt(E U)`` does),
    so a small census whose estimator is unbiased passes; and
(b) the prediction interval's coverage is not significantly below nominal: the one-sided 99 % Wilson
    upper bound of the share of splits it covers is at least :data:`MIN_COVERAGE`.

Splits come in blocks of :data:`BLOCK`; after each block the test stops when both criteria are decided
(their 99 % bounds on one side of the limit) or one fails decidedly, else adds a block, up to
:data:`MAX_SPLITS`. A ``t`` still undecided at the cap passes (no limit is significantly violated) and
its message says ``borderline: undecided after N splits``. Split ``j`` of ``t`` is the same split in
``census backtest --seed S`` (:func:`~knowsum.census._backtest.split_rng`), so the two agree cell for
cell when it runs with the horizon's :data:`HORIZON_RESAMPLES`. The prediction interval is the one the
census headline reports: for the linear estimators ``max(Σ h_s² f_s, bootstrap variance) + Û``, the
bootstrap over :data:`HORIZON_RESAMPLES` resamples of whole queries, so a block is one sparse product
of ``splits × (1 + resamples)`` rows (``bench/bench_backtest.py`` times it beside the census). The
horizon is the effective ``t`` (held-back / kept queries) of the last passing split size — what the
splits reached, never the ``t`` asked for. A census of more than :data:`HORIZON_MAX_QUERIES` queries is
back-tested on that many of them, drawn at random with the seed, and its message says so: the cost of
a split grows with the census, the test's precision does not, and a smaller census's horizon errs
short (``census backtest`` then splits the whole census, so its cells differ)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from scipy.stats import norm

from knowsum.census._backtest import DEFAULT_TS, Predictor, kept_size, run_splits, score_splits
from knowsum.census.backtest_page import share_text
from knowsum.census.backtest_record import BacktestRow, TrustHorizon
from knowsum.stats import Caveat, CaveatKind, Prevalence, StatsWarning
from knowsum.stats import foresee as fs
from knowsum.stats.prediction import wilson_bounds
from knowsum.stats.summary import ALL_SINGLETONS_REASON

__all__ = [
    "BLOCK",
    "HORIZON_MAX_QUERIES",
    "HORIZON_REPEATS",
    "HORIZON_RESAMPLES",
    "HORIZON_TS",
    "MAX_BIAS",
    "MAX_ERROR",
    "MAX_SPLITS",
    "MIN_COVERAGE",
    "horizon_caveat",
    "horizon_from_rows",
    "horizon_predictor",
    "horizon_resamples",
    "too_small_horizon",
    "trust_horizon",
]

MAX_BIAS = 0.10
"""Trust horizon: limit on ``|bias| / N_tot`` (the error of N̂_tot's mean, as a share of N_tot)."""
MAX_ERROR = MAX_BIAS
"""The record's ``max_error`` (its name before the bias test)."""
MIN_COVERAGE = 0.90
"""Trust horizon: the 95 % prediction interval's coverage must not be significantly below this."""
CONFIDENCE = 0.99
"""Confidence of every bound the test reads (one-sided for coverage, two-sided for the bias)."""
BLOCK = 100
"""Splits added at a time."""
MAX_SPLITS = 800
"""Most splits per ``t`` (a linear estimator)."""
MAX_BOOT_SPLITS = 200
"""Most splits per ``t`` of Chao1 (its bootstrap recomputes the estimator on every resample)."""
HORIZON_REPEATS = BLOCK
"""Splits of the first block (kept name)."""
HORIZON_TS: tuple[float, ...] = (0.5, *DEFAULT_TS)
"""The horizon's grid: ``census backtest``'s (KnowSum Fig. 7) with ``t = 0.5`` first, so that "back-tested
to ``t``" holds below ``t = 1`` too, where the future's own variance dominates the prediction interval."""
HORIZON_MAX_QUERIES = 10_000
"""A larger census is back-tested on this many of its queries, drawn at random (seeded)."""
HORIZON_RESAMPLES = 20
"""Bootstrap resamples of the kept queries per split (the prediction interval's variance)."""
_Z = float(norm.ppf(0.5 + CONFIDENCE / 2))


def horizon_resamples(n_bootstrap: object) -> int:
    """The horizon's resamples for a census of ``n_bootstrap`` resamples: none when the census took
    none, else :data:`HORIZON_RESAMPLES`. Without resamples a linear estimator's prediction interval
    has only its closed-form variance, and the horizon judges that interval, not a wider one; a
    nonlinear one (Chao1, Pitman–Yor, preseq) has no prediction interval at all, and its horizon is
    ``no-interval`` (:func:`trust_horizon`)."""
    return 0 if n_bootstrap == 0 else HORIZON_RESAMPLES


BACKTESTED = ("good-toulmin", "chao1", "pitman-yor", "preseq")
"""Census estimators back-tested under their own name (``et`` is back-tested as ``sgt-k<k>``); the
long-range ones refit on every split and resample (about a second on a 1,000-query census)."""


def horizon_predictor(estimator: str, k: int | None) -> tuple[str, Predictor] | None:
    """The back-test predictor of a census estimator (``None``: not back-tested)."""
    name = (
        f"sgt-k{k}" if estimator == "et" and k is not None else estimator if estimator in BACKTESTED else None
    )
    found = None if name is None else fs.predictor(name)
    return None if name is None or found is None else (name, found)


def _bias(row: BacktestRow) -> tuple[float, float] | None:
    """``(bias / N_tot, its s.e.)``; ``None`` when the predictions diverged."""
    if row.bias is None or not row.n_total:
        return None
    return row.bias / row.n_total, (row.bias_se or 0.0) / row.n_total


def _coverage_bounds(row: BacktestRow) -> tuple[float, float]:
    n = row.repeats or 1
    hits = round((row.pi_coverage or 0.0) * n)
    return wilson_bounds(hits, n, 2 * CONFIDENCE - 1)  # each end a one-sided 99 % bound


def _nothing_new(row: BacktestRow) -> bool:
    return row.observed == 0 and row.predicted == 0


def _decision(row: BacktestRow) -> bool | None:
    """``True``/``False`` when the test has decided at this many splits, ``None`` when not yet."""
    if _nothing_new(row):
        return True
    bias = _bias(row)
    if bias is None:
        return False
    b, se = abs(bias[0]), bias[1]
    low, high = _coverage_bounds(row)
    if b - _Z * se > MAX_BIAS or high < MIN_COVERAGE:
        return False
    if b + _Z * se <= MAX_BIAS and low >= MIN_COVERAGE:
        return True
    return None


def _passes(row: BacktestRow) -> bool:
    """Neither criterion significantly violated (the verdict at any number of splits)."""
    return _decision(row) is not False


def _queries(row: BacktestRow) -> int:
    return round(row.kept_queries * (1 + row.t_effective))


def _describe(row: BacktestRow) -> str:
    """``100 of 1000 queries kept; bias −3 % ± 1 % of N_tot, prediction interval covers 94 % of 400
    splits, error 30 % of the new items (noise floor 25 %)``."""
    bias = _bias(row)
    err = "n/a: diverged" if row.relative_rmse is None else f"{row.relative_rmse:.0%}"
    error = f"error {err} of the new items"
    if row.relative_rmse is None and row.predicted is not None and row.observed == 0:
        error = "no split showed a new item"  # a relative error has no scale here, and nothing diverged
    floor = "" if not row.observed else f" (noise floor {1 / math.sqrt(row.observed):.0%})"
    if bias is None:
        b = "n/a: diverged"
    else:
        signed = f"{bias[0]:+.1%}"  # a bias that rounds to zero reads +0.0%, never -0.0%
        b = f"{'+0.0%' if signed == '-0.0%' else signed} ± {bias[1]:.1%} of N_tot"
    return (
        f"{row.kept_queries} of {_queries(row)} queries kept; bias {b}, prediction interval covers "
        f"{share_text(row.pi_coverage or 0.0)} of {row.repeats} splits, {error}{floor}"
    )


def _horizon(
    status: str,
    name: str,
    target_t: float,
    message: str,
    row: BacktestRow | None = None,
    checked: Sequence[float] = (),
    repeats: int = 0,
    resamples: int = 0,
) -> TrustHorizon:
    bias = None if row is None else _bias(row)
    return TrustHorizon(
        status=status,
        t=row.t_effective if row is not None and status == "back-tested" else None,
        error=None if row is None else row.relative_rmse,
        coverage=None if row is None else row.pi_coverage,
        target_t=target_t,
        max_error=MAX_BIAS,
        min_coverage=MIN_COVERAGE,
        estimator=name,
        checked=list(checked),
        repeats=repeats,
        resamples=resamples,
        message=message,
        t_asked=None if row is None else row.t,
        kept_queries=None if row is None else row.kept_queries,
        bias=None if bias is None else bias[0],
        bias_se=None if bias is None else bias[1],
        coverage_bound=None if row is None else _coverage_bounds(row)[1],
        noise_floor=None if row is None or not row.observed else 1 / math.sqrt(row.observed),
        splits=None if row is None else row.repeats,
        decided=None if row is None else _decision(row) is not None,
    )


def too_small_horizon(estimator: str, target_t: float) -> TrustHorizon:
    """The horizon of a census with nothing to split (no verified item)."""
    return _horizon("too-small", estimator, target_t, "too small to back-test")


def _exact_horizon(estimator: str, target_t: float, n_queries: int) -> TrustHorizon:
    return _horizon(
        "exact",
        estimator,
        target_t,
        f"exact on its own queries: each of the {n_queries:,} queries named the same items, so no split "
        "can show a new item and Û = 0 predicts every split; whether a further query names one, these "
        "queries cannot say",
    )


def _no_interval_horizon(estimator: str, target_t: float, why: str = ALL_SINGLETONS_REASON) -> TrustHorizon:
    """The census prints no prediction interval (``why``), so there is none to back-test."""
    return _horizon(
        "no-interval",
        estimator,
        target_t,
        f"n/a: {why}: the census has no prediction interval, so there is none to back-test",
    )


def horizon_from_rows(
    rows: Sequence[BacktestRow], name: str, target_t: float, repeats: int, resamples: int
) -> TrustHorizon:
    """The trust horizon of predictor ``name`` from its rows, in the order tested: the last row of
    the passing prefix (see the module docstring)."""
    mine = sorted((r for r in rows if r.estimator == name), key=lambda r: r.t_effective)
    checked = [r.t_effective for r in mine]
    if not mine:
        return _horizon(
            "too-small", name, target_t, "too small to back-test", None, checked, repeats, resamples
        )
    passing, failed = None, None
    for row in mine:
        if not _passes(row):
            failed = row
            break
        passing = row
    limits = f"limits: |bias| ≤ {MAX_BIAS:.0%} of N_tot, coverage not below {MIN_COVERAGE:.0%}"
    if passing is None:
        first = mine[0]
        message = f"not back-tested even at t = {first.t_effective:.3g} ({_describe(first)}; {limits})"
        return _horizon("fails", name, target_t, message, first, checked, repeats, resamples)
    reach = "no split showed a new item" if _nothing_new(passing) else _describe(passing)
    if _decision(passing) is None:  # at the cap: neither limit rejected, nor shown to hold
        reach += f"; borderline: undecided after {passing.repeats} splits, the most tested"
    if passing.t_effective >= target_t:
        beyond = f"covers t = {target_t:g}"
    elif failed is not None:  # the splits reached further and failed there: the estimator, not the size
        beyond = (
            f"t = {target_t:g} is beyond what it holds: it fails at t = {failed.t_effective:.3g} "
            f"({_describe(failed)})"
        )
    else:
        beyond = f"t = {target_t:g} is beyond what the splits of this run reach"
    message = f"back-tested to t = {passing.t_effective:.3g} ({reach}); {beyond}"
    return _horizon("back-tested", name, target_t, message, passing, checked, repeats, resamples)


def _same_items(prev: Prevalence) -> bool:
    """Every query named exactly the same items (nothing new can appear)."""
    q = prev.by_query
    if q is None or q.shape[0] < 2:
        return False
    present = np.asarray((q > 0).sum(axis=0)).ravel()
    seen = present[present > 0]
    return bool(seen.size) and bool((seen == q.shape[0]).all())


def _test_t(
    prev: Prevalence, name: str, predictor: Predictor, t: float, kept: int, seed: int, boot: int, cap: int
) -> BacktestRow | None:
    """Blocks of splits at ``t`` until the test decides or the cap is reached."""
    splits = None
    while True:
        done = 0 if splits is None else splits.observed.size
        more = run_splits(prev, t, {name: predictor}, BLOCK, boot, seed, start=done, kept=kept)
        if isinstance(more, str):
            return None
        splits = more if splits is None else splits.extend(more)
        row = score_splits(splits)[0]
        if _decision(row) is not None or splits.observed.size >= cap:
            return row


def trust_horizon(
    prev: Prevalence,
    estimator: str,
    k: int | None,
    target_t: float,
    seed: int = 0,
    ts: Sequence[float] = HORIZON_TS,
    repeats: int = HORIZON_REPEATS,
    resamples: int = HORIZON_RESAMPLES,
    *,
    unseen: float | None = None,
) -> TrustHorizon:
    """How far this run back-tests its own estimator (see the module docstring). ``repeats``: the
    smallest number of splits a ``t`` is judged on (the first block, kept for the record).
    ``unseen``: the census's own ``Û(t)``; when every query named the same items and it is 0, the
    census is ``exact`` on its own queries (no split can show a new item and none is predicted). When
    every item was seen once, the census prints no prediction interval (all singletons), and the
    horizon is ``no-interval``: there is no interval to back-test. Otherwise — ``Û > 0`` on
    such a run (eq. 1 weighs ``f_Q`` when ``Q ≤ k``), or ``None`` (not given) — it is back-tested
    like any other run."""
    found = horizon_predictor(estimator, k)
    if found is None:
        message = f"no back-test for {estimator} (back-tested: et, {', '.join(BACKTESTED)})"
        return _horizon("not-applicable", estimator, target_t, message)
    name, predictor = found
    if unseen == 0 and _same_items(prev):
        return _exact_horizon(name, target_t, 0 if prev.by_query is None else int(prev.by_query.shape[0]))
    n_all = 0 if prev.by_query is None else int(prev.by_query.shape[0])
    splittable = kept_size(n_all, min(ts, default=target_t)) is not None
    if splittable and prev.f(1) == prev.n_seen:  # the headline's interval is n/a: none to score
        return _no_interval_horizon(name, target_t)
    if resamples < 2 and not fs.linear_variance_of(name):  # its interval is the bootstrap's alone
        return _no_interval_horizon(name, target_t, f"no bootstrap, and {name}'s interval is a bootstrap one")
    boot = resamples
    cap = MAX_SPLITS if fs.linear_variance_of(name) else MAX_BOOT_SPLITS
    prev, note = _at_most(prev, seed)
    n_q = 0 if prev.by_query is None else int(prev.by_query.shape[0])
    rows: list[BacktestRow] = []
    last = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for t in sorted({*ts, target_t}):  # the census's own t too: a run that holds there has no caveat
            kept = kept_size(n_q, t, reach=t == target_t)
            if kept is None:
                break
            if kept == last:  # the same split size as the previous t: the same test
                continue
            last = kept
            row = _test_t(prev, name, predictor, t, kept, seed, boot, max(cap, repeats))
            if row is None:
                break
            rows.append(row)
            if not _passes(row):  # stop at the first t that fails: no larger t can count
                break
    found_h = horizon_from_rows(rows, name, target_t, BLOCK, boot)
    return found_h.model_copy(update={"message": found_h.message + note}) if note else found_h


def _at_most(prev: Prevalence, seed: int) -> tuple[Prevalence, str]:
    """``prev``, or a seeded random :data:`HORIZON_MAX_QUERIES` of its queries and the note that says
    so: a split keeps a share of the queries, so its cost grows with the census while the test's
    precision does not (a 10⁵-query census took 7 minutes). The smaller census's error at each ``t``
    is larger (the size curve), so its horizon errs short, never long."""
    n_q = 0 if prev.by_query is None else int(prev.by_query.shape[0])
    if prev.by_query is None or n_q <= HORIZON_MAX_QUERIES:
        return prev, ""
    rows = np.sort(np.random.default_rng([seed, HORIZON_MAX_QUERIES]).choice(n_q, HORIZON_MAX_QUERIES, False))
    sub = prev.by_query.tocsr()[rows]
    totals = np.asarray(sub.sum(axis=0)).ravel()
    keep = np.flatnonzero(totals)
    note = (
        f" (back-tested on a random {HORIZON_MAX_QUERIES:,} of its {n_q:,} queries: a smaller census's "
        "horizon, which errs short)"
    )
    return Prevalence(totals[keep], None, sub[:, keep]), note


def horizon_caveat(horizon: TrustHorizon) -> Caveat | None:
    """The ``beyond back-tested horizon`` caveat as records before the simulated error at own ``t``
    carried it (a census no longer attaches it: its horizon is stated in ``horizon``, and the
    caveat beside N̂_tot is the simulated error). The caveat of N̂_tot when the census extrapolates
    further than its own queries back-test (``horizon.t < target_t``, a run too small or failing at its first
    ``t``), so the one caveat path carries the horizon to every surface; ``None`` when the horizon
    reaches the census's ``t``, the census is exact, or the estimator has no back-test."""
    if horizon.status in ("not-applicable", "exact", "no-interval"):
        return None
    if horizon.t is not None and horizon.t >= horizon.target_t:
        return None
    return Caveat(CaveatKind.HORIZON, f"beyond back-tested horizon: {horizon.message}", "N̂_tot")
