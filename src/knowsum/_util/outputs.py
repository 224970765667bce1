"""The one write guard: every file or folder a command writes is checked here before anything else.

:func:`check_output` refuses, in one line naming the output and what it would replace:

- writing over one of the command's own inputs (the response store, a prompts, predictions or
  question file, a run folder it reads), compared by resolved path (symbolic links followed) and, when
  both exist, by device and inode (hard links);
- a run folder (``--out``) that holds one of the inputs;
- replacing an existing file that is not a knowsum output of the same kind: a SQLite database (a
  response store) is never an output, a PNG is only replaced by a PNG, a page by a page, JSON lines
  by JSON lines; a folder given where a file is expected; a symbolic link, a device or a pipe
  (``/dev/stdout``: the output would be renamed over it);
- a file output whose folder does not exist (no folder is created for a single file), and an output
  whose folder this user cannot write — checked before the model is asked anything.

:func:`claim_folder` marks a folder with the identity of the run writing it (``.knowsum-run.json``),
so a run that was stopped before it wrote its record is still known as that run's: another run is
refused there (or, with ``overwrite``, the folder is emptied first).

:func:`sampling_lock` holds an advisory lock beside a response store while a run samples into it:
a second run on the same store is refused at once (it would plan and ask the same pending requests
again) instead of doubling the work.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Literal

from knowsum._util.atomic import atomic_write
from knowsum.errors import OutputError

__all__ = [
    "CLAIM_NAME",
    "OUTPUT_KINDS",
    "SQLITE_MAGIC",
    "OutputKind",
    "check_output",
    "claim_folder",
    "sampling_lock",
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


def _text_head(head: bytes) -> str:
    return head.decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")


def _is_kind(kind: str, head: bytes) -> bool:
    """Whether a file starting with ``head`` (non-empty) is a file of ``kind`` as knowsum writes it."""
    if kind == "png":
        return head.startswith(b"\x89PNG\r\n\x1a\n")
    text = _text_head(head)
    if kind == "html":
        return text[:15].lower().startswith(("<!doctype html", "<html"))
    if kind == "json":
        return text.startswith(("{", "["))
    return text.startswith("{")  # jsonl: one JSON object per line


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
    if head and not _is_kind(kind, head):
        raise OutputError(
            f"{option} {target} exists and is not a {OUTPUT_KINDS[kind]} knowsum writes: it is not "
            "replaced; remove it or give another path"
        )


def _refuse_unwritable(target: Path, kind: str, option: str) -> None:
    if kind != "run" and not target.parent.is_dir():
        raise OutputError(
            f"{option} {target}: its folder {target.parent} does not exist: create it, or give a "
            "path in an existing folder"
        )
    folder = (
        target
        if target.is_dir()
        else next((p for p in (target.parent, *target.parent.parents) if p.exists()), Path("/"))
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
) -> Path:
    """Check that ``path`` may be written as an output of ``kind``; call it before asking the model.

    Args:
        path: The output file or (``kind="run"``) folder.
        kind: What is written there (:data:`OUTPUT_KINDS`).
        inputs: What the command reads, by what it is (``"response store"``) → its paths.
        option: How the output was given (``--out``, ``-o/--output``…), named in the message.

    Returns:
        ``path`` as a :class:`~pathlib.Path`.

    Raises:
        OutputError: the output is one of ``inputs`` (or, a run folder, holds one), is an existing
            file that is not a knowsum output of ``kind`` (a SQLite database never is), is a folder
            where a file is expected (or a file where a folder is), is a file in a missing folder,
            or cannot be written by this user.
    """
    target = Path(path)
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


def claim_folder(out: Path, identity: Mapping[str, str], *, overwrite: bool = False) -> Path:
    """Claim ``out`` for the run ``identity`` (finished or not); call it before asking anything.

    A folder claimed by a run whose identity differs in any key both name (a marker written when that
    run started, or, without one, the model its sub-runs' records name) is refused, unless
    ``overwrite``: then it is emptied first. The marker is then (re)written.

    Raises:
        OutputError: ``out`` holds another run (the message names the first differing setting).
    """
    old = _old_claim(out) if out.is_dir() else None
    diff = next((k for k, v in identity.items() if old and k in old and old[k] != v), None)
    if old is not None and diff is not None:
        if not overwrite:
            raise OutputError(
                f"{out} holds a run of {diff}={old[diff]} ({identity[diff]} asked), finished or "
                "stopped: give another --out, or --overwrite to replace it"
            )
        for entry in out.iterdir():
            shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
    with atomic_write(out / CLAIM_NAME, "w") as fh:
        fh.write(json.dumps(dict(identity), sort_keys=True) + "\n")
    return out


STORE_WAIT_ENV = "KNOWSUM_STORE_WAIT"
"""Seconds a run waits for another run sampling into its store before it is refused (default 0: at
once). Runs that wait go one after the other, and each asks only what the store does not hold yet."""


def _store_wait() -> float:
    raw = os.environ.get(STORE_WAIT_ENV, "0")
    try:
        wait = float(raw)
    except ValueError:
        raise OutputError(f"${STORE_WAIT_ENV}={raw!r}: must be a number of seconds >= 0") from None
    if not wait >= 0 or wait == float("inf"):
        raise OutputError(f"${STORE_WAIT_ENV}={raw!r}: must be a number of seconds >= 0")
    return wait


def _take(fd: int, wait: float) -> bool:
    """Take the lock on ``fd``, polling for up to ``wait`` seconds; whether it was taken."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))


@contextlib.contextmanager
def sampling_lock(store: Path) -> Iterator[None]:
    """Hold ``STORE.lock`` (an advisory ``flock``, released when the run ends or dies) while a run
    samples into ``store``; the file keeps the holder's process id for the message. With
    ``$KNOWSUM_STORE_WAIT`` seconds, a run waits that long for the holder to finish first.

    Raises:
        OutputError: another process holds it (another run is sampling into this store).
    """
    lock = store.with_name(store.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    wait = _store_wait()
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _take(fd, wait):
            holder = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip() or "?"
            raise OutputError(
                f"another knowsum run (process {holder}) is sampling into the store {store}: two runs on "
                "one store would ask the same requests twice; wait for it to finish (then rerun: what it "
                f"stored is not asked again; ${STORE_WAIT_ENV}=SECONDS waits for it), or give this run "
                "another --store"
            )
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
        yield
    finally:
        os.close(fd)  # releases the lock
