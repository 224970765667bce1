"""A small OpenAI-compatible HTTP server on 127.0.0.1, with fault injection (tests, benchmarks, examples).

It answers ``POST …/chat/completions`` and ``POST …/completions`` with deterministic texts
(``"<last user text> | seed=<seed> | choice=<i>"``), honours ``n``, and reports token usage. Given
``items``, it answers instead with ``items_per_answer`` lines drawn from that list (Zipf-weighted,
a pure function of prompt, seed and choice), so a census against it finds repeated items. With
``fault_rate > 0`` each attempt fails with that probability, cycling through the fault kinds:

- ``429``: Too Many Requests with ``Retry-After: <retry_after>``;
- ``500``: Internal Server Error;
- ``slow``: answers only after ``slow_seconds`` (past the client's timeout);
- ``malformed``: HTTP 200 whose body is not valid JSON, or JSON without ``choices``;
- ``drop``: closes the connection without answering.

Three more kinds are injected only when named in ``faults`` (:data:`MORE_FAULTS`):

- ``trickle``: the answer's bytes, sent in 20 pieces over ``slow_seconds`` (each read is quick, the
  whole answer is not);
- ``null``: HTTP 200 whose choices' ``content`` is null (no text, no refusal);
- ``refusal``: HTTP 200 whose choices refuse (``content`` null, ``refusal`` a sentence), as OpenAI
  answers a request its model declines.

No request body fails more than ``max_faults_per_body`` times in a row, so a client with enough
retries always completes. Everything the server saw is kept in :attr:`LoopbackServer.log`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import random
import threading
import time
from dataclasses import InitVar, dataclass, field
from typing import Any, Self

from knowsum.models._closing import Closing

__all__ = ["FAULT_KINDS", "MORE_FAULTS", "Attempt", "LoopbackServer"]

FAULT_KINDS = ("429", "500", "slow", "malformed", "drop")
MORE_FAULTS = ("trickle", "null", "refusal")
"""Fault kinds injected only when asked for (not in the default cycle)."""


@dataclass(frozen=True, slots=True)
class Attempt:
    """One HTTP request the server received: when, a digest of its body and what it answered."""

    time: float
    body_digest: str
    outcome: str  # "ok" or one of FAULT_KINDS
    body: dict[str, Any] = field(compare=False, repr=False)


def _cumulative(n: int) -> tuple[float, ...]:
    """Cumulative Zipf weights ``1/1, 1/2, …, 1/n`` (the first items are the most frequent)."""
    return tuple(itertools.accumulate(1.0 / (rank + 1) for rank in range(n)))


def _text(
    last: str, seed: object, choice: int, items: tuple[str, ...], cum: tuple[float, ...], k: int
) -> str:
    if not items:
        return f"{last} | seed={seed} | choice={choice}"
    rng = random.Random(f"{last}\x1f{seed}\x1f{choice}")
    return "\n".join(rng.choices(items, cum_weights=cum, k=k))


def _answer(
    body: dict[str, Any],
    chat: bool,
    items: tuple[str, ...] = (),
    cum: tuple[float, ...] = (),
    per_answer: int = 1,
) -> dict[str, Any]:
    last = body["messages"][-1]["content"] if chat else body["prompt"]
    n = int(body.get("n", 1))
    choices = []
    for i in range(n):
        text = _text(str(last), body.get("seed"), i, items, cum, per_answer)
        item: dict[str, Any] = {"index": i, "finish_reason": "stop"}
        item.update({"message": {"role": "assistant", "content": text}} if chat else {"text": text})
        choices.append(item)
    words = len(str(last).split())
    usage = {"prompt_tokens": words, "completion_tokens": 5 * n, "total_tokens": words + 5 * n}
    kind = "chat.completion" if chat else "text_completion"
    return {
        "id": "cmpl-loopback",
        "object": kind,
        "model": body.get("model"),
        "choices": choices,
        "usage": usage,
    }


@dataclass(kw_only=True, eq=False, repr=False)
class LoopbackServer(Closing):
    """An OpenAI-compatible server in a background thread (use as a context manager).

    Args:
        fault_rate: probability that an attempt is answered with a fault.
        faults: the fault kinds to inject (cycled through in order).
        retry_after: ``Retry-After`` seconds sent with 429 (a string, sent verbatim).
        slow_seconds: delay of a ``slow`` answer.
        max_faults_per_body: at most this many consecutive faults for one request body.
        seed: seed of the fault draws.
        port: TCP port (0 = any free port).
        items: answer with lines drawn from these texts instead of echoing the prompt.
        items_per_answer: lines per answer when ``items`` is given.

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1`` once started.
        log: every :class:`Attempt`, in arrival order.
    """

    fault_rate: float = 0.0
    faults: tuple[str, ...] = FAULT_KINDS
    retry_after: str = "0.2"
    slow_seconds: float = 2.0
    max_faults_per_body: int = 3
    seed: InitVar[int] = 0
    port: int = 0
    items: tuple[str, ...] = ()
    items_per_answer: int = 10
    log: list[Attempt] = field(default_factory=list, init=False)
    _streak: dict[str, int] = field(default_factory=dict, init=False)
    _next_fault: int = field(default=0, init=False)
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)
    _server: asyncio.Server | None = field(default=None, init=False)
    _thread: threading.Thread | None = field(default=None, init=False)
    _ready: threading.Event = field(default_factory=threading.Event, init=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)

    def __post_init__(self, seed: int) -> None:
        unknown = set(self.faults) - set(FAULT_KINDS + MORE_FAULTS)
        if unknown:
            raise ValueError(f"unknown fault kinds {sorted(unknown)}; known: {FAULT_KINDS + MORE_FAULTS}")
        self.items = tuple(self.items)
        self._cum = _cumulative(len(self.items))
        self._rng = random.Random(seed)

    @property
    def base_url(self) -> str:
        """API root of the running server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> Self:
        self.start()
        return self

    def close(self) -> None:
        """Stop serving (:meth:`stop`): the end of a ``with`` block."""
        self.stop()

    def start(self) -> None:
        """Start serving in a daemon thread; returns once the port is bound."""
        self._thread = threading.Thread(target=self._serve_thread, name="loopback-openai", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("loopback server did not start")

    def stop(self) -> None:
        """Stop the server and join its thread."""
        if self._loop is not None and self._server is not None:
            self._loop.call_soon_threadsafe(self._server.close)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._server = None
        if self._thread is not None:
            self._thread.join(10)

    def serve_forever(self) -> None:
        """Serve in the calling thread until the process ends (benchmarks run it in a subprocess)."""
        asyncio.run(self._main(forever=True))

    def _serve_thread(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        self._loop = loop
        loop.run_until_complete(self._main(forever=False))
        loop.run_forever()
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()

    async def _main(self, forever: bool) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        if forever:
            await self._server.serve_forever()

    def _decide(self, digest: str) -> str:
        with self._lock:
            streak = self._streak.get(digest, 0)
            if self.faults and streak < self.max_faults_per_body and self._rng.random() < self.fault_rate:
                kind = self.faults[self._next_fault % len(self.faults)]
                self._next_fault += 1
                self._streak[digest] = streak + 1
                return kind
            self._streak[digest] = 0
            return "ok"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, target, _ = lines[0].split(" ", 2)
                headers = {
                    k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)
                }
                raw = await reader.readexactly(int(headers.get("content-length", "0")))
                if not await self._respond(method, target, raw, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, asyncio.CancelledError):
            pass  # client went away, or the server is shutting down
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _respond(self, method: str, target: str, raw: bytes, writer: asyncio.StreamWriter) -> bool:
        """Answer one request; False if the connection must be closed."""
        chat = target == "/v1/chat/completions"
        if method != "POST" or not (chat or target == "/v1/completions"):
            self._write(writer, 404, b'{"error": {"message": "not found"}}')
            return True
        digest = hashlib.sha256(raw).hexdigest()
        outcome = self._decide(digest)
        body = json.loads(raw) if raw else {}
        self.log.append(Attempt(time.time(), digest, outcome, body))
        if outcome == "drop":
            return False
        if outcome == "429":
            self._write(
                writer, 429, b'{"error": {"message": "slow down"}}', {"Retry-After": self.retry_after}
            )
        elif outcome == "500":
            self._write(writer, 500, b'{"error": {"message": "boom"}}')
        elif outcome == "malformed":
            self._write(writer, 200, b'{"choices": [' if self._next_fault % 2 else b'{"object": "nothing"}')
        else:
            if outcome == "slow":
                await asyncio.sleep(self.slow_seconds)
            answer = _answer(body, chat, self.items, self._cum, self.items_per_answer)
            if outcome in ("null", "refusal") and chat:
                for choice in answer["choices"]:
                    choice["message"]["content"] = None
                    if outcome == "refusal":
                        choice["message"]["refusal"] = "I can't help with that."
            payload = json.dumps(answer).encode()
            if outcome == "trickle":
                await self._trickle(writer, payload)
            else:
                self._write(writer, 200, payload)
        await writer.drain()
        return True

    async def _trickle(self, writer: asyncio.StreamWriter, payload: bytes) -> None:
        """The head at once, then the body in 20 pieces over ``slow_seconds``."""
        head, body = self._head(200, payload), payload
        writer.write(head)
        step = max(1, -(-len(body) // 20))
        for i in range(0, len(body), step):
            await asyncio.sleep(self.slow_seconds / 20)
            writer.write(body[i : i + step])
            await writer.drain()

    @staticmethod
    def _head(status: int, payload: bytes, extra: dict[str, str] | None = None) -> bytes:
        reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error"}[status]
        head = [
            f"HTTP/1.1 {status} {reason}",
            "Content-Type: application/json",
            f"Content-Length: {len(payload)}",
        ]
        head += [f"{k}: {v}" for k, v in (extra or {}).items()]
        return ("\r\n".join(head) + "\r\n\r\n").encode()

    @classmethod
    def _write(
        cls, writer: asyncio.StreamWriter, status: int, payload: bytes, extra: dict[str, str] | None = None
    ) -> None:
        writer.write(cls._head(status, payload, extra) + payload)

    def counts(self, since: int = 0) -> dict[str, int]:
        """Number of attempts per outcome (``ok`` and each fault kind), from ``log[since:]`` on."""
        out: dict[str, int] = {}
        for a in self.log[since:]:
            out[a.outcome] = out.get(a.outcome, 0) + 1
        return out
