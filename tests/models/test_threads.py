"""llama.cpp's thread count: ``$KNOWSUM_THREADS``, and the tuner that measures which count is faster.

The tuner is driven here by a simulated machine (step times per thread count, with and without a busy
neighbour, shaped like the bench's SmolLM2 figures): its choices are checked, never wall time. On the
real test model, texts do not depend on the thread count of any step, which is what lets the count
change mid-run without touching what is stored.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.errors import ConfigError
from knowsum.models import GenerationParams, default_threads, make_requests, sample_sync
from knowsum.models._local import LocalBackend
from knowsum.models._threads import ThreadTuner, available_cores, candidates, first_guess, fixed_threads
from tests.models._embedded import open_smollm2

QUIET = {1: 1.5, 2: 1.0}
"""Step time by thread count on an idle 2-core machine: 2 threads 1.5x faster (SmolLM2: 101 vs 68 tok/s)."""
BUSY = {1: 2.0, 2: 12.0}
"""Beside one busy process: 1 thread gets about a core, 2 spin at every barrier (0.08 of quiet speed)."""


def _drive(tuner: ThreadTuner, machine: Callable[[int], dict[int, float]], steps: int) -> list[int]:
    """Run ``steps`` steps; ``machine(step)`` gives that step's times by thread count. The counts used."""
    used = []
    for i in range(steps):
        n = tuner.threads()
        used.append(n)
        tuner.record(n, machine(i)[n])
    return used


