"""A sampling run used by test_resume.py (run as a subprocess, killed with SIGKILL midway)."""

from __future__ import annotations

import sys

from knowsum.models import GenerationParams, MockBackend, ResponseStore, make_requests, sample_sync

ANSWERS = [f"answer-{i}" for i in range(1000)]


def requests():  # type: ignore[no-untyped-def]
    return make_requests([f"item {i}" for i in range(40)], GenerationParams(seed=9), n=10)


def backend(delay: float) -> MockBackend:
    mock = MockBackend(seeded_choice=ANSWERS, delay=delay, batch_size=3)
    mock.concurrency = 2
    return mock


if __name__ == "__main__":
    with ResponseStore(sys.argv[1]) as store:
        sample_sync(backend(float(sys.argv[2])), requests(), store=store, progress=False)
