"""OpenAI-compatible HTTP backend (vLLM, llama.cpp ``llama-server``, Ollama, LM Studio, OpenAI).

Bounded concurrency, a per-request timeout, and retries with exponential backoff and full jitter on
429/5xx, timeouts, connection errors and malformed bodies, waiting at least ``Retry-After`` when the
server sends it. A request that still fails is returned as an error response (never dropped). The API
key is read from ``KNOWSUM_API_KEY`` (else ``OPENAI_API_KEY``) and is never stored, logged or printed.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import time
from collections.abc import Sequence
from typing import Any

import httpx

from knowsum.errors import BackendError, ConfigError, EndpointUnreachableError
from knowsum.models._base import Backend
from knowsum.models._params import Request, Response

__all__ = ["OpenAIBackend", "api_key_from_env"]

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
_FATAL_STATUS = {
    401: "unauthorized: set KNOWSUM_API_KEY",
    403: "forbidden: check the API key's access",
    404: "not found: check --base-url (usually ends in /v1) and the model name",
}


def api_key_from_env() -> str | None:
    """The API key from ``KNOWSUM_API_KEY``, falling back to ``OPENAI_API_KEY``."""
    return os.environ.get("KNOWSUM_API_KEY") or os.environ.get("OPENAI_API_KEY") or None


class _RetryableError(Exception):
    """A retryable failure; ``wait`` is the server's Retry-After, if any."""

    def __init__(self, message: str, wait: float | None = None, connect: bool = False) -> None:
        super().__init__(message)
        self.wait = wait
        self.connect = connect


def _retry_after(value: str | None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or HTTP-date), capped at 300."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return min(max(seconds, 0.0), 300.0)


