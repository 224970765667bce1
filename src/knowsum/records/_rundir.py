"""Write a run directory the one way every instrument does: data files, pages, ``result.json`` last.

Layout of every run directory::

    OUT/
      result.json        the run record (written last: its presence marks a complete run)
      *.jsonl, *.npy     the instrument's per-item data (items, predictions, questions…)
      plots/*.png        the figures
      report.html        the self-contained page

Each file is written under a temporary name and renamed into place (:func:`knowsum._util.atomic_write`),
so a run killed while writing leaves the old file or none, never half of one.

A run directory holds one run. Before anything is asked of a model, the entry point calls
:func:`claim_run_dir`: the directory must be absent, empty, or hold a run with the same identity
(the same instrument, what was probed, model and distinguishing settings: ``Record.identity``);
anything else is refused with one line saying what is there, unless ``overwrite``, which empties it
first (so no plot or prediction file of the old run is left beside the new one). The claim holds the
folder's writing lock until the record is written: a second run into it meanwhile is refused at once.

A study of the run's record written inside its folder (``backtest/``: a back-test of the run)
is part of the run: ``overwrite`` may empty a folder holding one, and a fresh write of the record
(the run rerun or re-estimated) removes it, since it describes the record being replaced.
"""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Generic, TypeVar, overload

from pydantic import BaseModel
from typing_extensions import deprecated

from knowsum._util import CLAIM_NAME, atomic_write, check_output, runlock, slug
from knowsum.errors import InputError, KnowsumNote
from knowsum.records._base import Record, record_kinds

__all__ = [
    "PLOTS_DIR",
    "REPORT_NAME",
    "RESULT_NAME",
    "FileBody",
    "Run",
    "claim_run_dir",
    "default_run_dir",
    "holds_only",
    "is_run_like",
    "write_run_dir",
]

R = TypeVar("R", bound=BaseModel)


@dataclass(frozen=True, slots=True, init=False)
class Run(Generic[R]):
    """What an instrument's entry point wrote: the record, the run directory and its page.

    Each instrument names its own (``class CapitalsRun(Run[CapitalsRecord])``), so a caller sees which
    record it holds; a study written in its own folder beside a run is one too (``BacktestRun``).
    """

    record: R
    """The run record (also in ``out_dir/result.json``)."""
    out_dir: Path
    """The run directory."""
    report: Path
    """Its ``report.html``."""

    @overload
    def __init__(self, record: R, out_dir: Path, report: Path) -> None: ...
    @overload
    @deprecated("Run(result=…) is Run(record=…) now: the run record has one name")
    def __init__(self, *, result: R, out_dir: Path, report: Path) -> None: ...
    def __init__(
        self, record: R | None = None, out_dir: Path | None = None, report: Path | None = None, **old: R
    ) -> None:
        """``Run(record, out_dir, report)``; the old keyword ``result=`` for ``record`` still works,
        with a ``DeprecationWarning``.

        Raises:
            TypeError: a missing or unknown argument, as a plain dataclass would.
        """
        if set(old) - {"result"}:
            raise TypeError(f"Run() got an unexpected keyword argument {next(iter(set(old) - {'result'}))!r}")
        if "result" in old:
            warnings.warn("Run(result=…) is Run(record=…) now", DeprecationWarning, stacklevel=2)
            record = old["result"] if record is None else record
        if record is None or out_dir is None or report is None:
            raise TypeError("Run() needs the record, the run directory and its report.html")
        for name, value in (("record", record), ("out_dir", out_dir), ("report", report)):
            object.__setattr__(self, name, value)

    @property
    @deprecated("Run.result is Run.record now: the run record has one name")
    def result(self) -> R:
        """The run record under its old name (:attr:`record`), with a ``DeprecationWarning``."""
        return self.record


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
        # until result.json is in place the folder says whose run it is, so that a rerun of the same
        # run continues into it and another run is refused (:func:`claim_run_dir`)
        _write(out / WRITING_NAME, json.dumps(_writing(record), sort_keys=True) + "\n")
        _drop_studies(out)
    written: list[Path] = []
    for name, body in (files or {}).items():
        path = out / name
        _write(path, body)
        written.append(path)
    if pages is not None:
        written.extend(pages(out))
    _write(result, record.model_dump_json(indent=2) + "\n")
    written.append(result)
    (out / WRITING_NAME).unlink(missing_ok=True)
    runlock.release_folder(out)  # the run is written: the claim's writing lock is released
    return written