@pytest.mark.parametrize(
    ("env", "fixed"), [(None, None), ("", None), ("auto", None), (" AUTO ", None), ("1", 1), ("3", 3)]
)
def test_knowsum_threads_fixes_the_count_or_leaves_it_to_the_tuner(
    monkeypatch: pytest.MonkeyPatch, env: str | None, fixed: int | None
) -> None:
    if env is None:
        monkeypatch.delenv("KNOWSUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("KNOWSUM_THREADS", env)
    assert fixed_threads() == fixed
    assert default_threads() == (fixed or available_cores())


@pytest.mark.parametrize("env", ["0", "-1", "two", "1.5"])
def test_a_bad_knowsum_threads_is_one_clear_error(monkeypatch: pytest.MonkeyPatch, env: str) -> None:
    monkeypatch.setenv("KNOWSUM_THREADS", env)
    with pytest.raises(ConfigError, match=r"KNOWSUM_THREADS must be 'auto' or a whole number >= 1"):
        fixed_threads()


def test_candidates_are_one_half_all_but_one_and_all() -> None:
    assert [candidates(n) for n in (1, 2, 3, 8)] == [[1], [1, 2], [1, 2, 3], [1, 4, 7, 8]]


def test_the_backend_tunes_only_when_no_count_is_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"GGUF")  # never loaded here
    monkeypatch.delenv("KNOWSUM_THREADS", raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # an idle machine: start on every core
    auto = LocalBackend(gguf)
    assert auto.n_threads is None and auto.tuner is not None and auto.tuner.current == available_cores()
    assert LocalBackend(gguf, n_threads=1).tuner is None
    monkeypatch.setenv("KNOWSUM_THREADS", "1")
    pinned = LocalBackend(gguf)
    assert pinned.n_threads == 1 and pinned.tuner is None
    monkeypatch.setenv("KNOWSUM_THREADS", "none")
    with pytest.raises(ConfigError, match="KNOWSUM_THREADS"):
        LocalBackend(gguf)


@pytest.mark.parametrize(
    ("most", "load", "start"), [(2, 0.3, 2), (2, 1.2, 1), (2, 7.0, 1), (8, 2.6, 4), (8, 0.0, 8), (1, 0.0, 1)]
)
def test_it_starts_on_the_cores_the_load_average_leaves_free(
    monkeypatch: pytest.MonkeyPatch, most: int, load: float, start: int
) -> None:
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    assert ThreadTuner(most, start=first_guess(most)).threads() == start  # the nearest candidate


def test_on_an_idle_machine_it_keeps_every_core_and_probes_rarely() -> None:
    tuner = ThreadTuner(2)
    used = _drive(tuner, lambda _: QUIET, 5000)
    assert tuner.current == 2 and tuner.switches == 0
    cost = sum(QUIET[n] for n in used) / (QUIET[2] * len(used)) - 1
    assert cost < 0.01  # the probes of 1 thread cost under 1 % of the time (doubling gaps)


def test_a_busy_neighbour_moves_it_to_one_thread_at_once_and_back_when_it_leaves() -> None:
    tuner = ThreadTuner(2)

    def machine(step: int) -> dict[int, float]:
        return BUSY if 3000 <= step < 6000 else QUIET

    used = _drive(tuner, machine, 9000)
    # the first slow steps trigger a probe at once: on 1 thread within 10 steps of the arrival; 2
    # threads come back only for probes, each dropped after one timed step
    assert used[3010:3040].count(1) >= 26 and used[3040:6000].count(2) < 40 and tuner.switches == 2
    assert used[-500:].count(2) > 490  # back on both cores (found by a periodic probe)
    slow = sum(machine(i)[n] for i, n in enumerate(used[3000:6000], 3000)) / (BUSY[1] * 3000)
    assert slow < 1.05  # beside the neighbour, within 5 % of the best fixed choice (1 thread)


def test_on_a_crowded_machine_a_hopeless_count_is_probed_rarely() -> None:
    """Beside many busy processes one step on 2 threads took as long as 50 on 1 (bench, load 9): the
    probes of 2 threads still cost under 5 % of a run that starts on 1 thread (the load average)."""
    crowded = {1: 1.0, 2: 50.0}
    tuner = ThreadTuner(2, start=1)
    used = _drive(tuner, lambda _: crowded, 3000)
    assert sum(crowded[n] for n in used) / len(used) - 1 < 0.05 and tuner.switches == 0


@settings(max_examples=60, deadline=None)
@given(
    most=st.integers(1, 16),
    times=st.lists(st.floats(0.001, 10.0), min_size=1, max_size=400),
)
def test_every_step_runs_on_a_candidate_count(most: int, times: list[float]) -> None:
    tuner = ThreadTuner(most)
    for t in times:
        n = tuner.threads()
        assert n in candidates(most)
        tuner.record(n, t * n)


@settings(max_examples=40, deadline=None)
@given(most=st.integers(2, 16), best=st.integers(0, 3))
def test_it_settles_on_a_count_far_faster_than_the_others(most: int, best: int) -> None:
    """Step time 1 on the best candidate, 3 on every other: after a while it runs (nearly) only there."""
    target = candidates(most)[min(best, len(candidates(most)) - 1)]
    tuner = ThreadTuner(most)
    used = _drive(tuner, lambda _: {c: 1.0 if c == target else 3.0 for c in candidates(most)}, 4000)
    assert tuner.current == target and used[-1000:].count(target) > 950


def test_invalid_tuner_settings_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="invalid thread tuner"):
        ThreadTuner(0)


class _Alternating(ThreadTuner):
    """Switches between 1 and 2 threads at every step (every request on the sequential path)."""

    def __init__(self) -> None:
        super().__init__(2)
        self.steps = 0

    def threads(self) -> int:
        return 1 + self.steps % 2

    def record(self, threads: int, seconds: float) -> None:
        self.steps += 1


@pytest.mark.realmodel
@pytest.mark.parametrize("n_parallel", [1, 3])
def test_texts_do_not_depend_on_the_thread_count_of_any_step(n_parallel: int) -> None:
    params = GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=16, seed=7)
    reqs = make_requests(["Name one human disease.", "List three genes."], params, n=2)
    fixed, switching = open_smollm2(n_parallel), open_smollm2(n_parallel)
    switching.tuner = _Alternating()
    try:
        want = {r.key: r.text for r in sample_sync(fixed, reqs, progress=False)}
        got = {r.key: r.text for r in sample_sync(switching, reqs, progress=False)}
    finally:
        asyncio.run(fixed.aclose())
        asyncio.run(switching.aclose())
    assert switching.tuner.steps > 2 and got == want and all(want.values())
