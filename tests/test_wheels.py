"""``knowsum._util.wheels.sweep``: leftovers of killed downloads go, live downloads stay (at any step)."""

from __future__ import annotations

import fcntl
import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from knowsum._util import download_wheel, sweep
from knowsum._util import wheels as _wheels


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


def test_a_sweep_at_any_step_of_a_download_never_removes_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A concurrent ``sweep()`` right after each file-system step of ``download_wheel`` (folder
    creation, lock-file creation, ``flock``, rename): the download still completes. Before the fix a
    sweep between the lock file's creation and the ``flock`` locked and deleted the folder."""
    dest = tmp_path / "cache"
    swept: list[list[str]] = []
    busy = False

    def then_sweep(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            nonlocal busy
            out = fn(*args, **kwargs)
            if not busy and dest.is_dir():
                busy = True  # sweep()'s own os.open must not sweep again
                try:
                    sweep(dest)
                    swept.append(sorted(p.name for p in dest.iterdir()))
                finally:
                    busy = False
            return out

        return wrapper

    def fake_pip(cmd: list[str], **_: Any) -> subprocess.CompletedProcess[str]:
        folder = Path(cmd[cmd.index("--dest") + 1])
        if not folder.is_dir():  # what pip does when its --dest folder was deleted under it
            return subprocess.CompletedProcess(cmd, 1, "", "ERROR: no such directory")
        (folder / "demo_pkg-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04 complete")
        return subprocess.CompletedProcess(cmd, 0, "", "")

    with monkeypatch.context() as m:
        for module, name in ((tempfile, "mkdtemp"), (os, "open"), (fcntl, "flock"), (os, "rename")):
            m.setattr(module, name, then_sweep(getattr(module, name)))
        m.setattr(_wheels.subprocess, "run", fake_pip)
        got = download_wheel("demo-pkg==1.0", dest)
    assert got == dest / "demo_pkg-1.0-py3-none-any.whl" and got.read_bytes() == b"PK\x03\x04 complete"
    assert len(swept) >= 4  # a sweep ran after every step
    assert [p.name for p in dest.iterdir()] == [got.name]  # nothing left behind


def test_a_stale_staging_folder_is_removed(tmp_path: Path) -> None:
    young, old = tmp_path / ".staging-young", tmp_path / ".staging-old"
    young.mkdir()
    old.mkdir()
    hour_ago = time.time() - 3700
    os.utime(old, (hour_ago, hour_ago))
    sweep(tmp_path)
    assert young.is_dir() and not old.exists()


def test_every_failed_download_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A model, a KB or the tokenizer: one message for every download pip could not make, ending in
    what to do (the index, or the wheel put in the cache by hand), against a closed loopback port."""
    from knowsum.errors import SourceError

    for name, value in {
        "PIP_INDEX_URL": "http://127.0.0.1:9/simple",
        "PIP_RETRIES": "0",
        "PIP_TIMEOUT": "2",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PIP_NO_CACHE_DIR", "1")
    with pytest.raises(SourceError) as err:
        download_wheel("knowsum-no-such-package==0.0.1", tmp_path / "wheels")
    message = str(err.value)
    assert message.startswith("cannot download knowsum-no-such-package==0.0.1 from the package index")
    assert message.endswith(
        "check that PyPI (or your pip index, PIP_INDEX_URL) is reachable, or put the wheel in "
        f"{tmp_path / 'wheels'} by hand"
    )