WRITING_NAME = ".knowsum-writing.json"
"""The marker of a run directory being written: its instrument, model and identity, from before its
first file until ``result.json`` is in place (a run killed meanwhile leaves it behind)."""


def _writing(record: Record) -> dict[str, Any]:
    """What :data:`WRITING_NAME` holds: the fields :func:`_difference` compares."""
    return {"kind": record.kind, "model": record.model, "identity": record.identity}


def _unfinished(out: Path) -> dict[str, Any] | None:
    """The marker of the run a killed write left in ``out`` (``None``: none, or unreadable)."""
    try:
        data = json.loads((out / WRITING_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


_FOREIGN = "files that are not a knowsum run; --overwrite only replaces a run directory"
_RUN_SUFFIXES = (".json", ".jsonl", ".html", ".png", ".npy", ".csv")
"""What a run directory holds (besides its sub-folders): a folder of these only may be emptied by
``overwrite`` (also when its ``result.json`` is gone: a write that was interrupted)."""

_STUDY_DIRS = ("backtest",)
"""The sub-folders holding a study of the run's record (``backtest/``: a back-test of it): a fresh
write of the record removes them (:func:`write_run_dir`)."""

_RUN_SUBDIRS = {
    PLOTS_DIR: (".png",),
    "backtest": (".json", ".html", ".png"),
    f"backtest/{PLOTS_DIR}": (".png",),
}
"""The sub-folders a run writes (its figures, a back-test of it and its figure), by path in the run
directory, and what they hold."""


def _drop_studies(out: Path) -> None:
    """Remove the studies of the record in ``out`` (:data:`_STUDY_DIRS`) that hold only what a study
    writes (a folder holding anything else is left as it is: knowsum never deletes what it did not
    write), each with a :class:`~knowsum.errors.KnowsumNote` naming it (never silently: a back-test
    can be hours of work)."""
    for name in _STUDY_DIRS:
        study = out / name
        if study.is_dir() and not study.is_symlink() and _run_like(study, name):
            shutil.rmtree(study)
            warnings.warn(
                KnowsumNote(
                    f"removed {study}: it studied the run this write replaces; "
                    "run it again to study the new run"
                ),
                stacklevel=2,
            )


def _old_record(result: Path, kind: str) -> dict[str, Any] | None:
    """The record in ``result`` when it is a finished run: of ``kind`` (the claiming instrument's) or
    of any record class defined (:func:`record_kinds`); ``None`` otherwise."""
    try:
        data = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict) or (data.get("kind") != kind and data.get("kind") not in record_kinds()):
        return None
    return data


def _own_file(entry: Path, suffixes: Sequence[str]) -> bool:
    """Whether ``entry`` is a file a run writes: one of ``suffixes``, its claim, or a temporary file
    of an interrupted write (``.NAME.XXXX.tmp``)."""
    if entry.is_symlink() or not entry.is_file():
        return False
    if entry.name.startswith("."):
        return entry.name in (CLAIM_NAME, WRITING_NAME) or entry.name.endswith(".tmp")
    return entry.suffix in suffixes


def _run_like(out: Path, where: str = "") -> bool:
    """Whether every entry of ``out`` (and of its sub-folders) is something a knowsum run writes;
    ``where``: the path of ``out`` in its run directory (``""``: the run directory itself)."""
    suffixes = _RUN_SUBDIRS[where] if where else _RUN_SUFFIXES
    for entry in out.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            inner = f"{where}/{entry.name}" if where else entry.name
            if inner not in _RUN_SUBDIRS or not _run_like(entry, inner):
                return False
        elif not _own_file(entry, suffixes):
            return False
    return True


def is_run_like(out: Path) -> bool:
    """Whether ``out`` holds only what a knowsum run writes (its data, pages, figures, a back-test):
    the only folders ``--overwrite`` may empty."""
    return out.is_dir() and not out.is_symlink() and _run_like(out)


def holds_only(folder: Path, names: Collection[str]) -> bool:
    """Whether every file under ``folder`` is one of ``names`` (paths relative to it, ``plots/x.png``)
    or a temporary file of an interrupted write: a folder a study may be (re)written into, its own
    leftovers included (a figure written before a killed command wrote its record)."""
    folders = {str(Path(n).parent) for n in names}
    for entry in folder.rglob("*"):
        rel = entry.relative_to(folder).as_posix()
        if entry.is_dir() and not entry.is_symlink():
            if rel not in folders:
                return False
        elif (
            not (rel in names or (entry.name.startswith(".") and entry.name.endswith(".tmp")))
            or entry.is_symlink()
        ):
            return False
    return True


def _what(data: Mapping[str, Any]) -> str:
    ident = data.get("identity")
    if isinstance(ident, dict) and ident.get("what"):
        return str(ident["what"])
    for key in ("task", "kb", "questions_file"):
        if isinstance(data.get(key), str) and data[key]:
            return str(data[key])
    return "?"


def _difference(
    data: Mapping[str, Any], kind: str, identity: Mapping[str, str]
) -> tuple[str, str, str] | None:
    """The first setting where the old record differs from the asked run: (setting, old, new)."""
    if data.get("kind") != kind:
        return "instrument", str(data.get("kind")), kind
    old = data.get("identity")
    if not isinstance(old, dict):  # written before identities: kind and model only
        if str(data.get("model", "")) != identity.get("model", ""):
            return "model", str(data.get("model", "")), identity.get("model", "")
        return None
    for key, new in identity.items():
        if key in old and str(old[key]) != new:
            return key, str(old[key]), new
    return None


def _empty(out: Path) -> None:
    for entry in out.iterdir():
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()


def _refuse_foreign(out: Path) -> None:
    if not _run_like(out):
        runs = (out / CLAIM_NAME).is_file() and not (out / RESULT_NAME).exists()  # a profile's, a run's
        what = "a folder of runs (a profile's or `knowsum run`'s), not one run" if runs else _FOREIGN
        raise InputError(f"{out}: holds {what}: give another --out")


def claim_run_dir(out: Path, kind: str, identity: Mapping[str, str], *, overwrite: bool = False) -> Path:
    """Make sure a run of ``kind`` with ``identity`` may be written into ``out``; call it before sampling.

    ``out`` may be absent, empty, or hold a run of the same instrument and identity (a rerun: its
    files are replaced as the new run is written). Otherwise the run is refused, unless
    ``overwrite``: then the folder is emptied now, so no file of the old run is left. A record
    written before identities were stored is compared by instrument and model only. Nothing is
    created here (the folder is made when the run is written); its writing lock (kept outside it:
    :mod:`knowsum._util.runlock`) is held until the record is written, or the process ends.

    Args:
        out: The run directory.
        kind: The instrument's registry name.
        identity: The asked run's identity (``Record.identity_of``: ``what``, ``model``, settings).
        overwrite: Empty a folder holding another run (or an unfinished one) instead of refusing.

    Returns:
        ``out``.

    Raises:
        InputError: ``out`` is being written by another run now, is a file, cannot be written by this
            user (``OutputError``), holds another run (the message names the first differing
            setting, its value there and the one asked), holds files but no finished run, or holds
            files a run does not write (a store, notes, other folders: these are never deleted, and
            such a folder is refused even with ``overwrite``).
    """
    if out.exists() and not out.is_dir():
        raise InputError(f"{out}: is a file, not a run directory: give another --out")
    check_output(out, "run", option="run folder")  # writable, also when it is the default folder
    with runlock.claiming(out):
        if not out.exists() or not any(out.iterdir()):
            return out
        data = _old_record(out / RESULT_NAME, kind)
        if data is None:
            _refuse_foreign(out)
            if overwrite:
                _empty(out)
                return out
            data = _unfinished(out)
            if data is None:
                raise InputError(
                    f"{out} holds an unfinished run (no {RESULT_NAME}) that does not say whose it is: "
                    "give another --out or --overwrite to replace it"
                )
            diff = _difference(data, kind, identity)
            if diff is None:
                return out  # the same run, stopped while writing: the rerun writes it again
            raise InputError(_holds(out, data, diff, "unfinished "))
        diff = _difference(data, kind, identity)
        if diff is None:
            return out
        if overwrite:
            _refuse_foreign(out)
            _empty(out)
            return out
        raise InputError(_holds(out, data, diff))


def _holds(out: Path, data: Mapping[str, Any], diff: tuple[str, str, str], state: str = "") -> str:
    """The refusal of a run folder holding another run: what it holds and the first difference."""
    setting, old, new = diff
    shown = f"{old or '(not given)'} here, {new or '(not given)'} asked"
    return (
        f"{out} holds a{'n' if state else ''} {state}{data.get('kind')} run of {_what(data)} "
        f"({shown if setting == 'what' else f'{setting}={shown}'}): "
        "give another --out or --overwrite to replace it"
    )
