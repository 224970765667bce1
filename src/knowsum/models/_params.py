"""Value objects of the model layer: generation parameters, requests, responses, keys and seeds.

A *request* is one draw: a prompt (or chat messages), explicit sampling parameters and an explicit
``sample_index``. Asking the same prompt 3,000 times (KnowSum, Li et al. 2025) is 3,000 requests that
differ only in their sample index, so each draw has its own key in the response store and its own seed.

Keys and seeds are pure functions of the request (never of timing)::

    key  = sha256(backend kind ␟ model id ␟ endpoint ␟ params ␟ prompt/messages ␟ sample index)
    seed = int(sha256("seed" ␟ run seed ␟ prompt/messages ␟ sample index)[:8]) mod 2**31
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from knowsum.errors import ConfigError

__all__ = [
    "PAPER_PARAMS",
    "GenerationParams",
    "Message",
    "Request",
    "Response",
    "derive_seed",
    "make_requests",
]

Message = tuple[str, str]
"""One chat message as ``(role, content)``."""

_SEP = b"\x1f"
_SEED_MOD = 2**31


def _canonical(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Sampling parameters, explicit and recorded with every response.

    Attributes:
        temperature: softmax temperature; 0 means greedy decoding.
        top_p: nucleus mass; 1.0 turns nucleus sampling off.
        top_k: keep the k most likely tokens; 0 turns top-k off.
        min_p: drop tokens below ``min_p`` times the top probability; 0.0 turns it off.
        max_tokens: upper bound on generated tokens.
        seed: the *run* seed; each sample's own seed derives from it (:func:`derive_seed`).
            ``None`` leaves sampling unseeded (not reproducible).
        stop: stop sequences.

    The KnowSum setting "temperature 1, nucleus sampling off" is exactly :data:`PAPER_PARAMS`:
    ``GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0)``.
    """

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    min_p: float = 0.0
    max_tokens: int = 512
    seed: int | None = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        checks = (
            (math.isfinite(self.temperature) and 0.0 <= self.temperature <= 2.0, "temperature", "in [0, 2]"),
            (0.0 < self.top_p <= 1.0, "top_p", "in (0, 1]"),
            (self.top_k >= 0, "top_k", ">= 0 (0 = off)"),
            (0.0 <= self.min_p <= 1.0, "min_p", "in [0, 1]"),
            (self.max_tokens >= 1, "max_tokens", ">= 1"),
            (self.seed is None or 0 <= self.seed < 2**63, "seed", "in [0, 2**63)"),
        )
        for ok, name, rule in checks:
            if not ok:
                raise ConfigError(f"invalid {name}={getattr(self, name)!r}: must be {rule}")
        if not isinstance(self.stop, tuple):
            object.__setattr__(self, "stop", tuple(self.stop))
        if any(not isinstance(s, str) or not s for s in self.stop):
            raise ConfigError(
                f"invalid stop={list(self.stop)!r}: a stop sequence must be a non-empty string "
                "(an empty one would end every answer before its first token)"
            )

    def to_json(self) -> str:
        """The canonical JSON of :meth:`as_dict` (cached per parameter set)."""
        return _params_json(self)

    def as_dict(self) -> dict[str, Any]:
        """The parameters as a JSON-ready dict (stored with every response)."""
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "min_p": self.min_p,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "stop": list(self.stop),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GenerationParams:
        """Inverse of :meth:`as_dict`."""
        return cls(**{**data, "stop": tuple(data.get("stop", ()))})


@functools.lru_cache(maxsize=1024)
def _params_json(params: GenerationParams) -> str:
    return _canonical(params.as_dict()).decode()


PAPER_PARAMS = GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0)
"""KnowSum's sampling setting: temperature 1 with nucleus (and top-k, min-p) sampling off."""


