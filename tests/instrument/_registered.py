"""The ``yes_plug_in`` fixture: tests/instrument/_yes.py registered through a patched entry-point
list, exactly as a package's ``knowsum.instruments`` entry would be (the registry re-read around it)."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points

import pytest

from knowsum.instrument import INSTRUMENTS, installed

__all__ = ["yes_plug_in"]


@pytest.fixture
def yes_plug_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """knowsum's instruments, then the yes plug-in."""
    real = entry_points(group=INSTRUMENTS)
    yes = EntryPoint("yes", "tests.instrument._yes:INSTRUMENT", INSTRUMENTS)

    def patched(group: str) -> list[EntryPoint]:
        return [*real, yes] if group == INSTRUMENTS else list(entry_points(group=group))

    installed.cache_clear()
    monkeypatch.setattr("knowsum.instrument._registry.entry_points", patched)
    yield
    installed.cache_clear()
