"""How many CPU threads llama.cpp decodes with: fixed by ``$KNOWSUM_THREADS``, else chosen by measurement.

Why it matters: knowsum's llama.cpp build runs its threads as an OpenMP team, and ggml ends every
operation of the compute graph with a team barrier (``#pragma omp barrier`` in ``ggml_barrier``,
hundreds per token). A thread that reaches the barrier spin-waits for the others (libgomp spins about
300,000 iterations before it sleeps). When another process holds a core, the team member that shares
it is descheduled for a whole scheduler slice, and its partner burns its own core spinning meanwhile:
on 2 cores, a census with 2 threads beside one busy process ran at 0.08 of its quiet speed, where 0.5
is what half the CPU should give. One thread never waits at a barrier, so it slows in proportion to the
CPU it gets; on an idle machine, though, 2 threads are 1.4-1.5x faster than one.

Which count is faster therefore depends on what else runs, and that changes during a run. The default
(:class:`ThreadTuner`) measures it: it times every decoding step, now and then runs a short probe of
the other thread counts, and keeps the fastest. A probe comes at once when steps suddenly take
:attr:`ThreadTuner.jump` times longer (someone took a core); otherwise the probes thin out (doubling
gaps, and a hopeless count is dropped after one step) while they keep confirming the current choice,
so an idle machine pays about 1 % for them. A thread count only changes how fast a step runs, never
what it computes (``tests/models/test_threads.py``).
"""

from __future__ import annotations

import math
import os
import statistics
from collections import deque
from dataclasses import dataclass

from knowsum.errors import ConfigError

__all__ = [
    "SEQUENTIAL",
    "Probing",
    "ThreadTuner",
    "available_cores",
    "candidates",
    "first_guess",
    "fixed_threads",
]


def available_cores() -> int:
    """The CPU cores this process may run on (its affinity mask; all cores where that is unknown)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this platform
        return os.cpu_count() or 1


def fixed_threads() -> int | None:
    """``$KNOWSUM_THREADS`` as a fixed thread count; ``None`` when unset or ``auto`` (measured choice).

    Raises:
        ConfigError: anything else than a whole number >= 1 or ``auto``.
    """
    env = os.environ.get("KNOWSUM_THREADS", "").strip().lower()
    if env in ("", "auto"):
        return None
    if not env.isdigit() or int(env) < 1:
        raise ConfigError(f"KNOWSUM_THREADS must be 'auto' or a whole number >= 1, got {env!r}")
    return int(env)


def candidates(most: int) -> list[int]:
    """The thread counts the tuner chooses among: 1, half, all but one, and all of ``most`` cores."""
    return sorted({1, max(1, most // 2), max(1, most - 1), max(1, most)})


def first_guess(most: int) -> int:
    """The count to start from: the cores not taken by other work, by the 1-minute load average.

    Only a start: the load average lags by about a minute, and the tuner's first probe comes after a
    few steps. But on a busy machine a start at every core costs its first steps many times over.
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - no load average on this platform
        return most
    return max(1, min(most, round(most - load)))


@dataclass(frozen=True, slots=True)
class Probing:
    """How :class:`ThreadTuner` probes (the defaults suit the batched decoder's steps).

    Attributes:
        probe: timed steps per probed count, and the window of recent steps.
        settle: steps run untimed after each change of count (0: an OpenMP team resizes in
            microseconds, and an untimed step at a hopeless count costs as much as a timed one).
        first_gap: steps between probes at first (and at least between two probes).
        last_gap: steps between probes at most.
        jump: slow-down of recent steps (vs the chosen count's median) that brings a probe forward.
        margin: relative gain another count must show to be chosen.
        abort: slow-down (vs the current count) after which a probed count is dropped after one step.
        budget: the share of steps probes may cost: after a probe that cost ``c`` steps' worth of
            time, the next comes no sooner than ``c / budget`` steps later.
    """

    probe: int = 5
    settle: int = 0
    first_gap: int = 8
    last_gap: int = 512
    jump: float = 1.5
    margin: float = 0.03
    abort: float = 2.0
    budget: float = 0.02


SEQUENTIAL = Probing(probe=3, first_gap=4, last_gap=128)
"""Probing for the sequential path, whose steps are whole requests (timed per generated token)."""


