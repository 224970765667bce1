"""Write and read the files of a genebench run: questions, predictions, plots, report, result.

Layout of a run directory (:func:`knowsum.records.write_run_dir`)::

    OUT/
      questions.jsonl     the question set asked (the benchmark's released layout)
      predictions.jsonl   one scored instance per line (:class:`InstanceRecord`)
      plots/*.png         the paper's Figs. 4–8 (those the run has data for)
      report.html         the self-contained page
      result.json         the run record (written last: a directory with it is complete)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import IO, Any, TypeVar

from knowsum._util import read_text_file
from knowsum.errors import InputFileError
from knowsum.genebench._schema import Question, dump_question
from knowsum.genebench.record import GenebenchRecord, InstanceRecord
from knowsum.records import REPORT_NAME, Run, default_run_dir, load_record, write_run_dir

__all__ = [
    "PREDICTIONS_NAME",
    "QUESTIONS_NAME",
    "GenebenchRun",
    "default_out",
    "load_result",
    "read_records",
    "write_outputs",
]

QUESTIONS_NAME = "questions.jsonl"
PREDICTIONS_NAME = "predictions.jsonl"

T = TypeVar("T")


class GenebenchRun(Run[GenebenchRecord]):
    """A written genebench run: its record, its directory and its page."""

    __slots__ = ()


def default_out(what: str) -> Path:
    """``genebench-runs/<what>`` under the current directory (a model id: the file stem of a path)."""
    return default_run_dir("genebench", Path(what).stem if "/" in what else what)


def _lines(items: Iterable[T], line: Callable[[T], str]) -> Callable[[IO[Any]], None]:
    """A JSONL file body: ``line(item)`` per item, written as the file is."""

    def write(fh: IO[Any]) -> None:
        for item in items:
            fh.write((line(item) + "\n").encode("utf-8"))

    return write


def write_outputs(
    out_dir: Path,
    result: GenebenchRecord,
    records: Sequence[InstanceRecord],
    questions: Sequence[Question],
    *,
    report: bool = True,
) -> list[Path]:
    """Write the run directory: questions, predictions, plots + ``report.html``, ``result.json`` last.

    Args:
        out_dir: The run directory (created).
        result: The run record.
        records: The scored instances (``predictions.jsonl``).
        questions: The questions asked (``questions.jsonl``).
        report: Also write the plots and the page.
    """

    def pages(out: Path) -> list[Path]:
        from knowsum.genebench.page import write_genebench_report

        return write_genebench_report(out, result, records)

    files = {
        QUESTIONS_NAME: _lines(questions, dump_question),
        PREDICTIONS_NAME: _lines(records, InstanceRecord.to_json),
    }
    return write_run_dir(out_dir, result, files, pages=pages if report else None)


def write_run(
    out_dir: Path,
    result: GenebenchRecord,
    records: Sequence[InstanceRecord],
    questions: Sequence[Question],
) -> GenebenchRun:
    """:func:`write_outputs` with the page, as the :class:`GenebenchRun` the entry points return."""
    write_outputs(out_dir, result, records, questions)
    return GenebenchRun(result, out_dir, out_dir / REPORT_NAME)


def load_result(path: Path) -> GenebenchRecord:
    """Read ``result.json`` (or the run directory holding it); versions 1 to 3 are read.

    Raises:
        InputFileError: missing, unreadable, not a genebench record, a newer schema version, or an
            invalid field.
    """
    return load_record(path, GenebenchRecord)


def read_records(path: Path) -> list[InstanceRecord]:
    """The scored instances of a run (``predictions.jsonl``, or the run directory holding it).

    Raises:
        InputFileError: missing or unreadable file, or a line that is not an instance record.
    """
    file = path / PREDICTIONS_NAME if path.is_dir() else path
    text = read_text_file(file, "genebench predictions.jsonl")
    out: list[InstanceRecord] = []
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            out.append(InstanceRecord.from_dict(json.loads(line)))
        except json.JSONDecodeError as exc:
            problem = f"not JSON ({exc.msg} at column {exc.colno})"
            raise InputFileError(file, f"not a genebench instance record: {problem}", no, line) from None
        except (TypeError, AttributeError):
            problem = "its fields are not those of a scored instance (a predictions.jsonl of `genebench run`)"
            raise InputFileError(file, f"not a genebench instance record: {problem}", no, line) from None
    return out
