"""The one write guard: every file or folder a command writes is checked here before anything else.

:func:`check_output` refuses, in one line naming the output and what it would replace:

- writing over one of the command's own inputs (the response store, a prompts, predictions or
  question file, a run folder it reads), compared by resolved path (symbolic links followed) and, when
  both exist, by device and inode (hard links);
- a run folder (``--out``) that holds one of the inputs;
- replacing an existing file that is not a knowsum output of the same kind: a SQLite database (a
  response store) is never an output, a PNG is only replaced by a PNG, a page by a page, JSON lines
  by JSON lines knowsum wrote (:func:`~knowsum._util.ownjsonl.knowsum_jsonl`: never a batch
  results file or anyone else's JSON lines); a folder given where a file is expected; a symbolic
  link, a device or a pipe (``/dev/stdout``: the output would be renamed over it);
- a file output whose folder does not exist (no folder is created for a single file), and an output
  whose folder this user cannot write — checked before the model is asked anything.

:func:`claim_folder` marks a folder with the identity of the run writing it (``.knowsum-run.json``),
so a run that was stopped before it wrote its record is still known as that run's: another run is
refused there (or, with ``overwrite``, the folder is emptied first).

:func:`run_folders_above` names the run folders (a folder holding ``result.json`` or
``.knowsum-run.json``) a path lies in: an output given ``owned`` runs is refused inside any other
(a run folder is written only by the command writing that run).

While a run writes a folder it holds the folder's writing lock (:mod:`knowsum._util.runlock`, taken by
:func:`claim_folder` and :func:`knowsum.records.claim_run_dir`): a second run into it is refused at once.
The sampling lock of a response store is :mod:`knowsum._util.storelock`.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Literal

from knowsum._util.atomic import atomic_write
from knowsum._util.ownjsonl import knowsum_jsonl
from knowsum._util.runlock import hold_folder
from knowsum.errors import OutputError

__all__ = [
    "CLAIM_NAME",
    "OUTPUT_KINDS",
    "RUN_MARKERS",
    "SQLITE_MAGIC",
    "OutputKind",
    "check_output",
    "claim_folder",
    "enclosing_run",
    "run_folders_above",
]

OutputKind = Literal["run", "jsonl", "json", "html", "png"]
"""What an output is: a run folder, or a file of one of the formats knowsum writes."""

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database (a response store, a knowledge base)."""

OUTPUT_KINDS: dict[str, str] = {
    "run": "run folder",
    "jsonl": "JSON-lines file",
    "json": "JSON file",
    "html": "HTML page",
    "png": "PNG image",
}
"""Each output kind and how messages name it."""

CLAIM_NAME = ".knowsum-run.json"
"""The file in a run folder that names the run writing it (written before anything is asked)."""

RUN_MARKERS = ("result.json", CLAIM_NAME)
"""A folder holding one of these is a knowsum run folder (a record, or a run's claim)."""


def run_folders_above(path: str | os.PathLike[str]) -> list[Path]:
    """The run folders ``path`` lies inside (its parents holding one of :data:`RUN_MARKERS`), nearest
    first, by resolved path; ``path`` itself is not one of them."""
    parents = Path(path).resolve().parents
    return [p for p in parents if any((p / marker).is_file() for marker in RUN_MARKERS)]


def enclosing_run(path: str | os.PathLike[str]) -> Path | None:
    """The run folder ``path`` is (when it is one) or lies inside (the nearest); ``None`` if neither."""
    here = Path(path).resolve()
    if here.is_dir() and any((here / marker).is_file() for marker in RUN_MARKERS):
        return here
    return next(iter(run_folders_above(here)), None)


def _refuse_other_run(target: Path, option: str, owned: Iterable[Path]) -> None:
    """Refuse ``target`` inside a run folder that is not one of the ``owned`` runs being written."""
    mine = [p for p in owned if p.exists()]
    for run in run_folders_above(target):
        if not any(_same(run, p) for p in mine):
            raise OutputError(
                f"{option} {target} is inside the run folder {run}: a run's folder is written only by "
                "the command writing that run; give a path outside it"
            )


def _text_head(head: bytes) -> str:
    return head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


