"""The abstract backend: one required async method, a batch of requests → responses."""

from __future__ import annotations

import abc
import hashlib
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

from knowsum.models._params import _SEP, GenerationParams, Request, Response
from knowsum.models._tokens import TokenCounter, estimated_counter

__all__ = ["Backend"]


class Backend(abc.ABC):
    """A model that turns a batch of :class:`Request` into :class:`Response` (same order).

    Subclasses set :attr:`kind`, :attr:`model_id` and :attr:`endpoint` (together with the request they
    form the store key) and implement :meth:`generate`. A request that fails for good is returned as a
    :class:`Response` whose ``error`` is set; it is never dropped. :func:`knowsum.models.sample`
    sends batches of at most :attr:`batch_size` requests, at most :attr:`concurrency` at a time.
    """

    kind: str = "abstract"
    model_id: str = ""
    endpoint: str = ""
    batch_size: int = 1
    concurrency: int = 1
    final: bool = False
    """Its failures are final: asking again cannot answer them (a replay of recorded answers), so a
    run scores the answers it has (an instrument that scores draws) rather than stopping for a rerun."""

    def __init__(self) -> None:
        self._prefixes: dict[GenerationParams, Any] = {}

    @abc.abstractmethod
    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """Generate one response per request, in order."""

    async def generate_stream(self, requests: Sequence[Request]) -> AsyncIterator[Response]:
        """Yield one response per request as each finishes (any order).

        :func:`knowsum.models.sample` stores every response the moment it is yielded. The default
        yields :meth:`generate`'s responses once the whole batch is done; a backend that finishes
        requests one by one within a batch (the batched local backend) overrides it.
        """
        for resp in await self.generate(requests):
            yield resp

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        """Release resources (HTTP connections, model memory)."""

    def describe(self) -> dict[str, str]:
        """The key-relevant identity of this backend (never contains credentials)."""
        return {"backend": self.kind, "model": self.model_id, "endpoint": self.endpoint}

    def token_counter(self) -> TokenCounter:
        """How this backend's prompts are counted before they are sent (:mod:`knowsum.models._tokens`):
        the offline estimate ⌈characters / 4⌉ unless the backend has a tokenizer of its own (a local
        model overrides it)."""
        return estimated_counter()

    def key(self, request: Request) -> str:
        """The store key of ``request`` on this backend (hex sha256, see :mod:`._params`)."""
        prefix = self._prefixes.get(request.params)
        if prefix is None:
            prefix = hashlib.sha256(
                _SEP.join(
                    (
                        self.kind.encode(),
                        self.model_id.encode(),
                        self.endpoint.encode(),
                        request.params.to_json().encode(),
                        b"",
                    )
                )
            )
            self._prefixes[request.params] = prefix
        h = prefix.copy()
        h.update(request.payload + _SEP + str(request.sample_index).encode())
        return h.hexdigest()

    def response(self, request: Request, text: str, finish_reason: str, **fields: Any) -> Response:
        """Build a :class:`Response` for ``request`` stamped with this backend's identity."""
        fields.setdefault("created", time.time())
        return Response(
            key=self.key(request),
            request=request,
            text=text,
            finish_reason=finish_reason,
            backend=self.kind,
            model=self.model_id,
            endpoint=self.endpoint,
            **fields,
        )

    def failure(self, request: Request, error: str, latency: float = 0.0) -> Response:
        """A :class:`Response` recording that ``request`` failed for good."""
        return self.response(request, "", "error", error=error, latency=latency)
