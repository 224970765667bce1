"""Prompt tokens of a request: one implementation for every part of knowsum that counts them.

How many tokens a request's prompt takes depends on the backend:

- **a local model** (llama-cpp-python): its own tokenizer on the prompt exactly as it is fed —
  chat messages through the chat handler ``Llama.create_chat_completion`` uses (the GGUF's chat
  template, its BOS and stop strings included), a raw prompt (``api="completions"``) with BOS when
  the model adds one. This is what llama.cpp reports as ``prompt_tokens``, so a count made before a
  run equals the usage the run records. A chat template the handler cannot render is counted on the
  message text (the template's own tokens left out);
- **every other backend** (an OpenAI-compatible endpoint, the mock, a replay): the offline estimate

  .. math:: \\hat n = \\lceil \\text{characters} / 4 \\rceil

  of the message text (marked ``estimated``): about four characters a token for English text on
  BPE vocabularies (OpenAI, "What are tokens and how to count them", help.openai.com). A remote
  endpoint's own count arrives with its responses.

Each backend says how its prompts are counted (:meth:`knowsum.models.Backend.token_counter`: the
estimate by default, :func:`llama_counter` for the local backend); the profile planner asks it, the
batched decoder feeds the tokens of :func:`llama_prompt_tokens`, the sequential path checks the
context with :func:`llama_text_tokens`.

inspect counts tokens itself (tiktoken's ``o200k_base`` for a reply without usage; knowsum only
installs that vocabulary offline, :mod:`knowsum.harness.tokenizer`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from knowsum.errors import BackendError
from knowsum.models._params import Request

__all__ = [
    "CHARS_PER_TOKEN",
    "TokenCounter",
    "estimate_tokens",
    "estimated_counter",
    "llama_counter",
    "llama_prompt_tokens",
    "llama_text_tokens",
    "message_text",
]

CHARS_PER_TOKEN = 4
"""Characters per token of the offline estimate (module docstring)."""


def message_text(request: Request) -> str:
    """The request's message contents joined by newlines (a raw prompt is its only message)."""
    return "\n".join(m["content"] for m in request.chat_messages())


def estimate_tokens(text: str) -> int:
    """⌈len(text) / :data:`CHARS_PER_TOKEN`⌉: the offline estimate of ``text``'s token count."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class TokenCounter:
    """Prompt tokens of a request on one backend.

    Attributes:
        count: the request's prompt tokens.
        estimated: ``True`` for the offline estimate, ``False`` for the model's own tokenizer.
        how: how it counts, in words (a plan prints it).
    """

    count: Callable[[Request], int]
    estimated: bool
    how: str

    def __call__(self, request: Request) -> int:
        return self.count(request)


def estimated_counter() -> TokenCounter:
    """The offline estimate (:func:`estimate_tokens` of the message text): any backend without a
    tokenizer of its own."""
    return TokenCounter(lambda r: estimate_tokens(message_text(r)), True, "estimated (~4 characters a token)")


class _CapturedError(Exception):
    """Raised by :class:`_Capture` once the chat handler hands over its prompt tokens."""


class _Capture:
    """Stands in for ``Llama`` while its chat handler formats messages; keeps tokens and stop list."""

    def __init__(self, llm: Any) -> None:
        self._llm = llm
        self.tokens: list[int] = []
        self.stop: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llm, name)

    def create_completion(self, *, prompt: list[int], stop: list[str] | None = None, **_: Any) -> Any:
        self.tokens = list(prompt)
        self.stop = list(stop or [])
        raise _CapturedError


def _chat_handler(llm: Any) -> Any:
    """The chat handler ``llm.create_chat_completion`` uses (its own, its GGUF template's, or its
    format's)."""
    from llama_cpp import llama_chat_format

    return (
        llm.chat_handler
        or llm._chat_handlers.get(llm.chat_format)
        or llama_chat_format.get_chat_completion_handler(llm.chat_format)
    )


def _chat_tokens(
    llm: Any, messages: list[dict[str, str]], stop: list[str], handler: Any = None
) -> tuple[list[int], list[str]]:
    """Prompt tokens and stop strings that ``llm.create_chat_completion`` would generate from."""
    handler = handler or _chat_handler(llm)
    cap = _Capture(llm)
    try:
        handler(llama=cap, messages=messages, stop=stop)
    except _CapturedError:
        return cap.tokens, cap.stop
    raise BackendError("the chat handler did not produce a prompt")  # pragma: no cover


def llama_prompt_tokens(
    llm: Any, messages: list[dict[str, str]] | None, prompt: str | None, stop: list[str]
) -> tuple[list[int], list[str]]:
    """The tokens a loaded ``llama_cpp.Llama`` is fed for chat ``messages`` (or a raw ``prompt``), and
    the stop strings it generates with (``stop`` plus the chat template's), exactly as
    llama-cpp-python derives them (``create_chat_completion`` / ``create_completion``)."""
    if messages is not None:
        return _chat_tokens(llm, messages, stop)
    bos = [llm.token_bos()] if llm._model.add_bos_token() and llm.token_bos() != -1 else []
    return bos + (llm.tokenize(prompt.encode(), add_bos=False, special=True) if prompt else []), list(stop)


def llama_text_tokens(llm: Any, text: str) -> int:
    """Tokens of plain ``text`` on ``llm``'s tokenizer (no BOS, special-token text kept as text)."""
    return len(llm.tokenize(text.encode(), add_bos=False, special=False))


def llama_counter(llm: Any, api: str = "chat") -> TokenCounter:
    """Prompt tokens of a request on a loaded ``llama_cpp.Llama`` (module docstring): chat messages
    with ``api="chat"``, the raw prompt with ``api="completions"``; the message text when the chat
    template cannot be rendered (then ``how`` says so)."""
    if api != "chat":
        return TokenCounter(
            lambda r: len(llama_prompt_tokens(llm, None, message_text(r), [])[0]),
            False,
            "the model's tokenizer on the raw prompt",
        )
    try:
        handler = _chat_handler(llm)
        _chat_tokens(llm, [{"role": "user", "content": "x"}], [], handler)
    except Exception:  # an unusual template: the message text is counted instead
        return TokenCounter(
            lambda r: llama_text_tokens(llm, message_text(r)),
            False,
            "the model's tokenizer (message text only)",
        )
    return TokenCounter(
        lambda r: len(_chat_tokens(llm, r.chat_messages(), [], handler)[0]),
        False,
        "the model's tokenizer through its chat template",
    )
