"""A sampling run used by test_resume.py (run as a subprocess, killed with SIGKILL midway).

``resume_worker.py STORE HOLD``: with ``HOLD > 0`` the mock answers that many requests and then waits
(``tests/_held.py``) until the test kills the process."""

from __future__ import annotations

import sys

from knowsum.models import GenerationParams, MockBackend, ResponseStore, make_requests, sample_sync

ANSWERS = [f"answer-{i}" for i in range(1000)]


def requests():  # type: ignore[no-untyped-def]
    return make_requests([f"item {i}" for i in range(40)], GenerationParams(seed=9), n=10)


def backend() -> MockBackend:
    mock = MockBackend(seeded_choice=ANSWERS, batch_size=3)
    mock.concurrency = 2
    return mock


if __name__ == "__main__":
    if int(sys.argv[2]) > 0:
        from tests._held import hold_mock

        hold_mock(int(sys.argv[2]))
    with ResponseStore(sys.argv[1]) as store:
        sample_sync(backend(), requests(), store=store, progress=False)
