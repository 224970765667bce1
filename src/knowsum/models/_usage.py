"""Measure what a run used: :class:`UsageMeter` → :class:`knowsum.records.Usage`.

A run wraps its backend once (``meter = UsageMeter(backend, store)``) and samples through
``meter.backend``. The wrapper answers exactly like the backend it wraps (same identity, same store
keys: it delegates :meth:`~knowsum.models.Backend.key`) and notes every key the sampling asks about —
:func:`knowsum.models.sample` computes the key of every request before looking in the store, so the
keys noted are the run's distinct requests, answered now or earlier. :meth:`UsageMeter.usage` then
sums over those responses, read back from the store::

    requests           = |distinct keys|
    asked              = responses generated through the wrapper during this run
    prompt_tokens      = Σ prompt_tokens      (as the backend counted them when generating)
    completion_tokens  = Σ completion_tokens
    response_seconds   = Σ latency                        (overlapping requests add up)
    generation_seconds = |⋃ [created − latency, created]|  (wall-clock time the model spent on them)
    wall_seconds       = time from UsageMeter() to usage()

``generation_seconds`` is the time the answers took when they were generated, by this run or an
earlier one: a rerun that reads every answer from the store keeps it, while its ``wall_seconds`` is
the rerun's own (seconds). With batched or concurrent requests ``response_seconds`` counts the same
wall-clock second once per request in flight, so it is far above the time the model worked.

Without a store, only what the wrapper saw generated is counted.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from typing import Any

from knowsum.models._base import Backend
from knowsum.models._params import Request, Response
from knowsum.models._store import ResponseStore
from knowsum.models._tokens import TokenCounter
from knowsum.records import Usage

__all__ = ["MeteredBackend", "UsageMeter", "union_seconds", "usage_of"]


class MeteredBackend(Backend):
    """A backend that forwards everything to ``inner`` and notes the keys and fresh responses.

    Args:
        inner: The backend that answers.
        on_response: Called with every response generated (a progress display, a fault injector).
    """

    def __init__(self, inner: Backend, on_response: Callable[[Response], None] | None = None) -> None:
        super().__init__()
        self.inner = inner
        self.on_response = on_response
        self.kind = inner.kind
        self.model_id = inner.model_id
        self.endpoint = inner.endpoint
        self.batch_size = inner.batch_size
        self.concurrency = inner.concurrency
        self.keys: dict[str, None] = {}
        self.fresh: dict[str, Response] = {}

    def __getattr__(self, name: str) -> Any:  # anything else a caller reads (api, …) is the inner one's
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def token_counter(self) -> TokenCounter:
        """The wrapped backend's (:meth:`Backend.token_counter`)."""
        return self.inner.token_counter()

    def key(self, request: Request) -> str:
        """The inner backend's key, noted as one of the run's requests."""
        k = self.inner.key(request)
        self.keys[k] = None
        return k

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """The inner backend's responses (noted)."""
        out = await self.inner.generate(requests)
        for r in out:
            self._note(r)
        return out

    async def generate_stream(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """The inner backend's responses as each finishes (noted)."""
        async for r in self.inner.generate_stream(requests):
            self._note(r)
            yield r

    def _note(self, r: Response) -> None:
        self.fresh[r.key] = r
        if self.on_response is not None:
            self.on_response(r)

    async def aclose(self) -> None:
        """Nothing: the caller closes the inner backend it opened."""

    def describe(self) -> dict[str, str]:
        """The inner backend's identity."""
        return self.inner.describe()


def union_seconds(spans: Iterable[tuple[float, float]]) -> float:
    """The length of the union of the intervals ``(start, end)`` (empty ones count nothing)."""
    total, cur_start, cur_end = 0.0, 0.0, None
    for start, end in sorted(s for s in spans if s[1] > s[0]):
        if cur_end is None or start > cur_end:
            total += 0.0 if cur_end is None else cur_end - cur_start
            cur_start, cur_end = start, end
        else:
            cur_end = max(cur_end, end)
    return total + (0.0 if cur_end is None else cur_end - cur_start)


def usage_of(responses: Iterable[Response], *, asked: int = 0, wall_seconds: float = 0.0) -> Usage:
    """Sum tokens and latency over ``responses`` (one per distinct request) into a :class:`Usage`."""
    n = failed = p_tok = c_tok = 0
    seconds = 0.0
    spans: list[tuple[float, float]] = []
    for r in responses:
        n += 1
        failed += 0 if r.ok else 1
        p_tok += max(0, r.prompt_tokens or 0)
        c_tok += max(0, r.completion_tokens or 0)
        seconds += max(0.0, r.latency or 0.0)
        if r.created > 0:
            spans.append((r.created - max(0.0, r.latency or 0.0), r.created))
    return Usage(
        requests=n,
        asked=asked,
        failed=failed,
        prompt_tokens=p_tok,
        completion_tokens=c_tok,
        response_seconds=round(seconds, 6),
        generation_seconds=round(union_seconds(spans), 6),
        wall_seconds=round(max(0.0, wall_seconds), 6),
    )


class UsageMeter:
    """Meter one run: sample through :attr:`backend`, then read :meth:`usage`.

    Args:
        backend: The backend the run samples with (not closed here).
        store: The run's response store (``None``: only fresh responses are counted).
    """

    def __init__(self, backend: Backend, store: ResponseStore | None) -> None:
        self.backend = MeteredBackend(backend)
        self.store = store
        self._t0 = time.perf_counter()

    def usage(self) -> Usage:
        """Requests, tokens and time of the responses the run used (see the module docstring)."""
        wall = time.perf_counter() - self._t0
        b = self.backend
        keys = list(b.keys)
        found: dict[str, Response] = {}
        if self.store is not None and keys:
            found = {r.key: r for r in self.store.responses(keys)}
        for k, r in b.fresh.items():  # a fresh response the store lacks (no store, a refused write)
            found.setdefault(k, r)
        used = [found[k] for k in keys if k in found]
        asked = sum(1 for k in b.fresh if k in b.keys)
        return usage_of(used, asked=asked, wall_seconds=wall)
