"""``knowsum census backtest RUN``: back-test a run, write ``backtest.json``, the figure and the page.

The output folder (default ``RUN/backtest``) holds ``backtest.json`` (the
:class:`~knowsum.census.backtest_record.Backtest` record), ``plots/backtest.png`` and ``report.html``;
``backtest.json`` is written last, so its presence marks a finished back-test.

The folder is claimed before the back-test is computed, as every output folder is
(:func:`knowsum._util.claim_folder`, :func:`backtest_identity`): the same back-test (the same census
run and settings) is rewritten there; another is refused naming the first difference, unless
``overwrite``, which empties the folder first.
"""

from __future__ import annotations

import math
import os
import shutil
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from knowsum._util import CLAIM_NAME, atomic_write, claim_folder
from knowsum.census._backtest import (
    DEFAULT_TS,
    HELDOUT_SHUFFLES,
    MIN_KEPT,
    Predictor,
    SplitDesign,
    collect,
    run_splits,
    score_splits,
)
from knowsum.census._horizon import horizon_predictor, horizon_resamples, trust_horizon
from knowsum.census._sensitivity import run_prevalence
from knowsum.census.backtest_page import write_backtest_report
from knowsum.census.backtest_record import Backtest, SizePoint
from knowsum.census.record import CensusRecord
from knowsum.errors import InputError, UnknownNameError
from knowsum.records import PLOTS_DIR, Run, holds_only
from knowsum.stats import Prevalence, StatsWarning
from knowsum.stats import foresee as fs
from knowsum.stats.unseen import MAX_K

__all__ = ["SIZE_TS", "BacktestRun", "backtest_census", "backtest_identity", "backtest_run", "size_curve"]

SIZE_TS: tuple[float, ...] = (1.0, 3.0)
"""The ``t`` of the size curve."""
SIZE_DIVISORS: tuple[int, ...] = (1, 2, 4)
"""Kept sizes of the size curve: ``Q/(t+1)`` divided by these."""
BACKTEST_FILES = ("backtest.json", "report.html", f"{PLOTS_DIR}/backtest.png", CLAIM_NAME)
"""What a back-test folder holds: its record, page, figure and claim."""


def _backtest_entry(entry: Path) -> bool:
    """Whether ``entry`` (top level of a back-test folder) is one :data:`BACKTEST_FILES` names."""
    return entry.name in {Path(name).parts[0] for name in BACKTEST_FILES}


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
    *,
    overwrite: bool = False,
) -> BacktestRun:
    """Back-test the census in ``run_dir`` and write the result to ``out`` (default ``run_dir/backtest``).

    ``out`` is claimed first (see the module docstring); if the back-test then fails, a folder this
    call created is removed again.

    Raises:
        InputFileError: the run has no result, no items, or items that disagree with its record.
        InputError: ``out`` is the run's own folder or a file; bad settings (see :func:`backtest_run`).
        OutputError: ``out`` holds another back-test (and not ``overwrite``).
    """
    result, prev = run_prevalence(run_dir)
    target = run_dir / "backtest" if out is None else out
    if target.resolve() == run_dir.resolve():
        raise InputError(f"--out: invalid out={target}: that is the run itself; give another folder")
    if target.exists() and not target.is_dir():
        raise InputError(f"--out: invalid out={target}: a file, not a folder")
    if target.is_dir() and not holds_only(target, BACKTEST_FILES):
        raise InputError(
            f"--out: invalid out={target}: a folder holding other files (not a back-test); "
            "give a new folder or a previous back-test's"
        )
    names, grid = _settings(ts, estimators)
    shuffles = heldout_shuffles if "sgt-heldout" in names else 0
    design = SplitDesign(repeats, resamples, seed, result.level, shuffles)
    identity = backtest_identity(run_dir, target, grid, names, design)
    created = not target.exists()
    _claim_earlier(target)
    claim_folder(target, identity, owns=_backtest_entry, overwrite=overwrite)
    try:
        bt = backtest_run(
            result, prev, str(run_dir), grid, repeats, resamples, seed, names, result.level, heldout_shuffles
        )
        report = write_backtest_report(target, bt)
        with atomic_write(target / "backtest.json") as fh:
            fh.write(bt.model_dump_json(indent=1))
    except BaseException:
        if created:  # nothing half-written: the folder this call made goes again
            shutil.rmtree(target, ignore_errors=True)
        raise
    return BacktestRun(bt, target, report)


def backtest_identity(
    run_dir: Path | str, out: Path, ts: Sequence[float], estimators: Sequence[str], design: SplitDesign
) -> dict[str, str]:
    """What makes two back-tests the same one (the claim of their folder ``out``): the census run they
    test (its folder, as a path from ``out``: ``..`` for ``RUN/backtest``, so a run copied or moved
    with its back-test is still that back-test's run), the ``t``, the estimators and the split design
    (its level is the run's)."""
    return {
        "census run": Path(os.path.relpath(Path(run_dir).resolve(), out.resolve())).as_posix(),
        "t": ",".join(f"{t:g}" for t in sorted({float(t) for t in ts})),
        "estimators": ",".join(sorted(set(estimators))),
        "repeats": str(design.repeats),
        "resamples": str(design.resamples),
        "seed": str(design.seed),
        "heldout shuffles": str(design.heldout_shuffles),
    }


