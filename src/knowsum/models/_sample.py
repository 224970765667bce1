"""``sample()``: run requests through a backend, skipping what the store already holds.

Resumability: keys already stored as successes are not asked again; every new response is written to
the store as soon as it arrives (the backend's :meth:`~knowsum.models.Backend.generate_stream` hands
over each one as it finishes, even inside a batch), before it is yielded, so a killed run restarted
with the same requests finishes with every key stored exactly once. When responses arrive faster
than one per 50 ms, those arriving within 50 ms share one small transaction (a commit can cost more
than a fast HTTP answer).
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import nullcontext
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from knowsum.errors import BackendError
from knowsum.models._base import Backend
from knowsum.models._params import Request, Response
from knowsum.models._store import ResponseStore

__all__ = ["Plan", "plan", "sample", "sample_sync"]

_COMMIT_INTERVAL = 0.05
"""Seconds between store commits when responses arrive faster than that (else one commit each)."""


class _RateColumn(ProgressColumn):
    """Samples per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-/s" if speed is None else f"{speed:,.1f}/s", style="progress.data.speed")


def _progress(enabled: bool | None, description: str) -> Progress | None:
    if enabled is None:
        enabled = sys.stderr.isatty()
    if not enabled:
        return None
    return Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        _RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )


class Plan:
    """What a run has left to do: the distinct requests, their keys and the done keys.

    Attributes:
        requests: distinct requests (first occurrence of each key), in input order.
        keys: their store keys, same order.
        done: keys already holding a success in the store.
    """

    __slots__ = ("done", "keys", "requests")

    def __init__(self, requests: list[Request], keys: list[str], done: set[str]) -> None:
        self.requests = requests
        self.keys = keys
        self.done = done

    @property
    def pending(self) -> list[Request]:
        """Requests still to generate, in input order."""
        done = self.done
        return [r for r, k in zip(self.requests, self.keys, strict=True) if k not in done]


def plan(backend: Backend, requests: Iterable[Request], store: ResponseStore | None) -> Plan:
    """Compute keys, drop duplicate requests and look up which keys the store already holds."""
    seen: set[str] = set()
    reqs: list[Request] = []
    keys: list[str] = []
    for r in requests:
        k = backend.key(r)
        if k not in seen:
            seen.add(k)
            reqs.append(r)
            keys.append(k)
    done = store.done_keys(seen) if store is not None else set()
    return Plan(reqs, keys, done)


async def sample(
    backend: Backend,
    requests: Iterable[Request],
    *,
    store: ResponseStore | None = None,
    include_stored: bool = True,
    progress: bool | None = None,
    description: str = "sampling",
) -> AsyncIterator[Response]:
    """Yield one response per distinct request, generating only what ``store`` lacks.

    Args:
        backend: the model backend.
        requests: the draws wanted (duplicates by key are asked once).
        store: response store; ``None`` generates everything and stores nothing.
        include_stored: also yield the responses already in the store (first, before new ones).
        progress: show a rich progress bar (done/total, rate, elapsed, ETA) on stderr;
            ``None`` shows it when stderr is a terminal.
        description: label of the progress bar.

    Yields:
        Responses in completion order. Failed requests are yielded (and stored) with ``error`` set;
        a later run retries them.

    Raises:
        BackendError: a backend failure that is not specific to a request (unreachable endpoint, …).
    """
    p = plan(backend, requests, store)
    if include_stored and store is not None and p.done:
        for resp in store.responses([k for k in p.keys if k in p.done], errors=False):
            yield resp
    pending = p.pending
    bar = _progress(progress, description)
    with bar if bar is not None else nullcontext():
        task = bar.add_task(description, total=len(p.keys), completed=len(p.done)) if bar else None
        async for resp in _run(backend, pending, store):
            if bar is not None and task is not None:
                bar.advance(task)
            yield resp


async def _run(
    backend: Backend, pending: Sequence[Request], store: ResponseStore | None
) -> AsyncIterator[Response]:
    size = max(1, backend.batch_size)
    batches = [pending[i : i + size] for i in range(0, len(pending), size)]
    if not batches:
        return
    todo: asyncio.Queue[Sequence[Request]] = asyncio.Queue()
    for b in batches:
        todo.put_nowait(b)
    out: asyncio.Queue[Response | BaseException] = asyncio.Queue()

    async def worker() -> None:
        try:
            while not todo.empty():
                batch = todo.get_nowait()
                keys = {backend.key(r) for r in batch}
                n = 0
                async for resp in backend.generate_stream(batch):  # each response as it finishes
                    if resp.key not in keys:
                        raise BackendError(f"{backend.kind} backend answered a request it was not sent")
                    keys.discard(resp.key)
                    n += 1
                    out.put_nowait(resp)
                if n != len(batch):
                    raise BackendError(f"{backend.kind} backend returned {n} for {len(batch)} requests")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # handed to the consumer, which re-raises it
            out.put_nowait(exc)

    workers = [asyncio.create_task(worker()) for _ in range(min(max(1, backend.concurrency), len(batches)))]
    remaining = len(pending)
    last_commit = 0.0
    try:
        while remaining:
            arrived = [await out.get()]
            wait = last_commit + _COMMIT_INTERVAL - time.monotonic()
            if wait > 0:  # fast arrivals: at most one commit per interval (SQLite commits cost ~30-100 us)
                await asyncio.sleep(wait)
            while not out.empty():  # everything that arrived meanwhile: one small transaction
                arrived.append(out.get_nowait())
            fresh = _write(store, arrived)
            remaining -= len(fresh)
            last_commit = time.monotonic()
            for item in arrived:
                if isinstance(item, BaseException):
                    raise item
            for resp in fresh:
                yield resp
    finally:
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        leftover = []
        while not out.empty():  # finished but not consumed (early stop): keep them anyway
            leftover.append(out.get_nowait())
        _write(store, leftover)


def _write(store: ResponseStore | None, arrived: list[Response | BaseException]) -> list[Response]:
    """Store the responses among ``arrived`` in one transaction; return them."""
    fresh = [item for item in arrived if not isinstance(item, BaseException)]
    if store is not None and fresh:
        store.put_many(fresh)
    return fresh


def sample_sync(backend: Backend, requests: Iterable[Request], **options: Any) -> list[Response]:
    """Blocking :func:`sample`: all responses, in the order of the (distinct) requests.

    Takes the keyword options of :func:`sample`; closes nothing (the caller owns backend and store).
    """
    reqs = list(requests)

    async def collect() -> list[Response]:
        return [r async for r in sample(backend, reqs, **options)]

    got = {r.key: r for r in asyncio.run(collect())}
    keys = dict.fromkeys(backend.key(r) for r in reqs)
    return [got[k] for k in keys if k in got]
