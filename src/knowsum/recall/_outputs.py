"""The run directory of a recall run or a scored predictions file, and how it is read back.

::

    OUT/
      predictions.jsonl    one PredictionRecord per probed concept
      plots/*.png          the paper's Figs. 2–4 (those the run has data for)
      report.html          the self-contained page
      result.json          the RecallRecord, written last (its presence marks a complete run)

Every file is written under a temporary name and renamed into place
(:func:`knowsum.records.write_run_dir`), so an interrupted write never leaves half of one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path

from knowsum.recall.record import PREDICTIONS_NAME, PredictionRecord, RecallRecord
from knowsum.records import REPORT_NAME, Run, default_run_dir, load_record, write_run_dir

__all__ = ["RUNS_DIR", "RecallRun", "default_out", "load_result", "write_outputs", "write_run"]

RUNS_DIR = Path("recall-runs")
"""Where runs go when no ``out`` is given (under the current directory)."""


class RecallRun(Run[RecallRecord]):
    """What :func:`~knowsum.recall.run_recall` and :func:`~knowsum.recall.score_predictions` produced."""

    __slots__ = ()


def default_out(what: str, model_id: str = "") -> Path:
    """``recall-runs/<what>-<model>`` (``recall-runs/<what>`` without a model) under the current
    directory; a model given as a file path is named by its file stem."""
    return default_run_dir("recall", what, model_id)


def write_run(out: Path, result: RecallRecord, records: Sequence[PredictionRecord]) -> RecallRun:
    """Write the run directory ``out`` (see the module docstring) and return what was written."""
    write_outputs(out, result, records)
    return RecallRun(result, out, out / REPORT_NAME)


def write_outputs(
    out_dir: Path, result: RecallRecord, records: Sequence[PredictionRecord], report: bool = True
) -> list[Path]:
    """Write ``predictions.jsonl``, the plots and ``report.html`` (``report=False``: neither), then
    ``result.json`` into ``out_dir`` (created); return the written paths."""
    lines = "".join(r.model_dump_json() + "\n" for r in records)
    pages: Callable[[Path], Sequence[Path]] | None = None
    if report:
        from knowsum.recall.page import write_recall_report  # matplotlib: only when a page is written

        pages = functools.partial(write_recall_report, result=result, records=records)
    return write_run_dir(out_dir, result, {PREDICTIONS_NAME: lines}, pages=pages)


def load_result(path: Path) -> RecallRecord:
    """Read ``result.json`` (or the run directory holding it) of a recall run, any schema version.

    Raises:
        InputFileError: missing, unreadable, not a recall record, a newer schema version, or an
            invalid field.
    """
    return load_record(path, RecallRecord)