def _is_kind(kind: str, head: bytes, path: Path) -> bool:
    """Whether ``path``, starting with ``head`` (non-empty), is a file of ``kind`` as knowsum writes it.

    A JSON-lines file is knowsum's only when its first line is one of knowsum's own formats
    (:func:`~knowsum._util.ownjsonl.knowsum_jsonl`): any other JSON lines (a batch results file, a
    user's data) are not replaced.
    """
    if kind == "png":
        return head.startswith(b"\x89PNG\r\n\x1a\n")
    text = _text_head(head)
    if kind == "html":
        return text[:15].lower().startswith(("<!doctype html", "<html"))
    if kind == "json":
        return text.startswith(("{", "["))
    return text.startswith("{") and knowsum_jsonl(path)


def _same(a: Path, b: Path) -> bool:
    """Whether ``a`` and ``b`` are one file or folder: same resolved path, or same device and inode."""
    if a.resolve() == b.resolve():
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _within(path: Path, folder: Path) -> bool:
    return path.resolve().is_relative_to(folder.resolve())


def _writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(512)
    except OSError:
        return b""


def _refuse_input(target: Path, kind: str, option: str, inputs: Iterable[tuple[str, Path]]) -> None:
    for label, source in inputs:
        if _same(target, source):
            raise OutputError(
                f"{option} {target} is this command's {label} ({source}): knowsum never writes an "
                "output over an input; give another path"
            )
        if kind == "run" and _within(source, target):
            raise OutputError(
                f"{option} {target} holds this command's {label} ({source}): give a run folder of its own"
            )
        if kind != "run" and source.is_dir() and target.exists() and _within(target, source):
            raise OutputError(
                f"{option} {target} is part of this command's {label} ({source}): give another path"
            )


def _refuse_existing(target: Path, kind: str, option: str) -> None:
    if kind == "run":
        if not target.is_dir():
            raise OutputError(f"{option} {target} is a file, not a folder: give a folder path")
        return
    if target.is_dir():
        raise OutputError(
            f"{option} {target} is a folder: give a file path (e.g. {target / ('out.' + kind)})"
        )
    if not target.is_file():  # a device or a pipe: an output is written beside and renamed over it
        raise OutputError(
            f"{option} {target} is not a regular file (a device or a pipe): knowsum writes a file and "
            "renames it into place, which would replace it; give a file path"
        )
    head = _head(target)
    if head.startswith(SQLITE_MAGIC):
        raise OutputError(
            f"{option} {target} is a SQLite database (a response store?): knowsum never writes an "
            "output over one; give another path"
        )
    if head and not _is_kind(kind, head, target):
        raise OutputError(
            f"{option} {target} exists and is not a {OUTPUT_KINDS[kind]} knowsum writes: it is not "
            "replaced; remove it or give another path"
        )


def _refuse_unwritable(target: Path, kind: str, option: str) -> None:
    folder = (
        target
        if target.is_dir()
        else next((p for p in (target.parent, *target.parent.parents) if p.exists()), Path("/"))
    )
    if folder != target and not folder.is_dir():  # a file where a folder must be
        raise OutputError(
            f"{option} {target}: {folder} is a file, not a folder, so nothing can be written below it: "
            "give another path"
        )
    if kind != "run" and not target.parent.is_dir():
        raise OutputError(
            f"{option} {target}: its folder {target.parent} does not exist: create it, or give a "
            "path in an existing folder"
        )
    if not _writable(folder) or (target.is_file() and not os.access(target, os.W_OK)):
        raise OutputError(
            f"{option} {target}: {folder} cannot be written by this user (read-only disk or folder): "
            "give a path on a writable disk"
        )


def check_output(
    path: str | os.PathLike[str],
    kind: OutputKind,
    inputs: Mapping[str, Iterable[Path]] | None = None,
    *,
    option: str = "output",
    owned: Iterable[Path] | None = None,
) -> Path:
    """Check that ``path`` may be written as an output of ``kind``; call it before asking the model.

    Args:
        path: The output file or (``kind="run"``) folder.
        kind: What is written there (:data:`OUTPUT_KINDS`).
        inputs: What the command reads, by what it is (``"response store"``) → its paths.
        option: How the output was given (``--out``, ``-o/--output``…), named in the message.
        owned: The run folders this command writes (its own ``--out``, the run a study is added
            to): the output may not lie inside any other run folder. ``None``: not checked (a run
            writing its own sub-runs).

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OutputError: the output is one of ``inputs`` (or, a run folder, holds one), is an existing
            file that is not a knowsum output of ``kind`` (a SQLite database never is), is a folder
            where a file is expected (or a file where a folder is), is a file in a missing folder,
            or cannot be written by this user; or lies inside a run folder not ``owned``.
    """
    target = Path(path)
    if owned is not None:
        _refuse_other_run(target, option, owned)
    pairs = [(label, Path(p)) for label, paths in (inputs or {}).items() for p in paths]
    _refuse_input(target, kind, option, pairs)
    if target.is_symlink() and kind != "run":
        raise OutputError(
            f"{option} {target} is a symbolic link: the output would be renamed over the link, not "
            f"written into {target.resolve()}; give a file path"
        )
    if target.exists():
        _refuse_existing(target, kind, option)
    _refuse_unwritable(target, kind, option)
    return target


