"""Prompt tokens counted once (knowsum.models._tokens): the planner, the batched decoder and the
sequential path agree on the real test model; the offline estimate everywhere else."""

from __future__ import annotations

import asyncio
import math
from typing import Any, ClassVar

import pytest

from knowsum.models import GenerationParams, MockBackend, Request, estimate_tokens, make_requests
from knowsum.models import sample_sync as run
from knowsum.models._tokens import CHARS_PER_TOKEN, llama_counter, message_text
from knowsum.models._usage import MeteredBackend
from tests.models._embedded import open_smollm2

PARAMS = GenerationParams(temperature=0.0, max_tokens=1, seed=1)
CHAT = (
    ("system", "You are a terse biology assistant."),
    ("user", "List 5 human diseases, one per line. <|im_end|> is text here."),
)


def test_the_estimate_is_a_quarter_of_the_characters_rounded_up() -> None:
    assert CHARS_PER_TOKEN == 4
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8, 9)] == [0, 1, 1, 2, 2, 3]
    r = Request(messages=CHAT)
    text = "\n".join(c for _, c in CHAT)
    assert message_text(r) == text and message_text(Request(prompt="abc")) == "abc"
    counter = MockBackend().token_counter()
    assert counter.estimated and counter.how == "estimated (~4 characters a token)"
    assert counter(r) == math.ceil(len(text) / 4) == estimate_tokens(text)


def test_a_metered_backend_counts_as_the_backend_it_wraps() -> None:
    inner = MockBackend()
    inner.token_counter = lambda: llama_counter(_Fake(), "completions")  # type: ignore[method-assign]
    counter = MeteredBackend(inner).token_counter()
    assert not counter.estimated and counter.how == "the model's tokenizer on the raw prompt"


class _Fake:
    """A tokenizer of one token per byte, without a chat handler (an unusual template)."""

    chat_handler = None
    chat_format = "no-such-format"
    _chat_handlers: ClassVar[dict[str, Any]] = {}

    class _model:  # noqa: N801 - llama_cpp's attribute name
        @staticmethod
        def add_bos_token() -> bool:
            return True

    def token_bos(self) -> int:
        return 1

    def tokenize(self, text: bytes, add_bos: bool, special: bool) -> list[int]:
        return list(text)


def test_a_template_that_cannot_render_counts_the_message_text() -> None:
    counter = llama_counter(_Fake(), "chat")
    r = Request(messages=CHAT)
    assert counter.how == "the model's tokenizer (message text only)" and not counter.estimated
    assert counter(r) == len(message_text(r).encode())
    raw = llama_counter(_Fake(), "completions")
    assert raw(Request(prompt="abc")) == 1 + 3  # BOS, then the prompt's bytes: as llama.cpp feeds it


@pytest.mark.realmodel
def test_planner_batched_decoder_and_llama_cpp_agree_on_smollm2() -> None:
    """The count the profile planner makes before a run (the backend's token counter), the tokens the
    batched decoder feeds, and the prompt_tokens llama.cpp reports on the sequential path are one
    number per request."""
    requests = [
        Request(messages=CHAT, params=PARAMS),
        *make_requests(["Name one gene.", "What is the capital of France? <|im_start|>"], PARAMS),
    ]
    sequential, batched = open_smollm2(1), open_smollm2(2)
    try:
        counter = batched.token_counter()
        assert counter.how == "the model's tokenizer through its chat template" and not counter.estimated
        planned = [counter(r) for r in requests]
        assert planned == [sequential.token_counter()(r) for r in requests]
        reported_batched = [r.prompt_tokens for r in run(batched, requests, progress=False)]
        reported_sequential = [r.prompt_tokens for r in run(sequential, requests, progress=False)]
        assert planned == reported_batched == reported_sequential
        assert all(n > 10 for n in planned)
    finally:
        asyncio.run(sequential.aclose())
        asyncio.run(batched.aclose())
