"""A census killed mid-run and resumed stores byte-identical texts to an uninterrupted one (batched decoding).

Real models, real CLI processes, a real SIGKILL. Issue 19: each sample reaches the store the moment it
finishes, so a kill inside a decoder run keeps exactly the finished samples. Issue 17: a sample's text
does not depend on its batch companions, so the resumed run (other companions, other slots, fewer
sequences busy) regenerates what the uninterrupted run generated — checked on Qwen2.5-Coder 1.5B at the
census's own token budget (488 tokens for 20 answers), where the earlier decoder diverged.

The runs decode with the default thread count, as a user's do: measured and re-chosen as they run
(``knowsum.models._threads``), so on a busy machine they move to one thread instead of spin-waiting
at llama.cpp's barriers. A thread count changes how fast a step runs, never its text
(``tests/models/test_threads.py``), so the two runs may choose differently and still agree.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from knowsum.models import is_installed, model_spec
from tests._held import CHILD

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]
SMOL = "smollm2-135m-instruct"
QWEN = "qwen2.5-coder-1.5b-instruct"


def _census(model: str, store: Path, out: Path, queries: int, hold: int = 0) -> list[str]:
    """The census command; with ``hold`` the decoder stops after that many samples (``tests/_held.py``)."""
    code = CHILD if hold else "from knowsum.cli import main; main()"
    held = ["hold_local", str(hold), "-"] if hold else []
    return [
        sys.executable,
        "-c",
        code,
        *held,
        "census",
        "run",
        "diseases",
        "-m",
        model,
        "--queries",
        str(queries),
        "--answers",
        "20",
        "--store",
        str(store),
        "--out",
        str(out),
    ]


def _env() -> dict[str, str]:
    env = {**os.environ, "KNOWSUM_BATCH": "4", "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("KNOWSUM_THREADS", None)  # the measured default (module docstring)
    return env


def _finish(cmd: list[str]) -> None:
    """Run a census to its end (its stderr in the failure message if it fails)."""
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def _rows(store: Path) -> dict[str, tuple[str, str | None]]:
    """key -> (text, error) of every stored row (read-only, while a writer may be running)."""
    if not store.exists():
        return {}
    con = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30)
    try:
        return {k: (t, e) for k, t, e in con.execute("SELECT key, text, error FROM responses")}
    except sqlite3.OperationalError:  # the table is not created yet
        return {}
    finally:
        con.close()


def _kill_after(cmd: list[str], store: Path, n: int, timeout: float) -> int:
    """Start ``cmd`` (a census held after ``n`` samples), SIGKILL it once ``n`` rows are stored; the rows
    stored at the kill. ``timeout`` is a safety net for a broken run, not a pace it must keep."""
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    try:
        while len(_rows(store)) < n:
            assert proc.poll() is None, f"census ended before the kill: {proc.stderr.read().decode()[-2000:]}"  # type: ignore[union-attr]
            assert time.monotonic() < deadline, f"fewer than {n} rows stored after {timeout} s"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    return len(_rows(store))


def _kill_and_resume(model: str, tmp_path: Path, queries: int, timeout: float) -> None:
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    if not is_installed(model_spec(model)):
        pytest.skip(f"run `knowsum models install {model}`")
    whole, cut = tmp_path / "whole.sqlite", tmp_path / "cut.sqlite"
    _finish(_census(model, whole, tmp_path / "w", queries))
    reference = _rows(whole)
    assert len(reference) == queries and all(e is None and t for t, e in reference.values())

    point = random.Random(os.environ.get("KNOWSUM_TEST_SEED", "19")).randint(1, queries - 2)
    at_kill = _kill_after(_census(model, cut, tmp_path / "c", queries, hold=point), cut, point, timeout)
    stored = _rows(cut)
    assert at_kill == point, f"killed after {at_kill} of {queries} rows, held after {point}"
    # exactly the finished samples, each byte-identical to the uninterrupted run's
    assert all(e is None for _, e in stored.values())
    assert {k: t for k, (t, _) in stored.items()} == {k: reference[k][0] for k in stored}

    _finish(_census(model, cut, tmp_path / "c", queries))
    assert _rows(cut) == reference  # the rest regenerated exactly, nothing lost or duplicated


def test_smollm2_census_killed_mid_run_keeps_each_finished_sample(tmp_path: Path) -> None:
    _kill_and_resume(SMOL, tmp_path, queries=12, timeout=600)


def test_qwen_census_killed_and_resumed_stores_the_uninterrupted_texts(tmp_path: Path) -> None:
    _kill_and_resume(QWEN, tmp_path, queries=8, timeout=1800)
