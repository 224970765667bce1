"""``knowsum._wheels.sweep``: leftovers of killed downloads go, folders of live downloads stay."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from knowsum._wheels import sweep


def _folder(dest: Path, name: str, *, lock: bool) -> Path:
    d = dest / f".download-{name}"
    d.mkdir(parents=True)
    (d / "part-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 truncated")
    if lock:
        (d / ".lock").touch()
    return d


def test_a_live_download_is_not_swept_and_a_dead_one_is(tmp_path: Path) -> None:
    live, dead = _folder(tmp_path, "live", lock=True), _folder(tmp_path, "dead", lock=True)
    fd = os.open(live / ".lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # what a running download holds (another open file: conflicts)
        sweep(tmp_path)
        assert live.is_dir() and not dead.exists()
    finally:
        os.close(fd)
    sweep(tmp_path)  # the download died: its lock is free
    assert not live.exists()


def test_an_unlocked_folder_is_removed_only_when_old(tmp_path: Path) -> None:
    young, old = _folder(tmp_path, "young", lock=False), _folder(tmp_path, "old", lock=False)
    hour_ago = time.time() - 3700
    os.utime(old, (hour_ago, hour_ago))
    sweep(tmp_path)
    assert young.is_dir() and not old.exists()
    (tmp_path / "kept-1.0-py3-none-any.whl").write_bytes(b"complete")
    sweep(tmp_path)
    assert (tmp_path / "kept-1.0-py3-none-any.whl").exists()  # finished wheels are never touched
