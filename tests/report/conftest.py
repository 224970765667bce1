"""Report test fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.kb import install

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"


@pytest.fixture
def kb_home_theorems(tmp_home: Path) -> Path:
    """A temporary home with the theorem list installed from the fixture slice (59 real theorems)."""
    install(["theorems"], [KB_FIX / "theorems.tsv"])
    return tmp_home
