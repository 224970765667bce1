"""Is a failed write a full or read-only disk? One answer for the response store and the KB installer.

SQLite reports a full disk as ``SQLITE_FULL`` (or, when even its journal cannot grow, ``SQLITE_IOERR``
or ``SQLITE_CANTOPEN``), and a read-only file system as ``SQLITE_READONLY``/``SQLITE_CANTOPEN``; the OS
says ``ENOSPC``/``EROFS``/``EACCES``. The folder is checked too (``disk_usage``, ``access``: the latter
honours ``ro`` mounts even for root, who ignores permission bits).
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
from pathlib import Path

__all__ = ["disk_fault", "nearest_folder"]


def _writable(folder: Path) -> bool:
    try:
        return os.access(folder, os.W_OK)
    except OSError:
        return False


def _full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free == 0
    except OSError:
        return False


def nearest_folder(path: Path) -> Path:
    """The nearest existing folder above ``path`` (the one whose disk a write to ``path`` lands on)."""
    return next((p for p in (path.parent, *path.parents) if p.exists()), Path("/"))


def disk_fault(exc: BaseException, path: Path) -> int | None:
    """``errno.ENOSPC`` or ``errno.EROFS`` if ``exc`` (raised writing ``path``) means the disk is full
    or read-only, else ``None``. ``path``'s nearest existing folder is the one examined."""
    folder = nearest_folder(path)
    code = getattr(exc, "sqlite_errorcode", None)
    code = code & 0xFF if isinstance(code, int) else None  # the primary code of an extended one
    os_errno = getattr(exc, "errno", None)
    if (
        code == sqlite3.SQLITE_FULL
        or os_errno == errno.ENOSPC
        or (code in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN) and _full(folder))
    ):
        return errno.ENOSPC
    if code == sqlite3.SQLITE_READONLY or os_errno in (errno.EROFS, errno.EACCES) or not _writable(folder):
        return errno.EROFS
    return None
