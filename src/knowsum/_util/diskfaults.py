"""Is a failed write a full disk, a read-only one, or a folder this user may not write?

One answer for the response store and the KB installer. SQLite reports a full disk as ``SQLITE_FULL``
(or, when even its journal cannot grow, ``SQLITE_IOERR`` or ``SQLITE_CANTOPEN``), and a file it may not
write as ``SQLITE_READONLY``/``SQLITE_CANTOPEN``; the OS says ``ENOSPC``, ``EROFS`` or
``EACCES``/``EPERM``. The folder is checked too (``disk_usage``; ``access``, which honours ``ro`` mounts
even for root, who ignores permission bits). A write that is refused is a read-only file system only
when the folder's mount is read-only (``statvfs`` ``ST_RDONLY``); otherwise it is permission denied
(``EACCES``: file or folder modes, ownership), which needs another fix.
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


def _read_only_mount(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def nearest_folder(path: Path) -> Path:
    """The nearest existing folder above ``path`` (the one whose disk a write to ``path`` lands on)."""
    return next((p for p in (path.parent, *path.parents) if p.exists()), Path("/"))


def disk_fault(exc: BaseException, path: Path) -> int | None:
    """``errno.ENOSPC``, ``errno.EROFS`` or ``errno.EACCES`` if ``exc`` (raised writing ``path``) means
    the disk is full, read-only, or refuses this user the write; else ``None``. ``path``'s nearest
    existing folder is the one examined."""
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
    refused = (
        code == sqlite3.SQLITE_READONLY
        or os_errno in (errno.EROFS, errno.EACCES, errno.EPERM)
        or not _writable(folder)
        or (path.exists() and not _writable(path))
    )
    if not refused:
        return None
    return errno.EROFS if os_errno == errno.EROFS or _read_only_mount(folder) else errno.EACCES
