"""Replies of inspect's mockllm provider for the tests.

Each carries its token usage: mockllm fills a missing one by counting tokens with tiktoken's
o200k_base vocabulary, which tiktoken downloads at first use, and no test reaches the network.
"""

from __future__ import annotations

from inspect_ai.model import ModelOutput, ModelUsage


def output(text: str) -> ModelOutput:
    """A mockllm reply ``text`` with its usage set (one input token, one output token per word)."""
    out = ModelOutput.from_content(model="mockllm", content=text)
    words = len(text.split())
    out.usage = ModelUsage(input_tokens=1, output_tokens=words, total_tokens=words + 1)
    return out
