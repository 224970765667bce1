"""Fixtures for the statistics tests: reference data (provenance in each fixture's docstring)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.stats import Prevalence

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def read_table(path: Path) -> Prevalence:
    """A ``s<TAB>n_s`` file with a header line, as a Prevalence."""
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    return Prevalence.from_table((int(s), int(n)) for s, n in rows)


@pytest.fixture
def fisher() -> Prevalence:
    """Fisher, Corbet & Williams (1943) butterflies, s = 1..24 (501 species, 3,306 individuals).

    ``examples/fisher_butterflies.tsv`` is byte for byte the project's reference copy
    (``shared/data/estimator_reference/fisher_butterflies_prevalence.tsv``, whose README gives the
    provenance: Efron & Thisted 1976; Efron & Hastie, *Computer Age Statistical Inference* §6.1).
    """
    return read_table(EXAMPLES / "fisher_butterflies.tsv")
