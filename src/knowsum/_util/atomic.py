"""Atomic file writes: a temporary file beside the target, renamed over it when complete.

A run killed mid-write leaves either the old file or no file, never half of one. The final file gets
the permissions of an ordinary ``open(..., "w")`` (0666 less the umask), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Literal

__all__ = ["atomic_write"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_write(path: str | os.PathLike[str], mode: Literal["w", "wb"] = "w") -> Iterator[IO[Any]]:
    """Open a temporary file for writing; on success rename it to ``path`` (parents created).

    Yields the open file (text UTF-8 for ``"w"``, binary for ``"wb"``). On any exception the temporary
    file is removed and ``path`` is left untouched.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as fh:
            yield fh
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