def _claim_earlier(target: Path) -> None:
    """Claim a back-test folder written before back-test folders were claimed for the back-test its
    ``backtest.json`` holds (an unreadable one is no back-test: the folder is then unclaimed)."""
    if (target / CLAIM_NAME).exists() or not (target / "backtest.json").is_file():
        return
    try:
        old = Backtest.model_validate_json((target / "backtest.json").read_bytes())
    except (OSError, ValueError):
        return
    design = SplitDesign(old.repeats, old.resamples, old.seed, old.level, old.heldout_shuffles)
    identity = backtest_identity(old.run, target, old.ts, old.estimators, design)
    claim_folder(target, identity, owns=_backtest_entry)


def _settings(ts: Sequence[float], estimators: Sequence[str] | None) -> tuple[list[str], list[float]]:
    """The predictors (``estimators``, default all, without repeats) and the sorted grid of ``ts``.

    Raises:
        UnknownNameError: an estimator that is not a predictor.
        InputError: no ``t``, or a ``t`` that is not a number > 0.
    """
    names = list(fs.PREDICTORS) if not estimators else list(dict.fromkeys(estimators))
    unknown = [n for n in names if fs.predictor(n) is None]
    if unknown:
        raise UnknownNameError("estimator", unknown[0], [*fs.PREDICTORS, f"sgt-k<k> (k = 1…{MAX_K})"])
    bad = [t for t in ts if not (math.isfinite(t) and t > 0)]
    if bad or not ts:
        raise InputError(f"--t: invalid t={bad[0] if bad else ''!r}: each t must be a number > 0")
    return names, sorted({float(t) for t in ts})


def size_curve(
    prev: Prevalence, name: str, predictor: Predictor, repeats: int, seed: int, ts: Sequence[float] = SIZE_TS
) -> tuple[list[SizePoint], dict[str, float]]:
    """The error against kept size at fixed ``t``: splits keeping ``m = Q/(d(t+1))`` queries
    (``d`` in :data:`SIZE_DIVISORS`) and holding back ``t·m`` of the others; then the fit
    ``log RMSE = a − β log m`` per ``t``, extrapolated to ``m = Q`` (the census's own size: what the
    error at that ``t`` would be if the whole census were the kept part). The extrapolation assumes
    the power law holds beyond the sizes measured; it is labelled so on every surface."""
    n_q = 0 if prev.by_query is None else int(prev.by_query.shape[0])
    points: list[SizePoint] = []
    fits: dict[str, float] = {}
    for t in ts:
        mine: list[SizePoint] = []
        for d in SIZE_DIVISORS:
            m = int(n_q / (d * (t + 1)))
            held = round(t * m)
            if m < MIN_KEPT or held < 1 or m + held > n_q:
                continue
            out = run_splits(prev, t, {name: predictor}, repeats, 0, seed, kept=m, held=held)
            if isinstance(out, str) or out.observed.mean() <= 0:
                continue
            row = score_splits(out)[0]  # its error, with the same names on the size point
            errors = row.model_dump(include={"relative_rmse", "relative_rmse_se", "observed"})
            mine.append(SizePoint(t=t, kept_queries=m, estimator=name, **errors))
        points += mine
        usable = [(p.kept_queries, p.relative_rmse) for p in mine if p.relative_rmse]
        if len(usable) >= 2:
            x = np.log([m for m, _ in usable])
            y = np.log([e for _, e in usable])
            slope, icept = np.polyfit(x, y, 1)
            fits[f"{t:g}"] = float(np.exp(icept + slope * np.log(n_q)))
    return points, fits


def backtest_run(
    result: CensusRecord,
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
    names, grid = _settings(ts, estimators)
    start = time.perf_counter()
    shuffles = heldout_shuffles if "sgt-heldout" in names else 0
    design = SplitDesign(repeats, resamples, seed, level, shuffles)
    rows, skipped = collect(prev, grid, {n: p for n in names if (p := fs.predictor(n)) is not None}, design)
    # the census's own test, with its own splits (split j of t is the same split as in `rows`)
    boot = horizon_resamples(result.config.get("n_bootstrap"))
    horizon = trust_horizon(
        prev, result.estimator, result.k, result.t, seed, resamples=boot, unseen=result.n_unseen
    )
    found = horizon_predictor(result.estimator, result.k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        curve, fits = ([], {}) if found is None else size_curve(prev, found[0], found[1], repeats, seed)
    return Backtest(
        run=run,
        **result.carried(Backtest.FROM_CENSUS),
        ts=grid,
        **asdict(design),
        estimators=names,
        rows=rows,
        skipped=skipped,
        horizon=horizon,
        seconds=time.perf_counter() - start,
        size_curve=curve,
        size_extrapolation=fits,
    )
