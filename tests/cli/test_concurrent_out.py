"""Two runs into one folder at the same time: the second is refused at once, the first is written whole.

A run claims its folder before it asks anything and writes its record at the end; the claim takes
the folder's writing lock (``knowsum._util.runlock``), so a second run started meanwhile — another
process, or another thread of this one — is refused in one line naming the run writing it ("OUT is
being written by another knowsum run (pid N, started T)"), exit 2, before it asks anything. Runs of
the CLI are gated here: the mock model waits for a file before it answers, so the two runs overlap
for as long as the test needs. A lock left by a killed run does not block the folder; the lock file
is never inside the folder (a failed run still leaves nothing behind).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from knowsum._util import claim_folder, runlock
from knowsum.cli import main
from knowsum.errors import InputError
from knowsum.records import claim_run_dir, is_run_like, write_run_dir
from tests.instrument._yes import YesRecord

ECHO = Path(__file__).resolve().parents[2] / "examples" / "census" / "echo.toml"
BEING_WRITTEN = "is being written by another knowsum run (pid "

GATED_CLI = """\
import asyncio, sys
from pathlib import Path
from knowsum.models._mock import MockBackend

gate, ready = Path(sys.argv[1]), Path(sys.argv[2])
answer = MockBackend.generate

async def gated(self, requests):
    ready.touch()
    while not gate.exists():
        await asyncio.sleep(0.05)
    return await answer(self, requests)

MockBackend.generate = gated
from knowsum.cli import main
sys.exit(main(sys.argv[3:]))
"""
"""``knowsum ARGS`` whose mock model answers only once the file GATE exists (READY: it was asked)."""

HOLDER = """\
import sys, time
from pathlib import Path
from knowsum._util import claim_folder
from knowsum.records import claim_run_dir

out, how, ready, gate = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
if how == "run":
    claim_run_dir(out, "yes", {"what": "q", "model": "m"})
else:
    claim_folder(out, {"model": "m"}, owns=lambda entry: False)
ready.touch()
while not gate.exists():
    time.sleep(0.05)
