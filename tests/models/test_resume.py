"""Crash/resume: a run killed with SIGKILL midway, resumed, equals an uninterrupted run."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from knowsum.models import ResponseStore

WORKER = Path(__file__).with_name("resume_worker.py")


def _run(store: Path, hold: int = 0) -> subprocess.Popen[bytes]:
    """The worker; with ``hold`` it answers that many requests, then waits to be killed."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen([sys.executable, str(WORKER), str(store), str(hold)], env=env)


def _rows(store: Path) -> list[tuple[str, str, str | None]]:
    with ResponseStore(store) as st:
        return [(r.key, r.text, r.error) for r in st.responses()]


def _count(store: Path) -> int:
    try:
        conn = sqlite3.connect(store, timeout=5)
        try:
            return int(conn.execute("SELECT count(*) FROM responses").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.OperationalError:  # not created / not migrated yet
        return 0


def test_sigkill_midway_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    reference = tmp_path / "reference.sqlite"
    assert _run(reference).wait(600) == 0

    crashed = tmp_path / "crashed.sqlite"
    proc = _run(crashed, hold=120)  # stops after 120 answers until killed: no race with a busy machine
    deadline = time.monotonic() + 600  # a safety net for a broken run, not a pace it must keep
    while _count(crashed) < 120 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    assert proc.wait(60) == -signal.SIGKILL
    partial = _count(crashed)
    assert partial == 120

    assert _run(crashed).wait(600) == 0
    got, want = _rows(crashed), _rows(reference)
    assert len(got) == len({k for k, _, _ in got}) == 400
    assert sorted(got) == sorted(want)
    assert all(error is None for _, _, error in got)
