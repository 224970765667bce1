"""The one message for a response store that cannot be opened, read or written.

Every path that touches a store says the same thing for the same cause: the writable open and every
write (:mod:`knowsum.models`), the read-only open of ``store info`` / ``store export``, and the sampling
lock (:mod:`knowsum._util.storelock`) whose ``STORE.lock`` is made before the store is opened. So a
read-only folder, a full disk or a damaged file is one line naming the store and what to do, exit 6,
whichever of them meets it first.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from knowsum._util.diskfaults import disk_fault, nearest_folder
from knowsum.errors import StoreError

__all__ = ["store_error"]


def store_error(
    path: Path, exc: sqlite3.Error | OSError, doing: str, *, read_only: bool = False
) -> StoreError:
    """A :class:`StoreError` naming the store, the cause and what to do, in one line.

    Args:
        path: the store file.
        exc: what SQLite or the OS raised.
        doing: what failed, completing "cannot … response store": ``open``, ``write to``, ``read``.
        read_only: the store was opened read-only (``store info``, ``store export``): nothing was
            written, so a read-only or full disk is not the cause (an archived store in a read-only
            folder is read as it is) and is not named.
    """
    where = f"cannot {doing} response store {path}"
    fault = None if read_only else disk_fault(exc, path)
    if fault == errno.ENOSPC:
        return StoreError(
            f"{where}: the disk is full; free space on it (or pass another --store PATH) and rerun: "
            "the responses stored so far are kept"
        )
    if fault == errno.EROFS:
        return StoreError(
            f"{where}: {nearest_folder(path)} is read-only; pass --store PATH on a writable disk (or make "
            "it writable) and rerun"
        )
    if fault == errno.EACCES:
        return StoreError(
            f"{where}: permission denied (this user may not write it or {nearest_folder(path)}); fix "
            "the owner or mode, or pass --store PATH in a folder you can write, and rerun"
        )
    text = str(exc)
    if "database is locked" in text or "database table is locked" in text:
        return StoreError(
            f"{where}: another process is writing to it ({text}); wait until it has finished and rerun"
        )
    if "malformed" in text:
        return StoreError(
            f"{where}: the store file is damaged ({text}); recover its rows with "
            f'`sqlite3 {path} ".recover" | sqlite3 NEW.sqlite` and pass --store NEW.sqlite, or restore a '
            "copy of the store"
        )
    return StoreError(
        f"{where}: {exc}; check --store" if read_only else f"{where}: {exc} (pass another --store PATH)"
    )
