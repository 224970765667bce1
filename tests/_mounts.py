"""Small real file systems for the disk-fault tests: a tmpfs mounted and always unmounted (needs root,
as on the development machine and in CI), and a filler that leaves it full."""

from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["fill", "remount", "tmpfs"]


@contextmanager
def tmpfs(where: Path, size: str = "1m") -> Iterator[Path]:
    """Mount a tmpfs of ``size`` at ``where`` (created); unmount it at the end, whatever happened."""
    where.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(where)], check=True)
    try:
        yield where
    finally:
        if subprocess.run(["umount", str(where)], check=False).returncode != 0:
            subprocess.run(["umount", "-l", str(where)], check=True)  # busy: detach now, free when closed


def remount(where: Path, mode: str) -> None:
    """Remount ``where`` read-only (``"ro"``) or writable (``"rw"``)."""
    subprocess.run(["mount", "-o", f"remount,{mode}", str(where)], check=True)


def fill(disk: Path) -> Path:
    """Write a filler file until ``disk`` is full; return it (unlink it to free the space)."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as fh:
        try:
            while True:
                fh.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return filler
