"""Fixtures of the recall tests: a tiny GO installed from a hand-written OBO in an isolated home."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.kb import install

RECALL_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"


@pytest.fixture
def mini_go(tmp_home: Path) -> Path:
    """A knowsum home where ``go`` is the 11-term ``mini_go.obo``; returns the fixtures directory."""
    install(["go"], from_files=[RECALL_FIX / "mini_go.obo"])
    return RECALL_FIX
