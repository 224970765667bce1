"""Injecting a llama.cpp failure into the batched decoder (for the fault tests)."""

from __future__ import annotations

from typing import Any

import pytest

from knowsum.errors import BackendError
from knowsum.models._batched import BatchDecoder


def fail_on(dec: BatchDecoder, monkeypatch: pytest.MonkeyPatch, when: Any) -> list[int]:
    """Make ``dec._decode`` (the one place that calls ``llama_decode``) raise the first time
    ``when(call_number, rows)`` holds; returns the log of row counts per call."""
    real = dec._decode
    calls: list[int] = []

    def decode(rows: list[tuple[int, int, int, bool]]) -> None:
        calls.append(len(rows))
        if when(len(calls), rows) and not getattr(decode, "fired", False):
            decode.fired = True  # type: ignore[attr-defined]
            raise BackendError("llama_decode failed with code -3 (injected)")
        real(rows)

    monkeypatch.setattr(dec, "_decode", decode)
    return calls