def _old_claim(out: Path) -> dict[str, str] | None:
    """The identity of the run that claimed ``out``: its marker, else the model its finished
    sub-runs name (a folder written before markers existed); ``None`` when nothing says."""
    try:
        data = json.loads((out / CLAIM_NAME).read_text(encoding="utf-8"))
        if isinstance(data, dict):
            return {str(k): str(v) for k, v in data.items()}
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        pass
    for result in sorted(out.glob("*/result.json")):
        try:
            model = json.loads(result.read_text(encoding="utf-8")).get("model")
        except (OSError, UnicodeDecodeError, json.JSONDecodeError, AttributeError):
            continue
        if isinstance(model, str):
            return {"model": model}
    return None


def claim_folder(
    out: Path, identity: Mapping[str, str], *, owns: Callable[[Path], bool], overwrite: bool = False
) -> Path:
    """Claim ``out`` for the run ``identity`` (finished or not); call it before asking anything.

    Every entry of ``out`` but the marker, the temporary files of an interrupted write and hidden
    entries (``.DS_Store``, ``.git``: left alone) must be one the claimant writes (``owns``, asked of
    each top-level entry): a folder holding anything else is refused, with or without ``overwrite``,
    since ``--overwrite`` replaces only what knowsum wrote.
    A folder claimed by a run whose identity differs in any key both name (a marker written when that
    run started, or, without one, the model its sub-runs' records name) is refused, unless
    ``overwrite``: then it is emptied first. The marker is then (re)written.

    The folder's writing lock (:mod:`knowsum._util.runlock`) is taken first and held until the
    process ends, also when the claim is refused (a command may go on to replace what is there):
    while one run writes ``out``, another is refused at once.

    Raises:
        InputError: another run is writing ``out`` now (never replaced, even with ``overwrite``).
        OutputError: ``out`` holds files that are not the claimant's, or another run (the message
            names the first such file, or the first differing setting).
    """
    hold_folder(out)
    _claim(out, identity, owns=owns, overwrite=overwrite)
    return out


def _claim(out: Path, identity: Mapping[str, str], *, owns: Callable[[Path], bool], overwrite: bool) -> None:
    """:func:`claim_folder`'s checks, emptying and marker, under the folder's writing lock."""
    if out.is_dir():
        foreign = next((e for e in sorted(out.iterdir()) if not (_ours(e) or _hidden(e) or owns(e))), None)
        if foreign is not None and (out / "result.json").is_file():  # knowsum wrote it: one run, not many
            raise OutputError(
                f"{out}: holds one run (its result.json), not a folder of runs: give another --out "
                "(--overwrite never replaces a run with a folder of runs)"
            )
        if foreign is not None:
            raise OutputError(
                f"{out}: holds {foreign.name}, which knowsum did not write here: give another --out "
                "(--overwrite replaces only what knowsum wrote)"
            )
    old = _old_claim(out) if out.is_dir() else None
    diff = next((k for k, v in identity.items() if old and k in old and old[k] != v), None)
    if old is not None and diff is not None:
        if not overwrite:
            raise OutputError(
                f"{out} holds a run of {diff}={old[diff]} ({identity[diff]} asked), finished or "
                "stopped: give another --out, or --overwrite to replace it"
            )
        for entry in out.iterdir():
            if _hidden(entry):
                continue  # a hidden file of the user's or the system's (.DS_Store, .git): kept
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    with atomic_write(out / CLAIM_NAME, "w") as fh:
        fh.write(json.dumps(dict(identity), sort_keys=True) + "\n")


def _hidden(entry: Path) -> bool:
    """A hidden entry knowsum did not write (``.DS_Store``, ``.git``…): neither refused nor deleted."""
    return entry.name.startswith(".") and not _ours(entry)


def _ours(entry: Path) -> bool:
    """The marker, or a temporary file of an interrupted :func:`atomic_write`."""
    temporary = entry.name.startswith(".") and entry.name.endswith(".tmp")
    return entry.is_file() and (entry.name == CLAIM_NAME or temporary)
