"""Registry wheels fetched with ``pip download`` into a cache folder, never half-present.

pip downloads into a private temporary folder inside the cache; the finished wheel is then renamed
into the cache (atomic on one file system). A download killed at any point (even SIGKILL) therefore
leaves either no wheel or a complete one, never a truncated file that a later run would trust; the
temporary folders it leaves are swept by the next download into the same cache (never the folder
of a download still running in another process: each holds a ``flock`` while it runs).

A download folder only becomes visible to :func:`sweep` already locked: it is created as
``.staging-XXXX``, its lock file is created and locked (``flock``), and only then is it renamed to
``.download-XXXX`` (a rename keeps the open, locked file). So no sweep can lock and delete a folder
between its lock file's creation and the ``flock``. A staging folder lives for microseconds; one
left by a process killed in that instant is removed once it is an hour old.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from knowsum.errors import SourceError

__all__ = ["EMBED_INSTALL", "cached_wheel", "download_wheel", "sweep"]

EMBED_INSTALL = (
    "run `pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu` (torch's CPU "
    "build: PyPI's Linux torch is the CUDA one, GBs of packages), then `pip install 'knowsum[embed]'`"
)
"""How to install the sentence-embedding extra, said wherever it is missing (docs/setup.md)."""

_TMP_PREFIX = ".download-"
_STAGING_PREFIX = ".staging-"
_LOCK = ".lock"
_STALE_SECONDS = 3600


def _stem(requirement: str) -> str:
    name, version = requirement.split("==")
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}-"


def _match(folder: Path, requirement: str) -> Path | None:
    stem = _stem(requirement)
    found = sorted(p for p in folder.glob("*.whl") if p.name.lower().startswith(stem))
    return found[0] if found else None


def cached_wheel(requirement: str, dest: Path) -> Path | None:
    """The complete wheel of ``name==version`` in ``dest``, or ``None``."""
    return _match(dest, requirement)


def sweep(dest: Path) -> None:
    """Remove the temporary download folders that killed downloads left in ``dest``.

    A download in progress (in this or another process) holds an exclusive ``flock`` on its folder's
    lock file from before the folder got its ``.download-`` name, so its folder is skipped. A staging
    folder, or a download folder without a lock file (left by an older knowsum), is removed once it
    is an hour old.
    """
    for staging in dest.glob(_STAGING_PREFIX + "*"):
        _remove_if_stale(staging)
    for leftover in dest.glob(_TMP_PREFIX + "*"):
        try:
            fd = os.open(leftover / _LOCK, os.O_RDWR)
        except FileNotFoundError:
            _remove_if_stale(leftover)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live download
        else:
            shutil.rmtree(leftover, ignore_errors=True)
        finally:
            os.close(fd)


def _remove_if_stale(folder: Path) -> None:
    with contextlib.suppress(OSError):
        if time.time() - folder.stat().st_mtime > _STALE_SECONDS:
            shutil.rmtree(folder, ignore_errors=True)


def _locked_folder(dest: Path) -> tuple[Path, int]:
    """A new ``.download-XXXX`` folder in ``dest`` and the fd of its lock, locked before it has that name."""
    staging = Path(tempfile.mkdtemp(prefix=_STAGING_PREFIX, dir=dest))
    lock = os.open(staging / _LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held until the folder is gone: sweep() leaves it alone
        tmp = dest / (_TMP_PREFIX + staging.name.removeprefix(_STAGING_PREFIX))
        os.rename(staging, tmp)
    except OSError:
        os.close(lock)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return tmp, lock


def download_wheel(requirement: str, dest: Path) -> Path:
    """The wheel of ``requirement`` (``name==version``) in ``dest``, downloading it if not cached.

    Raises:
        SourceError: pip failed or produced no wheel; the message ends with what to do (every
            download's: check the index is reachable, or put the wheel in ``dest`` by hand).
    """
    if (found := cached_wheel(requirement, dest)) is not None:
        return found
    dest.mkdir(parents=True, exist_ok=True)
    tmp, lock = _locked_folder(dest)
    try:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--dest",
            str(tmp),
        ]
        try:
            proc = subprocess.run([*cmd, "-q", requirement], capture_output=True, text=True, check=False)
        except OSError as exc:
            raise SourceError(f"cannot run pip to download {requirement}: {exc}") from exc
        got = _match(tmp, requirement)
        if proc.returncode != 0 or got is None:
            lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "is ignored" not in ln]
            why = lines[-1].strip() if lines else f"pip exited with {proc.returncode} and no wheel"
            hint = (
                "check that PyPI (or your pip index, PIP_INDEX_URL) is reachable, or put the wheel in "
                f"{dest} by hand"
            )
            raise SourceError(f"cannot download {requirement} from the package index: {why}; {hint}")
        final = dest / got.name
        os.replace(got, final)
        return final
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        os.close(lock)
