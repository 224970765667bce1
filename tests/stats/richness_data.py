"""Loaders for the vendored reference data of the richness estimators.

The files live in ``tests/fixtures/estimate_reference/`` (provenance and checksums in its README:
iNEXT's ``data(spider)`` and ``data(ciliates)``, copied from the project's reference set).
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from knowsum.stats import Abundance, Incidence

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"


def spider(treatment: str) -> Abundance:
    """``spider_<treatment>.counts.tsv``: ``SPECIES<TAB>COUNT`` rows (Girdled or Logged)."""
    rows = (REFERENCE / f"spider_{treatment}.counts.tsv").read_text().splitlines()
    return Abundance.from_counts({name: int(count) for name, count in (r.split("\t") for r in rows if r)})


def ciliates() -> Incidence:
    """``ciliates_EtoshaPan.items.tsv``: ``UNIT<TAB>SPECIES`` detections (incidence_raw, T = 19)."""
    rows = (REFERENCE / "ciliates_EtoshaPan.items.tsv").read_text().splitlines()
    return Incidence.from_pairs(tuple(r.split("\t")) for r in rows if r)


def half_unit(printed: str) -> float:
    """Half a unit of the last printed digit ("43.893" → 5e-4), plus rounding slack."""
    exponent = Decimal(printed).as_tuple().exponent
    assert isinstance(exponent, int)
    return 0.5 * 10.0**exponent + 1e-12
