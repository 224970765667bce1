"""Replies of inspect's mockllm provider for the tests.

Each carries its token usage: mockllm fills a missing one by counting tokens with tiktoken's
o200k_base vocabulary, which tiktoken downloads at first use, and no test reaches the network.
"""

from __future__ import annotations

import math

from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, ModelUsage

from knowsum.harness import figures, metric_values
from knowsum.records import Record


def output(text: str) -> ModelOutput:
    """A mockllm reply ``text`` with its usage set (one input token, one output token per word)."""
    out = ModelOutput.from_content(model="mockllm", content=text)
    words = len(text.split())
    out.usage = ModelUsage(input_tokens=1, output_tokens=words, total_tokens=words + 1)
    return out


def log_metrics(log: EvalLog) -> dict[str, float]:
    """The log's metrics by name (figures and caveat codes)."""
    assert log.results is not None, log.error
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


def assert_same_metrics(log: EvalLog, record: Record) -> dict[str, float]:
    """The log's metrics are exactly ``record``'s figures and caveat codes (``NaN`` where both are
    undefined); returns the figures."""
    got, want = log_metrics(log), metric_values(figures(record))
    assert got.keys() == want.keys(), set(got) ^ set(want)
    for name, value in want.items():
        assert got[name] == value or (math.isnan(got[name]) and math.isnan(value)), name
    return figures(record)[0]
