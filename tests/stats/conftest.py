"""Fixtures for the statistics tests: the reference data of ``shared/data/estimator_reference``."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.stats import Prevalence


def read_table(path: Path) -> Prevalence:
    """A ``s<TAB>n_s`` file with a header line, as a Prevalence."""
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    return Prevalence.from_table((int(s), int(n)) for s, n in rows)


@pytest.fixture
def fisher(shared_dir: Path) -> Prevalence:
    """Fisher, Corbet & Williams (1943) butterflies, s = 1..24 (501 species, 3,306 individuals)."""
    return read_table(shared_dir / "data" / "estimator_reference" / "fisher_butterflies_prevalence.tsv")
