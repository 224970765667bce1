"""OpenAI-compatible HTTP backend (vLLM, llama.cpp ``llama-server``, Ollama, LM Studio, OpenAI).

Bounded concurrency, a deadline per request (the whole answer within ``timeout``, not one read, so
a server that trickles bytes cannot hold a slot), and retries with exponential backoff and full
jitter on 408/409/425/429/5xx, timeouts, connection errors and malformed bodies, waiting at least
``Retry-After`` when the server sends it. A connection refused before the endpoint ever answered is
not retried: nothing listens on that port, and waiting does not change that (a wrong ``--base-url``,
a server not started); once the endpoint has answered, a refused connection (a server restarting) is
retried. A request that still fails is returned as an error response (never dropped), its error
quoting the server's own reason.

A request the server rejects as invalid (any other 4xx, or a 5xx whose body names a validation error,
:func:`~knowsum.models._servers.is_validation_error`) is never sent again: the same body cannot
succeed. Before any request has succeeded such a rejection stops the run (:class:`BackendError`
quoting the server, e.g. a sampling field this server does not take); afterwards it is specific to
that request, which is recorded as failed.

The sampling fields sent depend on the server family (:mod:`._servers`: vLLM, llama.cpp's servers,
Ollama, OpenAI), given as ``server_kind`` or detected from the endpoint on first use. The API key is
read from ``KNOWSUM_API_KEY`` (else ``OPENAI_API_KEY``) and is never stored, logged or printed.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import re
import time
from collections.abc import Sequence
from typing import Any

import httpx

from knowsum.errors import BackendError, ConfigError, EndpointUnreachableError
from knowsum.models._base import Backend
from knowsum.models._params import GenerationParams, Request, Response
from knowsum.models._servers import (
    SERVER_KINDS,
    check_ollama,
    detect_kind,
    is_validation_error,
    refusal_of,
    sampling_fields,
    server_reason,
)

__all__ = ["OpenAIBackend", "api_key_from_env"]

_SAMPLING_FIELDS = ("top_k", "min_p", "repeat_penalty", "repetition_penalty", "Unrecognized request argument")
"""Words of a rejection that may come from a sampling field of another server family."""
_BODY_FIELDS = ("temperature", "top_p", "max_tokens")
"""The sampling parameters every server family takes as they are (seed, stop and top-k/min-p follow)."""
_PROBE_TIMEOUT = 10.0
"""Seconds at most for one probe of the server family (``GET /models`` …)."""
_FATAL_STATUS = {
    401: "unauthorized: set KNOWSUM_API_KEY",
    403: "forbidden: check the API key's access",
    404: "not found: check --base-url (usually ends in /v1) and the model name",
}


def api_key_from_env() -> str | None:
    """The API key from ``KNOWSUM_API_KEY``, falling back to ``OPENAI_API_KEY``."""
    return os.environ.get("KNOWSUM_API_KEY") or os.environ.get("OPENAI_API_KEY") or None


class _RetryableError(Exception):
    """A retryable failure; ``wait`` is the server's Retry-After, if any; ``refused``: the host
    refused the connection (nothing listens on the port)."""

    def __init__(
        self, message: str, wait: float | None = None, connect: bool = False, refused: bool = False
    ) -> None:
        super().__init__(message)
        self.wait = wait
        self.connect = connect
        self.refused = refused


class _RejectedError(Exception):
    """The server rejected the request itself as invalid: sending it again cannot succeed."""


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from (httpx → httpcore → the OS error)."""
    chain: list[BaseException] = []
    cur: BaseException | None = exc
    while cur is not None and all(cur is not c for c in chain):
        chain.append(cur)
        cur = cur.__cause__ or cur.__context__
    return chain


def _os_reason(exc: BaseException) -> str:
    """The OS's words for a transport failure ("Connection refused"), without Python's ``[Errno N]``."""
    for cause in reversed(_causes(exc)):
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
    return re.sub(r"^\[Errno -?\d+\] ", "", str(exc)) or type(exc).__name__


