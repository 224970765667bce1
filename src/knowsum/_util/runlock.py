"""One writer at a time per run folder: the writing lock a run takes when it claims its folder.

A run claims its folder before anything is asked (:func:`knowsum.records.claim_run_dir` for a run
directory, :func:`knowsum._util.claim_folder` for a folder of runs) and writes its record at the end;
a second run started meanwhile into the same folder would pass the same checks and the two would
write over each other. :func:`hold_folder`, called by both claims, takes an exclusive, non-blocking
``flock`` for the folder, so that second run is refused at once, naming the process writing it.

- The lock file is not in the folder, nor beside it: a claim creates nothing where the run goes
  (a run that fails before writing leaves no folder), and no folder holds a file that is not the
  run's. It is ``<temporary folder>/knowsum-<uid>/run-locks/<hash of the folder's resolved path>.lock``
  (symbolic links followed, so two spellings of one folder share it, also before the folder exists),
  and holds the process id, the start time and the folder, for the message.
- A run directory's lock is held until its record is written (:func:`release_folder`, called by
  :func:`knowsum.records.write_run_dir`) or the process ends, and released when its claim is refused;
  a folder of runs' until the process ends (its command writes it to the last, and may go on to
  replace it when its claim is refused). The system releases a ``flock`` when its process dies,
  so a run killed meanwhile never blocks the folder (the file it leaves is taken over by the next
  run); a process ending normally removes the lock files it holds.
- Within one process the lock belongs to a thread: the thread holding it may claim the folder again
  (a rerun of a run that failed or was stopped before its record), and so may any thread once the
  holder has ended; another live thread is refused, as another process is.

Each user has their own lock folder: runs of two users writing into one shared folder are not kept
apart (nor runs on two machines sharing a network disk).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import hashlib
import json
import os
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knowsum.errors import InputError, OutputError

__all__ = ["claiming", "hold_folder", "lock_path", "release_folder"]


@dataclass(frozen=True, slots=True)
class _Held:
    fd: int
    path: Path
    pid: int
    thread: threading.Thread


_HELD: dict[str, _Held] = {}
"""This process's held folder locks, by resolved folder path."""
_GUARD = threading.Lock()


def _key(folder: Path) -> str:
    return str(Path(folder).resolve())


def _lock_dir() -> Path:
    """This user's lock folder (created private; refused when another user owns it)."""
    where = Path(tempfile.gettempdir()) / f"knowsum-{os.getuid()}" / "run-locks"
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        owners = [os.lstat(part) for part in (where.parent, where)]
    except OSError as exc:
        raise OutputError(
            f"{where}: knowsum's folder of run locks cannot be made ({exc.strerror}): set TMPDIR to a "
            "writable folder"
        ) from None
    for part, st in zip((where.parent, where), owners, strict=True):
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
            raise OutputError(
                f"{part}: knowsum's folder of run locks is not a folder of this user's: remove it, "
                "or set TMPDIR to a folder of your own"
            )
    return where


def lock_path(folder: Path) -> Path:
    """The lock file of ``folder`` (whether or not it exists)."""
    return _lock_dir() / (hashlib.sha256(_key(folder).encode()).hexdigest()[:32] + ".lock")


def _holder(fd: int) -> str:
    """``pid N, started T`` from the lock file of ``fd`` (written by its holder)."""
    try:
        data = json.loads(os.pread(fd, 4096, 0).decode("utf-8"))
        return f"pid {int(data['pid'])}, started {data['started']}"
    except (OSError, ValueError, KeyError, TypeError):
        return "pid ?, started at an unknown time"


def _refusal(folder: Path, holder: str) -> InputError:
    """The refusal of a folder being written: an :class:`~knowsum.errors.InputError`, not an
    ``OutputError``, which a caller may answer by replacing what is there (``--overwrite``): a folder
    being written is never replaced, whatever the options."""
    return InputError(
        f"{folder} is being written by another knowsum run ({holder}): wait for it or give another --out"
    )


def _take(folder: Path, key: str) -> int:
    """Open the lock file of ``folder`` and take its ``flock``; refuse when another holds it."""
    path = lock_path(folder)
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise _refusal(folder, holder) from None
        try:  # the file may have been removed by its holder's release in between: take the new one
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    started = time.strftime("%Y-%m-%d %H:%M:%S")
    body = json.dumps({"pid": os.getpid(), "started": started, "folder": key}) + "\n"
    os.ftruncate(fd, 0)
    os.pwrite(fd, body.encode("utf-8"), 0)
    return fd


def _mine(held: _Held) -> bool:
    """Whether this thread may take over ``held``: it holds it, or its holder has ended."""
    return held.thread is threading.current_thread() or not held.thread.is_alive()


def hold_folder(folder: Path) -> bool:
    """Take the writing lock of ``folder`` for this thread, until :func:`release_folder` or the end of
    the process; ``True`` when it was taken now, ``False`` when this thread (or an ended one of this
    process) held it already.

    Raises:
        InputError: another process, or another live thread of this one, holds it ("… is being
            written by another knowsum run (pid N, started T): wait for it or give another --out").
        OutputError: this user's folder of run locks cannot be made, or is another user's.
    """
    key, me = _key(folder), threading.current_thread()
    with _GUARD:
        held = _HELD.get(key)
        if held is not None and held.pid == os.getpid():
            if not _mine(held):
                raise _refusal(folder, _holder(held.fd) + ", another thread of this process")
            _HELD[key] = _Held(held.fd, held.path, held.pid, me)
            return False
        _HELD[key] = _Held(_take(folder, key), lock_path(folder), os.getpid(), me)
        return True


def release_folder(folder: Path) -> None:
    """Release the writing lock of ``folder`` when this thread (or an ended one) holds it; else nothing."""
    key = _key(folder)
    with _GUARD:
        held = _HELD.get(key)
        if held is None or held.pid != os.getpid() or not _mine(held):
            return
        del _HELD[key]
        with contextlib.suppress(OSError):  # removed while still locked: the next run makes its own
            if os.stat(held.path).st_ino == os.fstat(held.fd).st_ino:
                held.path.unlink()
        os.close(held.fd)


@contextlib.contextmanager
def claiming(folder: Path) -> Iterator[None]:
    """Hold the writing lock of ``folder`` (:func:`hold_folder`) while a claim checks it, and after it
    when the claim succeeds; a refused claim releases it again.

    Raises:
        InputError: another run is writing ``folder`` (:func:`hold_folder`).
    """
    hold_folder(folder)
    try:
        yield
    except BaseException:
        release_folder(folder)
        raise


def _release_all() -> None:
    """At the end of the process, remove the lock files it still holds (the system frees the locks)."""
    with _GUARD:
        for held in _HELD.values():
            with contextlib.suppress(OSError):
                if os.stat(held.path).st_ino == os.fstat(held.fd).st_ino:
                    held.path.unlink()
        _HELD.clear()


def _forget_after_fork() -> None:
    """A forked child holds none of its parent's locks (its copies of the files are closed)."""
    global _GUARD
    _GUARD = threading.Lock()
    for held in _HELD.values():
        with contextlib.suppress(OSError):
            os.close(held.fd)
    _HELD.clear()


atexit.register(_release_all)
os.register_at_fork(after_in_child=_forget_after_fork)