"""
"""Claim OUT as a run directory (``run``) or a folder of runs, then hold it until GATE exists."""


def _wait(what: str, done: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _census(seed: int, out: Path, store: Path) -> list[str]:
    return [
        "census", "run", "--config", str(ECHO), "-m", "mock", "--queries", "3", "--n-bootstrap", "0",
        "--seed", str(seed), "--store", str(store), "--out", str(out),
    ]  # fmt: skip


SPAWNED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _end_spawned() -> Iterator[None]:
    """A failing test leaves no gated process waiting: each one it started is killed."""
    yield
    while SPAWNED:
        process = SPAWNED.pop()
        if process.poll() is None:
            process.kill()
            process.wait(30)


def _spawn(script: str, args: list[str], tmp_path: Path) -> subprocess.Popen[str]:
    path = tmp_path / "script.py"
    path.write_text(script, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(path), *args],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    SPAWNED.append(process)
    return process


def test_two_cli_runs_into_one_out_at_once_one_wins_whole(tmp_home: Path, tmp_path: Path) -> None:
    """Both start together; the one that claims the folder first writes all of its run, the other
    is refused at once (exit 2, one line naming the winner's process) and writes nothing."""
    out, gate = tmp_path / "cc", tmp_path / "gate"
    runs = {
        seed: _spawn(
            GATED_CLI,
            [str(gate), str(tmp_path / f"ready-{seed}"), *_census(seed, out, tmp_path / f"s{seed}.sqlite")],
            tmp_path,
        )
        for seed in (11, 12)
    }
    # the winner is asking its (gated) model, the loser has exited: only then may the winner finish
    _wait("one run to ask the model", lambda: any((tmp_path / f"ready-{s}").exists() for s in runs))
    _wait("the other run to exit", lambda: any(p.poll() is not None for p in runs.values()))
    gate.touch()
    ended = {seed: (p.wait(timeout=120), *p.communicate()) for seed, p in runs.items()}
    winner = next(s for s in runs if (tmp_path / f"ready-{s}").exists())
    loser = next(s for s in runs if s != winner)
    assert ended[winner][0] == 0, ended[winner][2]
    code, _, err = ended[loser]
    assert code == 2 and err.count("\n") == 1, err
    assert f"{out} {BEING_WRITTEN}{runs[winner].pid}, started " in err, err
    assert "wait for it or give another --out" in err
    assert not (tmp_path / f"ready-{loser}").exists()  # refused before it asked anything
    record = json.loads((out / "result.json").read_text(encoding="utf-8"))
    assert record["config"]["seed"] == winner  # the folder holds the winner's run, whole
    assert (out / "report.html").is_file() and (out / "items.jsonl").is_file() and is_run_like(out)
    assert not (out / ".knowsum-writing.json").exists()
    # one after the other, as before: the same run resumes into its folder, another one is refused
    assert main(_census(winner, out, tmp_path / f"s{winner}.sqlite")) == 0
    assert main(_census(loser, out, tmp_path / f"s{loser}.sqlite")) == 2


def test_a_run_in_another_thread_is_refused_while_one_writes(tmp_path: Path) -> None:
    """Two threads claim one run directory at once: one writes (slowly), the other is refused."""
    out = tmp_path / "run"
    barrier, refused = threading.Barrier(2), threading.Event()
    outcome: dict[str, object] = {}

    def slow(fh: IO[Any]) -> None:
        assert refused.wait(30)  # still writing when the other claim is refused
        fh.write(b"<p>yes</p>")

    def run(name: str, yes: int) -> None:
        barrier.wait()
        try:
            claim_run_dir(out, "yes", {"what": "q", "model": "m"})
        except InputError as exc:
            outcome[name] = exc
            refused.set()
            return
        record = YesRecord(model="m", backend="mock", config={"question": "q"}, n=2, yes=yes)
        write_run_dir(out, record, {"report.html": slow})
        outcome[name] = yes

    threads = [threading.Thread(target=run, args=(f"t{y}", y)) for y in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    errors = [v for v in outcome.values() if isinstance(v, InputError)]
    wrote = [v for v in outcome.values() if isinstance(v, int)]
    assert len(errors) == 1 and len(wrote) == 1, outcome
    assert BEING_WRITTEN + f"{os.getpid()}, started " in str(errors[0])
    assert json.loads((out / "result.json").read_text(encoding="utf-8"))["yes"] == wrote[0]
    assert claim_run_dir(out, "yes", {"what": "q", "model": "m"}) == out  # written: free again


@pytest.mark.parametrize("how", ["run", "folder"])
def test_a_folder_held_by_another_process_is_refused_then_free(how: str, tmp_path: Path) -> None:
    """While another process holds the claim (of a run directory, or of a folder of runs), a claim is
    refused naming it; once that process has ended, the same claim is taken."""
    out, ready, gate = tmp_path / "held", tmp_path / "ready", tmp_path / "gate"
    holder = _spawn(HOLDER, [str(out), how, str(ready), str(gate)], tmp_path)
    _wait("the holder's claim", lambda: ready.exists() or holder.poll() is not None)
    assert ready.exists(), holder.communicate()

    def claim() -> object:
        if how == "run":
            return claim_run_dir(out, "yes", {"what": "q", "model": "m"})
        return claim_folder(out, {"model": "m"}, owns=lambda _: False)

    with pytest.raises(InputError, match=f"being written by another knowsum run \\(pid {holder.pid}, "):
        claim()
    assert (out.exists() and how == "folder") or not out.exists()  # a run's claim creates nothing
    gate.touch()
    assert holder.wait(60) == 0
    assert not runlock.lock_path(out).exists()  # a process ending normally removes its lock files
    assert claim() == out


def test_a_lock_left_by_a_killed_run_does_not_block(tmp_path: Path) -> None:
    """A run killed while it holds the folder (its lock file left behind): the next claim takes it."""
    out, ready = tmp_path / "killed", tmp_path / "ready"
    holder = _spawn(HOLDER, [str(out), "run", str(ready), str(tmp_path / "never")], tmp_path)
    _wait("the holder's claim", lambda: ready.exists() or holder.poll() is not None)
    assert ready.exists(), holder.communicate()
    holder.send_signal(signal.SIGKILL)
    assert holder.wait(60) == -signal.SIGKILL
    stale = runlock.lock_path(out)
    assert json.loads(stale.read_text(encoding="utf-8"))["pid"] == holder.pid  # left behind
    assert claim_run_dir(out, "yes", {"what": "q", "model": "m"}) == out
    assert not out.exists()  # the lock is not in the folder: nothing is created by a claim
    record = YesRecord(model="m", backend="mock", config={"question": "q"}, n=2, yes=1)
    write_run_dir(out, record, {"report.html": "<p>yes</p>"})
    assert sorted(p.name for p in out.iterdir()) == ["report.html", "result.json"]
    assert not stale.exists()  # written: released and removed


def test_the_same_thread_claims_again_after_a_failed_run(tmp_path: Path) -> None:
    """A run that failed after its claim (its lock still held) is rerun from the same thread."""
    out = tmp_path / "again"
    assert claim_run_dir(out, "yes", {"what": "q", "model": "m"}) == out  # … and the run fails here
    assert claim_run_dir(out, "yes", {"what": "q", "model": "m"}) == out
    assert not out.exists()
    runlock.release_folder(out)


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): p.read_text("utf-8") for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("command", ["census run", "run", "profile run"])
def test_overwrite_never_replaces_a_folder_being_written(
    command: str, tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--overwrite`` replaces another run's folder, never one another run is writing: a run
    directory (``census run``) or a folder of runs (``knowsum run``, ``profile run``) held by another
    process is refused in one line, before anything is asked, and every file in it is left as it was."""
    out, ready, gate = tmp_path / "held", tmp_path / "ready", tmp_path / "gate"
    store = tmp_path / "s.sqlite"
    if command == "census run":
        record = YesRecord(model="m", backend="mock", config={"question": "q"}, n=2, yes=1)
        write_run_dir(out, record, {"report.html": "<p>yes</p>"})
        args = _census(11, out, store)
    else:
        plan = tmp_path / "plan.toml"
        plan.write_text('[census]\ntasks = ["diseases"]\nqueries = 2\nanswers = 2\n', encoding="utf-8")
        args = [*command.split(), *(["census"] if command == "run" else []), "-m", "mock"]
        args += ["--plan", str(plan), "--store", str(store), "--out", str(out)]
    how = "run" if command == "census run" else "folder"
    holder = _spawn(HOLDER, [str(out), how, str(ready), str(gate)], tmp_path)
    _wait("the holder's claim", lambda: ready.exists() or holder.poll() is not None)
    assert ready.exists(), holder.communicate()
    before = _hashes(out)
    assert main([*args, "--overwrite"]) == 2
    err = capsys.readouterr().err
    (error,) = [line for line in err.splitlines() if line.startswith("knowsum: error:")]
    assert f"{BEING_WRITTEN}{holder.pid}, started " in error, err
    assert _hashes(out) == before
    if store.exists():  # opened, but nothing was asked
        with contextlib.closing(sqlite3.connect(store)) as db:
            assert db.execute("SELECT count(*) FROM responses").fetchone() == (0,)
    gate.touch()
    assert holder.wait(60) == 0
