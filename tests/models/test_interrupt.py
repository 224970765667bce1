"""Ctrl-C during a run: the message says how many responses this run stored (kept) and that rerunning
the same command continues — checked on a real process interrupted with SIGINT, then rerun. The run
stops after its 5th answer until the signal comes (``tests/_held.py``), so no busy machine can let it
finish first."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from knowsum.kb import install

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"

HELD_MOCK = """
import os
import signal
import sys

from knowsum.models import MockBackend
from tests._held import hold_mock

_init = MockBackend.__init__


def _one_by_one(self, *args, **kwargs):  # one request per call: each answer is stored on its own
    kwargs.update(batch_size=1)
    _init(self, *args, **kwargs)


MockBackend.__init__ = _one_by_one
# Ctrl-C as a terminal sends it: a suite started as a background job of a non-interactive shell
# (`make test &`) runs with SIGINT ignored, which every child inherits, and the signal would never land
signal.signal(signal.SIGINT, signal.default_int_handler)
if os.environ.get("HOLD_AFTER"):  # answer that many requests, then wait until interrupted
    hold_mock(int(os.environ["HOLD_AFTER"]))
from knowsum.cli import main

sys.exit(main(sys.argv[1:]))
"""

MESSAGE = re.compile(
    r"knowsum: interrupted: the (\d+) responses this run stored are kept in (.+); "
    r"rerun the same command to continue where it stopped"
)


def _rows(store: Path) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store, timeout=10) as conn:
        try:
            return int(conn.execute("SELECT count(*) FROM responses WHERE error IS NULL").fetchone()[0])
        except sqlite3.OperationalError:  # the table is not made yet
            return 0


def test_an_interrupted_census_says_what_is_kept_and_a_rerun_continues(
    tmp_home: Path, tmp_path: Path
) -> None:
    install(["theorems"], [KB_FIX / "theorems.tsv"])
    script = tmp_path / "held_knowsum.py"
    script.write_text(HELD_MOCK, encoding="utf-8")
    store = tmp_path / "s.sqlite"
    command = [
        sys.executable,
        str(script),
        "census",
        "run",
        "theorems",
        "-m",
        "mock",
        "--queries",
        "60",
        "--n-bootstrap",
        "0",
        "--store",
        str(store),
        "--out",
        str(tmp_path / "run"),
    ]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # the run answers 5 requests and then waits: the test interrupts it there, however busy the machine
    held = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        env={**env, "HOLD_AFTER": "5"},
    )
    try:
        deadline = time.monotonic() + 600  # a safety net for a broken run, not a pace the run must keep
        while _rows(store) < 5 and held.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert held.poll() is None, held.communicate()
        held.send_signal(signal.SIGINT)
        _, err = held.communicate(timeout=600)
    finally:
        if held.poll() is None:
            held.kill()
    assert held.returncode == 130, err
    last = err.strip().splitlines()[-1]
    found = MESSAGE.fullmatch(last)
    assert found, err
    kept = int(found.group(1))
    assert Path(found.group(2)) == store.resolve() and kept == 5
    assert _rows(store) == kept  # the message is true: exactly that many are in the store
    assert not (tmp_path / "run" / "result.json").exists()

    rerun = subprocess.run(
        command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600, check=False
    )
    assert rerun.returncode == 0, rerun.stderr
    assert _rows(store) == 60 and (tmp_path / "run" / "result.json").is_file()


@pytest.mark.parametrize(
    ("store", "message"),
    [
        (False, "knowsum: interrupted"),
        (
            True,
            "knowsum: interrupted: this run stored no response yet in {store}; rerun the same command to "
            "continue where it stopped",
        ),
    ],
)
def test_an_interrupt_before_any_response_claims_nothing_more(
    tmp_home: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    store: bool,
    message: str,
) -> None:
    """No store in play (``--no-store``): only "interrupted"; a store but no response yet: says so."""
    from knowsum.cli import main
    from knowsum.models import MockBackend

    async def interrupted(self: MockBackend, requests: object) -> list[object]:
        raise KeyboardInterrupt

    monkeypatch.setattr(MockBackend, "generate", interrupted)
    path = tmp_path / "s.sqlite"
    args = ["--store", str(path)] if store else ["--no-store"]
    assert main(["ask", "-m", "mock", *args, "hi"]) == 130
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == message.format(store=path.resolve())
