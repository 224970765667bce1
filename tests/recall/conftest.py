"""Fixtures of the recall tests: a tiny GO installed from a hand-written OBO in an isolated home."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.kb import install

RECALL_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"


@pytest.fixture
def mini_go(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A knowsum home where ``go`` is the 11-term ``mini_go.obo``; returns the fixtures directory.

    The test runs in ``tmp_path``, so a run written to its default folder (``recall-runs/…``)
    lands there.
    """
    install(["go"], from_files=[RECALL_FIX / "mini_go.obo"])
    monkeypatch.chdir(tmp_path)
    return RECALL_FIX