class ThreadTuner:
    """Chooses the thread count of each decoding step from the measured time of the previous ones.

    Call :meth:`threads` before a step and :meth:`record` with its count and duration after it. The
    tuner starts at ``start`` threads (default ``most``). After ``gap`` steps (``first_gap`` at first,
    then doubling up to ``last_gap`` while probes confirm the choice), or at once when the median of
    the last ``probe`` steps exceeds ``jump`` times the median measured when the count was chosen, it
    probes: every other count in
    :func:`candidates` runs ``settle`` untimed steps and then ``probe`` timed steps, or a single one
    if that took over ``abort`` times the current count's recent median. It moves to the count whose
    median step time beats the current count's recent median by more than ``margin``. A probe that
    cost ``c`` steps' worth of extra time is followed by at least ``c / budget`` steps without one,
    unless a slow-down of the current count has lost more than ``c`` since. Medians keep a probe
    robust to single slow steps. Steps must be comparable (the same rows per decode), as the batched
    decoder's are; the sequential path records seconds per generated token.

    Args:
        most: the largest thread count (the cores this process may use).
        start: the first count (:func:`first_guess` in the local backend); the nearest candidate.
        how: the probing settings (:class:`Probing`).
    """

    def __init__(self, most: int, *, start: int | None = None, how: Probing = Probing()) -> None:
        if most < 1 or how.probe < 1 or how.settle < 0 or not 1 <= how.first_gap <= how.last_gap:
            raise ConfigError(f"invalid thread tuner: most={most}, {how}")
        self.how = how
        self.choices = candidates(most)
        self.current = min(self.choices, key=lambda c: abs(c - (start or most)))
        self.gap = how.first_gap
        self.switches = 0
        """How many times the chosen count changed (for benchmarks and logs)."""
        self.used: dict[int, int] = dict.fromkeys(self.choices, 0)
        """Steps recorded per thread count."""
        self._recent: deque[float] = deque(maxlen=how.probe)
        self._reference: float | None = None
        self._since = 0
        self._skip = 0  # untimed steps left at the current count (after a change back from a probe)
        self._trial: list[int] = []
        self._taken: dict[int, list[float]] = {}
        self._seen = 0
        self._baseline = 0.0
        self._cost = 0.0

    def threads(self) -> int:
        """The thread count for the next step."""
        return self._trial[0] if self._trial else self.current

    def record(self, threads: int, seconds: float) -> None:
        """Note that a step ran ``seconds`` on ``threads`` threads (a stale count is ignored)."""
        self.used[threads] = self.used.get(threads, 0) + 1
        if self._trial:
            self._probing(threads, seconds)
        elif threads == self.current:
            if self._skip:
                self._skip -= 1
                return
            self._recent.append(seconds)
            self._since += 1
            if len(self._recent) < self.how.probe:
                return
            now = statistics.median(self._recent)
            if self._reference is None:
                self._reference = now
            # a slow-down brings the probe forward once the time it lost exceeds the last probe's cost
            slower = now / self._reference - 1
            jumped = slower > self.how.jump - 1 and slower * self._since >= self._cost
            if jumped or self._since >= self.gap:
                self._start(now)

    def _start(self, baseline: float) -> None:
        self._trial = [c for c in self.choices if c != self.current]
        self._taken = {c: [] for c in self._trial}
        self._baseline, self._seen = baseline, 0
        if not self._trial:  # a single candidate: nothing to compare
            self._done()

    def _probing(self, threads: int, seconds: float) -> None:
        if threads != self._trial[0]:
            return
        self._seen += 1
        if self._seen > self.how.settle:
            self._taken[threads].append(seconds)
        # a count far slower than the current one (2 threads spinning beside a busy process) is
        # dropped after one timed step: probing it costs little however long it would be probed
        hopeless = self._seen > self.how.settle and seconds > self.how.abort * self._baseline
        if hopeless or self._seen >= self.how.settle + self.how.probe:
            self._trial.pop(0)
            self._seen = 0
            if not self._trial:
                self._done()

    def _done(self) -> None:
        """Keep the current count or move to the fastest probed one."""
        best, best_time = self.current, self._baseline
        for count, times in self._taken.items():
            t = statistics.median(times)
            if t < best_time * (1 - self.how.margin):
                best, best_time = count, t
        # the probe's cost: steps' worth of time beyond what the chosen count would have taken
        self._cost = sum(max(0.0, t / best_time - 1) for ts in self._taken.values() for t in ts)
        if best != self.current:
            self.current, self.gap = best, self.how.first_gap
            self.switches += 1
        else:
            self.gap = min(2 * self.gap, self.how.last_gap)
        # probes cost at most ``budget`` of the steps: a count many times slower (2 threads spinning
        # beside busy processes: one step can take as long as 50 on 1 thread) is probed rarely
        self.gap = max(self.gap, math.ceil(self._cost / self.how.budget))
        self._skip = self.how.settle  # the team may resize again (back from a probe)
        self._reference = best_time
        self._recent.clear()
        self._since = 0
