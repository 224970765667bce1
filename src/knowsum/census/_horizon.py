"""The trust horizon every census carries: how far its own queries back-test its estimator.

:func:`trust_horizon` runs the back-test (:mod:`knowsum.census._backtest`) on the census's own
estimator and ``k`` only, with :data:`HORIZON_REPEATS` splits of :data:`HORIZON_RESAMPLES` resamples
per ``t`` (the grid and the census's own ``t``), and stops at the first ``t`` that fails: the horizon
is the largest ``t`` of the grid whose relative RMSE ≤ :data:`MAX_ERROR` and interval coverage ≥
:data:`MIN_COVERAGE`, every smaller ``t`` passing too. The splits and resamples of one ``t`` are
one sparse product (``bench/bench_backtest.py`` times the back-test against a loop over splits).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from knowsum.census._backtest import DEFAULT_TS, Predictor, collect
from knowsum.records.backtest import BacktestRow, TrustHorizon
from knowsum.stats import Caveat, CaveatKind, Prevalence
from knowsum.stats import foresee as fs

__all__ = [
    "HORIZON_REPEATS",
    "HORIZON_RESAMPLES",
    "MAX_ERROR",
    "MIN_COVERAGE",
    "horizon_caveat",
    "horizon_from_rows",
    "horizon_predictor",
    "too_small_horizon",
    "trust_horizon",
]

MAX_ERROR = 0.20
"""Trust horizon: relative RMSE limit."""
MIN_COVERAGE = 0.90
"""Trust horizon: share of 95 % intervals that must cover what the held-back queries showed."""
HORIZON_REPEATS = 40
"""Splits per ``t`` of the trust horizon (every census pays for it: see the module docstring; the
coverage it reads is a share of 40, so ±5 % by the binomial s.e. near 90 %)."""
HORIZON_RESAMPLES = 20
"""Bootstrap resamples per split of the trust horizon (the interval's variance)."""


def horizon_predictor(estimator: str, k: int | None) -> tuple[str, Predictor] | None:
    """The back-test predictor of a census estimator (``None``: not back-tested)."""
    if estimator == "et" and k is not None:
        return f"sgt-k{k}", lambda p: fs.sgt(p, k)
    if estimator in ("good-toulmin", "chao1"):
        return estimator, fs.PREDICTORS[estimator]
    return None


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
    return TrustHorizon(
        status=status,
        t=row.t if row is not None and status == "back-tested" else None,
        error=None if row is None else row.relative_rmse,
        coverage=None if row is None else row.coverage,
        target_t=target_t,
        max_error=MAX_ERROR,
        min_coverage=MIN_COVERAGE,
        estimator=name,
        checked=list(checked),
        repeats=repeats,
        resamples=resamples,
        message=message,
    )


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
        return _horizon(
            "too-small", name, target_t, "too small to back-test", None, checked, repeats, resamples
        )
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
        f"t = {target_t:g} is beyond what this run can check"
        if target_t > passing.t
        else f"covers t = {target_t:g}"
    )
    cover = passing.coverage
    message = f"back-tested to t = {passing.t:g} (error {error:.0%}, interval coverage {cover:.0%}); {beyond}"
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
    grid = sorted({*ts, target_t})  # the census's own t too: a run that holds there has no caveat
    for i, t in enumerate(grid):  # stop at the first t that fails: no larger t can count
        found_rows, _ = collect(prev, [t], {name: predictor}, repeats, resamples, seed + i)
        rows.extend(found_rows)
        if not found_rows or not _passes(found_rows[0]):
            break
    return horizon_from_rows(rows, name, target_t, repeats, resamples)


def horizon_caveat(horizon: TrustHorizon) -> Caveat | None:
    """The ``beyond back-tested horizon`` caveat of N̂_tot when the census extrapolates further than
    its own queries back-test (``horizon.t < target_t``, a run too small or failing at t = 1), so the
    one caveat path carries the horizon to every surface; ``None`` when the horizon reaches the
    census's ``t`` or the estimator has no back-test."""
    if horizon.status == "not-applicable":
        return None
    if horizon.t is not None and horizon.t >= horizon.target_t:
        return None
    return Caveat(CaveatKind.HORIZON, f"beyond back-tested horizon: {horizon.message}", "N̂_tot")
