"""Write a run directory the one way every instrument does: data files, pages, ``result.json`` last.

Layout of every run directory::

    OUT/
      result.json        the run record (written last: its presence marks a complete run)
      *.jsonl, *.npy     the instrument's per-item data (items, predictions, questions…)
      plots/*.png        the figures
      report.html        the self-contained page

Each file is written under a temporary name and renamed into place (:func:`knowsum._util.atomic_write`),
so a run killed while writing leaves the old file or none, never half of one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from knowsum._util import atomic_write, slug
from knowsum.records._base import Record

__all__ = ["PLOTS_DIR", "REPORT_NAME", "RESULT_NAME", "FileBody", "Run", "default_run_dir", "write_run_dir"]

R = TypeVar("R", bound=Record)


@dataclass(frozen=True, slots=True)
class Run(Generic[R]):
    """What an instrument's entry point wrote: the record, the run directory and its page.

    Each instrument names its own (``class CensusRun(Run[CensusResult])``), so a caller sees which
    record it holds.
    """

    result: R
    """The run record (also in ``out_dir/result.json``)."""
    out_dir: Path
    """The run directory."""
    report: Path
    """Its ``report.html``."""


def default_run_dir(instrument: str, what: str, model_id: str = "") -> Path:
    """Where a run goes without ``--out``: ``<instrument>-runs/<what>-<model>`` in the current folder.

    ``what`` is the task, knowledge base or ``score-<file>``; a model given as a file path is named by
    its file stem; without a model the folder is ``<instrument>-runs/<what>``.
    """
    model = Path(model_id).stem if "/" in model_id else model_id
    name = f"{slug(what)}-{slug(model)}" if model else slug(what)
    return Path(f"{instrument}-runs") / name


RESULT_NAME = "result.json"
REPORT_NAME = "report.html"
PLOTS_DIR = "plots"

FileBody = bytes | str | Callable[[IO[Any]], None]
"""A file's content: bytes, text, or a function that writes into the open (binary) file."""


def _write(path: Path, body: FileBody) -> None:
    if isinstance(body, str):
        with atomic_write(path, "w") as fh:
            fh.write(body)
    elif isinstance(body, bytes):
        with atomic_write(path, "wb") as fh:
            fh.write(body)
    else:
        with atomic_write(path, "wb") as fh:
            body(fh)


def write_run_dir(
    out: Path,
    record: Record,
    files: Mapping[str, FileBody] | None = None,
    *,
    pages: Callable[[Path], Sequence[Path]] | None = None,
    fresh: bool = True,
) -> list[Path]:
    """Write ``files``, then the pages, then ``result.json`` into ``out`` (created); return the paths.

    Args:
        out: The run directory.
        record: The run record, written as ``result.json`` (last).
        files: Relative name → content, written first (sub-folders are created).
        pages: Writes the figures and ``report.html`` into the directory and returns their paths.
        fresh: The run's data is being (re)written: ``result.json`` is removed before anything else,
            so an interrupted write never leaves a record beside data it does not describe. False
            for an update of a complete run (a study added to it): ``result.json`` is only replaced.
    """
    out.mkdir(parents=True, exist_ok=True)
    result = out / RESULT_NAME
    if fresh:
        result.unlink(missing_ok=True)
    written: list[Path] = []
    for name, body in (files or {}).items():
        path = out / name
        _write(path, body)
        written.append(path)
    if pages is not None:
        written.extend(pages(out))
    _write(result, record.model_dump_json(indent=2) + "\n")
    written.append(result)
    return written
