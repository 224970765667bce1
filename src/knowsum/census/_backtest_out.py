"""``knowsum census backtest RUN``: back-test a run, write ``backtest.json``, the figure and the page.

The output folder (default ``RUN/backtest``) holds ``backtest.json`` (the
:class:`~knowsum.records.backtest.Backtest` record), ``plots/backtest.png`` and ``report.html``;
``backtest.json`` is written last, so its presence marks a finished back-test.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from pathlib import Path

from knowsum._util import atomic_write
from knowsum.census._backtest import DEFAULT_TS, HELDOUT_SHUFFLES, collect
from knowsum.census._horizon import horizon_from_rows, horizon_predictor, trust_horizon
from knowsum.census._sensitivity import run_prevalence
from knowsum.errors import InputError, UnknownNameError
from knowsum.records import Run, holds_only
from knowsum.records.backtest import Backtest
from knowsum.records.census import CensusResult
from knowsum.report.backtest import write_backtest_report
from knowsum.stats import Prevalence
from knowsum.stats import foresee as fs

__all__ = ["BacktestRun", "backtest_census", "backtest_run"]


class BacktestRun(Run[Backtest]):
    """A written back-test: its record (``backtest.json``), its folder and its page."""

    __slots__ = ()


def backtest_census(
    run_dir: Path,
    out: Path | None = None,
    ts: Sequence[float] = DEFAULT_TS,
    repeats: int = 100,
    resamples: int = 50,
    seed: int = 0,
    estimators: Sequence[str] | None = None,
    heldout_shuffles: int = HELDOUT_SHUFFLES,
) -> BacktestRun:
    """Back-test the census in ``run_dir`` and write the result to ``out`` (default ``run_dir/backtest``).

    Raises:
        InputFileError: the run has no result, no items, or items that disagree with its record.
        InputError: ``out`` is the run's own folder or a file; bad settings (see :func:`backtest_run`).
    """
    result, prev = run_prevalence(run_dir)
    target = run_dir / "backtest" if out is None else out
    if target.resolve() == run_dir.resolve():
        raise InputError(f"--out: invalid out={target}: that is the run itself; give another folder")
    if target.exists() and not target.is_dir():
        raise InputError(f"--out: invalid out={target}: a file, not a folder")
    if target.is_dir() and not holds_only(target, ("backtest.json", "report.html", "plots/backtest.png")):
        raise InputError(
            f"--out: invalid out={target}: a folder holding other files (not a back-test); "
            "give a new folder or a previous back-test's"
        )
    bt = backtest_run(
        result, prev, str(run_dir), ts, repeats, resamples, seed, estimators, result.level, heldout_shuffles
    )
    target.mkdir(parents=True, exist_ok=True)
    report = write_backtest_report(target, bt)
    with atomic_write(target / "backtest.json") as fh:
        fh.write(bt.model_dump_json(indent=1))
    return BacktestRun(bt, target, report)


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
        run=run,
        **result.carried(Backtest.FROM_CENSUS),
        ts=grid,
        repeats=repeats,
        resamples=resamples,
        level=level,
        seed=seed,
        heldout_shuffles=shuffles,
        estimators=names,
        rows=rows,
        skipped=skipped,
        horizon=horizon,
        seconds=time.perf_counter() - start,
    )
