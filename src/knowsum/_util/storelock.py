"""One sampling lock per database file, whatever name the store is given by.

:func:`sampling_lock` holds an advisory lock while a run samples into a response store: a second run
on the same store is refused at once (it would plan and ask the same pending requests again) instead
of doubling the work. "The same store" is the same database file, not the same spelling:

- the lock file ``STORE.lock`` sits beside the store's **resolved** path (symbolic links followed),
  so a link to the store and the store share it, also before the store exists;
- when the store exists, the database file itself is locked too (``flock`` on its inode), so a hard
  link — another name of the same inode, whose ``-wal`` file SQLite would keep apart — is refused as
  well (SQLite's own locks are POSIX record locks, which ``flock`` neither takes nor releases).

Both are released when the run ends or its process dies. See "How To Corrupt An SQLite Database
File", §2.5 (multiple links to the same file), https://sqlite.org/howtocorrupt.html.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from knowsum._util.storefaults import store_error
from knowsum.errors import OutputError

__all__ = ["STORE_WAIT_ENV", "sampling_lock"]

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


def _flock_holder(fd: int) -> str:
    """The process holding a ``flock`` on the file of ``fd``, from ``/proc/locks`` (Linux); ``?``."""
    st = os.fstat(fd)
    inode = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return "?"
    for line in lines:
        fields = line.split()
        if len(fields) > 5 and fields[1] == "FLOCK" and fields[5] == inode:
            return fields[4]
    return "?"


def _refusal(holder: str, store: Path) -> OutputError:
    return OutputError(
        f"another knowsum run (process {holder}) is sampling into the store {store}: two runs on "
        "one store would ask the same requests twice; wait for it to finish (then rerun: what it "
        f"stored is not asked again; ${STORE_WAIT_ENV}=SECONDS waits for it), or give this run "
        "another --store"
    )


@contextlib.contextmanager
def sampling_lock(store: Path) -> Iterator[None]:
    """Hold the store's lock while a run samples into ``store``: ``STORE.lock`` beside its resolved
    path (which keeps the holder's process id for the message) and, when the store exists, a
    ``flock`` on the database file itself. With ``$KNOWSUM_STORE_WAIT`` seconds, a run waits that
    long for the holder to finish first.

    Raises:
        OutputError: another process holds it (another run is sampling into this database file, by
            this name, a symbolic link or a hard link).
        StoreError: the lock file cannot be made (a read-only folder, a full disk): the store could
            not be written either, and the message is the store's (exit 6), not the lock file's.
    """
    real = store.resolve()
    lock = real.with_name(real.name + ".lock")
    wait = _store_wait()
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
        fds = [os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)]
    except OSError as exc:  # the lock is made before the store is opened: say what the store would
        raise store_error(store, exc, "open") from exc
    try:
        if not _take(fds[0], wait):
            holder = os.pread(fds[0], 32, 0).decode("ascii", errors="replace").strip() or "?"
            raise _refusal(holder, store)
        os.ftruncate(fds[0], 0)
        os.pwrite(fds[0], f"{os.getpid()}\n".encode("ascii"), 0)
        with contextlib.suppress(FileNotFoundError):
            fds.append(os.open(real, os.O_RDONLY))
        if len(fds) > 1 and not _take(fds[1], wait):
            raise _refusal(_flock_holder(fds[1]), store)
        yield
    finally:
        for fd in reversed(fds):
            os.close(fd)  # releases the locks