def derive_seed(run_seed: int, payload: bytes, sample_index: int) -> int:
    """Seed of one sample: ``sha256("seed" ␟ run_seed ␟ payload ␟ sample_index)`` reduced mod 2**31.

    Args:
        run_seed: the run seed (:attr:`GenerationParams.seed`).
        payload: the canonical prompt/messages bytes (:attr:`Request.payload`).
        sample_index: the explicit sample index.
    """
    digest = hashlib.sha256(
        b"seed" + _SEP + str(run_seed).encode() + _SEP + payload + _SEP + str(sample_index).encode()
    )
    return int.from_bytes(digest.digest()[:8], "big") % _SEED_MOD


@dataclass(frozen=True, slots=True)
class Request:
    """One draw to generate: exactly one of ``prompt`` or ``messages``, params and a sample index.

    A plain ``prompt`` is sent as the single user message of a chat (instruct models), unless the
    backend is configured for the raw completions endpoint.
    """

    prompt: str | None = None
    messages: tuple[Message, ...] | None = None
    params: GenerationParams = field(default_factory=GenerationParams)
    sample_index: int = 0
    payload: bytes = field(init=False, repr=False, compare=False)
    _seed: int | None = field(init=False, repr=False, compare=False, default=-1)

    def __post_init__(self) -> None:
        if (self.prompt is None) == (self.messages is None):
            raise ConfigError("a request needs exactly one of prompt= or messages=")
        if self.sample_index < 0:
            raise ConfigError(f"invalid sample_index={self.sample_index}: must be >= 0")
        if self.messages is not None:
            msgs = tuple((str(r), str(c)) for r, c in self.messages)
            object.__setattr__(self, "messages", msgs)
            payload = _canonical({"messages": [list(m) for m in msgs]})
        else:
            payload = _canonical({"prompt": self.prompt})
        object.__setattr__(self, "payload", payload)

    @property
    def seed(self) -> int | None:
        """This sample's own seed (:func:`derive_seed`), or ``None`` for an unseeded run."""
        if self._seed == -1:  # computed once, on first use
            seed = (
                None
                if self.params.seed is None
                else derive_seed(self.params.seed, self.payload, self.sample_index)
            )
            object.__setattr__(self, "_seed", seed)
        return self._seed

    def chat_messages(self) -> list[dict[str, str]]:
        """The request as OpenAI-style chat messages."""
        if self.messages is not None:
            return [{"role": r, "content": c} for r, c in self.messages]
        return [{"role": "user", "content": str(self.prompt)}]

    def with_index(self, sample_index: int) -> Request:
        """The same prompt and params with another sample index."""
        return Request(self.prompt, self.messages, self.params, sample_index)


def make_requests(
    prompts: Iterable[str | Sequence[Message]], params: GenerationParams, n: int = 1, start: int = 0
) -> list[Request]:
    """``n`` draws (sample indexes ``start … start+n-1``) of each prompt.

    A prompt is either a string or a sequence of ``(role, content)`` chat messages.
    """
    if n < 1:
        raise ConfigError(f"invalid n={n}: must be >= 1")
    out: list[Request] = []
    for p in prompts:
        base = (
            Request(prompt=p, params=params)
            if isinstance(p, str)
            else Request(messages=tuple(p), params=params)
        )
        out.extend(Request(base.prompt, base.messages, params, i) for i in range(start, start + n))
    return out


@dataclass(frozen=True, slots=True)
class Response:
    """One generated sample (or the error that ended its attempts).

    Attributes:
        key: the store key (hex sha256, see module docstring).
        request: the request this answers.
        text: the generated text ("" on error).
        finish_reason: ``stop``, ``length``, … as reported by the backend; ``error`` on error.
        prompt_tokens: prompt tokens counted by the backend (0 if unknown).
        completion_tokens: generated tokens (0 if unknown).
        latency: seconds from sending to receiving (all attempts).
        created: Unix time the response was received.
        error: ``None`` on success, else a one-line description of the last failure.
        backend: backend kind (``local``, ``openai``, ``mock``).
        model: model id.
        endpoint: endpoint the request went to.
    """

    key: str
    request: Request
    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    created: float = 0.0
    error: str | None = None
    backend: str = ""
    model: str = ""
    endpoint: str = ""

    @property
    def ok(self) -> bool:
        """True when the sample succeeded."""
        return self.error is None