class OpenAIBackend(Backend):
    """Any OpenAI-compatible endpoint.

    Args:
        model: model name sent to the server (also the model id of store keys).
        base_url: API root, e.g. ``http://127.0.0.1:8000/v1``.
        api: ``"chat"`` (``/chat/completions``, a plain prompt becomes one user message) or
            ``"completions"`` (``/completions``, raw prompt; chat messages are not allowed).
        concurrency: requests in flight at most.
        timeout: seconds per HTTP request.
        max_retries: retries after the first attempt.
        backoff: base of the exponential backoff: attempt ``a`` waits
            ``uniform(0, min(backoff_max, backoff * 2**a))`` seconds, at least Retry-After.
        backoff_max: cap of one backoff wait.
        n_per_request: ask for up to this many choices (``n``) per HTTP request, for consecutive
            samples of one prompt (servers that support ``n``); they share the first sample's seed.
        extra_sampling: send ``top_k``/``min_p`` (vLLM, llama.cpp and Ollama honour them; OpenAI
            rejects them). Default: on unless the host is ``api.openai.com``.
        api_key: explicit key (default :func:`api_key_from_env`).
        transport: custom httpx transport (tests).
    """

    kind = "openai"

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api: str = "chat",
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 8,
        backoff: float = 0.5,
        backoff_max: float = 30.0,
        n_per_request: int = 1,
        extra_sampling: bool | None = None,
        api_key: str | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__()
        if api not in ("chat", "completions"):
            raise ConfigError(f"invalid api={api!r}: use 'chat' or 'completions'")
        for name, value, low in (
            ("concurrency", concurrency, 1),
            ("n_per_request", n_per_request, 1),
            ("max_retries", max_retries, 0),
        ):
            if value < low:
                raise ConfigError(f"invalid {name}={value}: must be >= {low}")
        if not timeout > 0:
            raise ConfigError(f"invalid timeout={timeout}: must be > 0 seconds")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"invalid base URL {base_url!r}: expected http(s)://host[:port]/v1")
        self.model_id = model
        self.base_url = base_url.rstrip("/")
        self.api = api
        self.endpoint = f"{self.base_url}/{'chat/completions' if api == 'chat' else 'completions'}"
        self._url = httpx.URL(self.endpoint)  # parsed once, not per request
        self.concurrency = concurrency
        self.batch_size = n_per_request
        self.max_retries = max_retries
        self.backoff = backoff
        self.backoff_max = backoff_max
        self.extra_sampling = (
            "api.openai.com" not in self.base_url if extra_sampling is None else extra_sampling
        )
        key = api_key if api_key is not None else api_key_from_env()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self._client_options: dict[str, Any] = {
            "headers": headers,
            "timeout": httpx.Timeout(timeout),
            "limits": httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency),
            "transport": transport,
        }
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client = httpx.AsyncClient(**self._client_options)
        self._slots = asyncio.Semaphore(concurrency)
        self._reached = False

    def _bind(self) -> None:
        """Use a connection pool and semaphore of the running event loop (new loop → new pool)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                self._client = httpx.AsyncClient(**self._client_options)
                self._slots = asyncio.Semaphore(self.concurrency)
            self._loop = loop

    def __repr__(self) -> str:  # never shows the key
        return f"OpenAIBackend(model={self.model_id!r}, endpoint={self.endpoint!r})"

    async def aclose(self) -> None:
        """Close the HTTP connection pool (a pool of an earlier, finished event loop died with it)."""
        if self._loop in (None, asyncio.get_running_loop()):
            await self._client.aclose()

    def body(self, requests: Sequence[Request]) -> dict[str, Any]:
        """The JSON body asking for ``len(requests)`` choices of the first request's prompt."""
        first = requests[0]
        p = first.params
        body: dict[str, Any] = {
            "model": self.model_id,
            "temperature": p.temperature,
            "top_p": p.top_p,
            "max_tokens": p.max_tokens,
        }
        if self.api == "chat":
            body["messages"] = first.chat_messages()
        elif first.messages is not None:
            raise ConfigError("chat messages need api='chat'; the completions endpoint takes a plain prompt")
        else:
            body["prompt"] = first.prompt
        if first.seed is not None:
            body["seed"] = first.seed
        if p.stop:
            body["stop"] = list(p.stop)
        if self.extra_sampling:
            body["top_k"] = p.top_k if p.top_k > 0 else -1
            body["min_p"] = p.min_p
        if len(requests) > 1:
            body["n"] = len(requests)
        return body

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        """One response per request; consecutive draws of a prompt share a call when ``n_per_request > 1``."""
        self._bind()
        groups: list[list[Request]] = []
        for r in requests:
            g = groups[-1] if groups else None
            if g and len(g) < self.batch_size and g[0].payload == r.payload and g[0].params == r.params:
                g.append(r)
            else:
                groups.append([r])
        if len(groups) == 1:
            return await self._call(groups[0])
        results = await asyncio.gather(*(self._call(g) for g in groups))
        return [resp for chunk in results for resp in chunk]

    async def _call(self, group: list[Request]) -> list[Response]:
        body = self.body(group)
        start = time.perf_counter()
        last = _RetryableError("no attempt made")
        for attempt in range(self.max_retries + 1):
            try:
                async with self._slots:
                    data = await self._post(body)
                return self._parse(group, data, time.perf_counter() - start)
            except _RetryableError as exc:
                last = exc
            if attempt < self.max_retries:
                delay = random.uniform(0.0, min(self.backoff_max, self.backoff * 2**attempt))
                await asyncio.sleep(max(delay, last.wait or 0.0))
        if last.connect and not self._reached:
            raise EndpointUnreachableError(
                f"cannot reach {self.base_url} after {self.max_retries + 1} attempts ({last}); "
                "is the server running? check --base-url"
            )
        msg = f"failed after {self.max_retries + 1} attempts: {last}"
        return [self.failure(r, msg, time.perf_counter() - start) for r in group]

    async def _post(self, body: dict[str, Any]) -> Any:
        try:
            resp = await self._client.post(self._url, json=body)
        except httpx.TimeoutException as exc:
            raise _RetryableError(f"timeout ({type(exc).__name__})") from exc
        except httpx.ConnectError as exc:
            raise _RetryableError(f"connection failed: {exc}", connect=True) from exc
        except httpx.TransportError as exc:
            raise _RetryableError(f"connection error: {type(exc).__name__}: {exc}") from exc
        self._reached = True
        status = resp.status_code
        if status in _FATAL_STATUS:
            raise BackendError(f"{self.endpoint} answered HTTP {status} ({_FATAL_STATUS[status]})")
        if status in _RETRY_STATUS or status >= 500:
            raise _RetryableError(f"HTTP {status}", wait=_retry_after(resp.headers.get("retry-after")))
        if status >= 400:
            raise _RetryableError(f"HTTP {status}: {resp.text[:200]}")
        try:
            return resp.json()
        except ValueError as exc:
            raise _RetryableError(f"malformed JSON body: {resp.text[:80]!r}") from exc

    def _parse(self, group: list[Request], data: Any, latency: float) -> list[Response]:
        try:
            choices = data["choices"]
            if len(choices) > 1:
                choices = sorted(choices, key=lambda c: c.get("index", 0))
            texts = [c["message"]["content"] if self.api == "chat" else c["text"] for c in choices]
            reasons = [str(c.get("finish_reason") or "stop") for c in choices]
            usage = data.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens") or 0)
            completion_tokens = int(usage.get("completion_tokens") or 0)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise _RetryableError(f"malformed response: missing {exc}") from exc
        if len(texts) < len(group) or not all(isinstance(t, str) for t in texts):
            raise _RetryableError(f"malformed response: {len(texts)} choices for {len(group)} samples")
        share = completion_tokens // len(group)
        return [
            self.response(r, t, why, prompt_tokens=prompt_tokens, completion_tokens=share, latency=latency)
            for r, t, why in zip(group, texts, reasons, strict=False)
        ]
