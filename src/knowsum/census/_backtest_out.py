"""``knowsum census backtest RUN``: load the run, back-test it, write ``backtest.json``, the figure and the page.

The output folder (default ``RUN/backtest``) holds ``backtest.json`` (the
:class:`~knowsum.records.backtest.Backtest` record), ``plots/backtest.png`` and ``report.html``;
``backtest.json`` is written last, so its presence marks a finished back-test.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from knowsum._util import atomic_write
from knowsum.census._backtest import DEFAULT_TS, HELDOUT_SHUFFLES, backtest_run
from knowsum.census._sensitivity import run_prevalence
from knowsum.errors import InputError
from knowsum.records.backtest import Backtest
from knowsum.report.backtest import write_backtest_report

__all__ = ["BacktestRun", "backtest_census"]


@dataclass(frozen=True, slots=True)
class BacktestRun:
    """A written back-test: the record, its folder and its page."""

    result: Backtest
    out_dir: Path
    report: Path


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
    bt = backtest_run(result, prev, str(run_dir), ts, repeats, resamples, seed, estimators, result.level,
                      heldout_shuffles)  # fmt: skip
    target.mkdir(parents=True, exist_ok=True)
    report = write_backtest_report(target, bt)
    with atomic_write(target / "backtest.json") as fh:
        fh.write(bt.model_dump_json(indent=1))
    return BacktestRun(bt, target, report)
