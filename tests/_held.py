"""Runs that stop at a chosen point until the test acts: interruption tests driven by events, not the clock.

A test that starts a run, waits until it has stored k responses and then interrupts it races the run
whenever the machine is busy: the run may finish before the signal lands. Here the run itself stops
after its k-th answer (in the child process, by patching the backend before the CLI starts), so the
test can wait for exactly k stored rows, act (SIGINT, SIGKILL, kill a server), and, where the run
must go on, let it go by creating a file. Nothing depends on how fast either side runs.

Each function patches a backend class in the calling process; call it in the child before
``knowsum.cli.main``. ``release``: a path; the held call goes on once that file exists (``None``:
never, the test ends the process).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CHILD", "hold_http", "hold_local", "hold_mock", "released"]

CHILD = (
    "import sys, tests._held as h; getattr(h, sys.argv[1])(int(sys.argv[2]), None if sys.argv[3] == '-' "
    "else sys.argv[3]); from knowsum.cli import main; sys.exit(main(sys.argv[4:]))"
)
"""``python -c CHILD HOLDER K RELEASE|- knowsum-args…``: the knowsum CLI with ``HOLDER(K, RELEASE)`` applied
(run with the repository root on ``PYTHONPATH``)."""


def released(release: str | None) -> bool:
    """Whether the test has let the held run go on (its ``release`` file exists)."""
    return release is not None and Path(release).exists()


async def _wait_async(release: str | None) -> None:
    while not released(release):  # polls a file the test creates; the run cannot proceed meanwhile
        await asyncio.sleep(0.01)


def _wait(release: str | None) -> None:
    while not released(release):
        time.sleep(0.01)


def hold_mock(answer: int, release: str | None = None) -> None:
    """:class:`~knowsum.models.MockBackend` answers ``answer`` requests, one per call, then holds.

    Requests are counted when a call starts (before it awaits), so concurrent calls cannot both slip
    past the limit; ``answer`` a multiple of the batch size stops at exactly ``answer`` responses.
    """
    from knowsum.models import MockBackend

    generate = MockBackend.generate
    asked = [0]

    async def held(self: MockBackend, requests: Sequence[Any]) -> list[Any]:
        asked[0] += len(requests)
        if asked[0] > answer:
            await _wait_async(release)
        return await generate(self, requests)

    MockBackend.generate = held  # type: ignore[method-assign]


def hold_local(answer: int, release: str | None = None) -> None:
    """The local backend's batched decoder hands over ``answer`` finished samples, then holds (mid-run:
    the decoder thread stops inside its run, with sequences still in its slots)."""
    from knowsum.models._local import LocalBackend

    batched = LocalBackend._batched
    handed = [0]
    lock = threading.Lock()

    def held(
        self: LocalBackend, llm: Any, requests: Any, emit: Callable[..., None], cancel: Any = None
    ) -> None:
        def gate(i: int, resp: Any) -> None:
            with lock:
                handed[0] += 1
                over = handed[0] > answer
            if over:
                _wait(release)
            emit(i, resp)

        batched(self, llm, requests, gate, cancel)

    LocalBackend._batched = held  # type: ignore[method-assign]


def hold_http(answer: int, release: str | None = None) -> None:
    """httpx sends POSTs until ``answer`` of them were answered 200, then holds every later POST."""
    import httpx

    handle = httpx.AsyncHTTPTransport.handle_async_request
    ok = [0]

    async def held(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        if request.method == "POST" and ok[0] >= answer:
            await _wait_async(release)
        response = await handle(self, request)
        if request.method == "POST" and response.status_code == 200:
            ok[0] += 1
        return response

    httpx.AsyncHTTPTransport.handle_async_request = held  # type: ignore[method-assign]
