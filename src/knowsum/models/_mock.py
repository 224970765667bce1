"""The scripted mock backend: shipped in the package for tests, examples and dry runs."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Mapping, Sequence

from knowsum.models._base import Backend
from knowsum.models._params import Request, Response

__all__ = ["MockBackend", "echo"]

Responder = Callable[[Request], str]


def echo(request: Request) -> str:
    """Default mock answer: the last user text and the sample index (``"<prompt> #<index>"``)."""
    text = request.prompt if request.prompt is not None else (request.messages or (("", ""),))[-1][1]
    return f"{text} #{request.sample_index}"


class MockBackend(Backend):
    """A backend that answers from a script and records every request it was asked.

    Args:
        script: how to answer: a function of the request; a sequence of texts (sample index
            ``i`` gets ``script[i % len(script)]``); or a mapping prompt → sequence of texts.
            Default :func:`echo`.
        model_id: model id used in keys.
        delay: seconds to sleep per batch (to simulate a slow model).
        batch_size: requests per :meth:`generate` call sent by :func:`~knowsum.models.sample`.
        seeded_choice: if given, answer with ``random.Random(request.seed).choice(seeded_choice)``
            — a seed-dependent draw, like a real sampler.

    Attributes:
        calls: every request received, in order.
    """

    kind = "mock"

    def __init__(
        self,
        script: Responder | Sequence[str] | Mapping[str, Sequence[str]] | None = None,
        *,
        model_id: str = "mock",
        delay: float = 0.0,
        batch_size: int = 64,
        seeded_choice: Sequence[str] | None = None,
    ) -> None:
        super().__init__()
        self.model_id = model_id
        self.endpoint = "mock"
        self.delay = delay
        self.batch_size = batch_size
        self.calls: list[Request] = []
        self._answer = self._responder(script, seeded_choice)

    @staticmethod
    def _responder(
        script: Responder | Sequence[str] | Mapping[str, Sequence[str]] | None, choices: Sequence[str] | None
    ) -> Responder:
        if choices is not None:
            options = list(choices)
            return lambda r: random.Random(r.seed).choice(options)
        if script is None:
            return echo
        if callable(script):
            return script
        if isinstance(script, Mapping):
            table = {k: list(v) for k, v in script.items()}
            return lambda r: table[str(r.prompt)][r.sample_index % len(table[str(r.prompt)])]
        texts = list(script)
        return lambda r: texts[r.sample_index % len(texts)]

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """Answer each request from the script (after ``delay`` seconds; the latency is measured)."""
        t0 = time.perf_counter()
        await asyncio.sleep(self.delay)  # also 0: yields to the event loop like a real backend
        self.calls.extend(requests)
        out = []
        for r in requests:
            text = self._answer(r)
            latency = time.perf_counter() - t0
            out.append(self.response(r, text, "stop", completion_tokens=len(text.split()), latency=latency))
        return out