def _transport_error(exc: httpx.TransportError, doing: str = "") -> _RetryableError:
    """The retryable error of a timeout, refused connection or broken transport."""
    if isinstance(exc, httpx.TimeoutException):
        return _RetryableError(f"timeout{' ' + doing if doing else ''} ({type(exc).__name__})")
    if isinstance(exc, httpx.ConnectError):
        refused = any(isinstance(c, ConnectionRefusedError) for c in _causes(exc))
        return _RetryableError(f"connection failed: {_os_reason(exc)}", connect=True, refused=refused)
    return _RetryableError(f"connection error: {type(exc).__name__}: {_os_reason(exc)}")


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
        timeout: seconds a request may take, the whole answer (retried after).
        max_retries: retries after the first attempt.
        backoff: base of the exponential backoff: attempt ``a`` waits
            ``uniform(0, min(backoff_max, backoff * 2**a))`` seconds, at least Retry-After.
        backoff_max: cap of one backoff wait.
        n_per_request: ask for up to this many choices (``n``) per HTTP request, for consecutive
            samples of one prompt (servers that support ``n``); they share the first sample's seed.
        server_kind: the server family, which decides how "top-k off / min-p off" is sent
            (:mod:`._servers`): ``vllm``, ``llama.cpp`` (llama-server and llama-cpp-python's server),
            ``ollama``, ``openai``, ``generic``, or ``auto`` (default: detected from the endpoint
            on first use; :attr:`server_kind` then names the family found).
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
        server_kind: str = "auto",
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
        if server_kind not in SERVER_KINDS:
            raise ConfigError(f"invalid server kind {server_kind!r}: use one of {', '.join(SERVER_KINDS)}")
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
        self._timeout = timeout
        if server_kind == "auto" and httpx.URL(self.base_url).host == "api.openai.com":
            server_kind = "openai"
        self._kind: str | None = None if server_kind == "auto" else server_kind
        self._ollama_checked: set[tuple[int, float]] = set()
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
        self._probe = asyncio.Lock()
        self._reached = False
        self._succeeded = False

    def _bind(self) -> None:
        """Use a connection pool and semaphore of the running event loop (new loop → new pool)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None:
                self._client = httpx.AsyncClient(**self._client_options)
                self._slots = asyncio.Semaphore(self.concurrency)
                self._probe = asyncio.Lock()
            self._loop = loop

    @property
    def server_kind(self) -> str:
        """The server family whose sampling fields are sent (``auto`` until detected)."""
        return self._kind or "auto"

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
        fields = p.as_dict()
        body: dict[str, Any] = {"model": self.model_id, **{k: fields[k] for k in _BODY_FIELDS}}
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
        body.update(sampling_fields(self._kind or "generic", p))
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

    async def _ready(self, params: GenerationParams) -> None:
        """Detect the server family once (``auto``); on Ollama, check the model samples as asked."""
        try:
            if self._kind is None:
                async with self._probe:
                    if self._kind is None:
                        timeout = min(self._timeout, _PROBE_TIMEOUT)
                        self._kind = await detect_kind(self._client, self.base_url, timeout)
                        self._reached = True
            wanted = (params.top_k, params.min_p)
            if self._kind == "ollama" and wanted not in self._ollama_checked:
                timeout = min(self._timeout, _PROBE_TIMEOUT)
                await check_ollama(self._client, self.base_url, self.model_id, params, timeout)
                self._ollama_checked.add(wanted)
        except httpx.TransportError as exc:
            raise _transport_error(exc, "probing the server") from exc

    async def _call(self, group: list[Request]) -> list[Response]:
        start = time.perf_counter()
        last = _RetryableError("no attempt made")
        for attempt in range(self.max_retries + 1):
            try:
                async with self._slots:
                    await self._ready(group[0].params)
                    data = await self._post(self.body(group))
                responses = self._parse(group, data, time.perf_counter() - start)
                self._succeeded = True
                return responses
            except _RetryableError as exc:
                last = exc
                if exc.refused and not self._reached:
                    raise self._refused() from exc
            except _RejectedError as exc:
                return self._rejected(group, exc, time.perf_counter() - start)
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

    def _refused(self) -> EndpointUnreachableError:
        """A first connection refused: nothing listens there, which waiting does not change."""
        url = httpx.URL(self.base_url)
        where = f"{url.host}:{url.port or (443 if url.scheme == 'https' else 80)}"
        return EndpointUnreachableError(
            f"cannot reach {self.base_url}: connection refused by {where} (nothing is listening there; "
            "not retried); is the server running? check --base-url"
        )

    def _rejected(self, group: list[Request], exc: _RejectedError, latency: float) -> list[Response]:
        """A request rejected as invalid: stops the run before any success, else fails that request."""
        if not self._succeeded:
            reason = str(exc)
            hint = ""
            if any(f in reason for f in _SAMPLING_FIELDS):
                hint = (
                    f"; knowsum sent the sampling fields a {self.server_kind!r} server reads: if the server "
                    "is another kind, pass --server-kind (vllm, llama.cpp, ollama, openai)"
                )
            raise BackendError(
                f"{self.endpoint} rejected the request as invalid, not retried ({reason}){hint}"
            )
        return [self.failure(r, f"rejected as invalid, not retried: {exc}", latency) for r in group]

    async def _post(self, body: dict[str, Any]) -> Any:
        try:  # the whole request within --timeout: httpx's own bounds each read, so a trickle evades it
            async with asyncio.timeout(self._timeout):
                resp = await self._client.post(self._url, json=body)
        except TimeoutError:
            raise _RetryableError(f"timeout (no whole answer within {self._timeout:g} s)") from None
        except httpx.TransportError as exc:
            raise _transport_error(exc) from exc
        self._reached = True
        status = resp.status_code
        if status in _FATAL_STATUS:
            why = f"{_FATAL_STATUS[status]}): {server_reason(resp.text)}"
            raise BackendError(f"{self.endpoint} answered HTTP {status} ({why}")
        if status >= 400:
            reason = server_reason(resp.text)
            if is_validation_error(status, reason):
                raise _RejectedError(f"HTTP {status}: {reason}")
            raise _RetryableError(
                f"HTTP {status}: {reason}", wait=_retry_after(resp.headers.get("retry-after"))
            )
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
        if len(texts) < len(group):
            raise _RetryableError(f"malformed response: {len(texts)} choices for {len(group)} samples")
        refusals = [refusal_of(c) for c in choices]
        for i, (text, refusal) in enumerate(zip(texts, refusals, strict=False)):
            if not isinstance(text, str) and refusal is None:
                what = "no text (content null)" if text is None else f"a {type(text).__name__}, not text"
                raise _RetryableError(f"malformed response: choice {i} holds {what}")
        tokens = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens // len(group)}
        return [
            self.failure(r, f"refused by the model: {refusal}", latency)
            if refusal is not None
            else self.response(r, t, why, latency=latency, **tokens)
            for r, t, why, refusal in zip(group, texts, reasons, refusals, strict=False)
        ]
