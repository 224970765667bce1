"""The recall universe, extraction and popularity on the installed knowledge bases."""

from __future__ import annotations

import re

import pytest

from knowsum.kb import installed, load_ontology
from knowsum.recall import Buckets, IdExtractor, load_popularity_source, universe

pytestmark = pytest.mark.realdata


@pytest.fixture(autouse=True)
def _need(request: pytest.FixtureRequest) -> None:
    for kb in ("go", "icd10", "uberon", "genes"):
        if installed(kb) is None:
            pytest.fail(f"needs `knowsum kb install {kb}` (make data)")


def test_go_web_popularity_buckets_are_long_tailed() -> None:
    go = load_ontology("go")
    concepts = universe("go", go)
    web = load_popularity_source("go", "web")
    assert web is not None and len(web) == 42_854  # the paper's table
    known = {c.id: web[c.id] for c in concepts if c.id in web}
    assert len(known) > 40_000
    b = Buckets.build(known, 50)
    assert b.n == 50 and sum(b.sizes) == len(known)
    # §5.2: the first buckets hold far more concepts than the last ones
    assert b.sizes[0] > 10 * b.sizes[-1] and sum(b.sizes[:5]) > sum(b.sizes[-5:]) * 10
    assert all(s > 0 for s in b.sizes)


def test_every_universe_id_is_extracted_from_itself() -> None:
    for kb in ("go", "icd10", "uberon"):
        ext = IdExtractor(kb)
        for c in universe(kb, load_ontology(kb)):
            assert ext.extract(f"The answer is {c.id}.") == c.id, (kb, c.id)


def test_icd10_universe_is_codes_of_at_most_four_characters() -> None:
    concepts = universe("icd10", load_ontology("icd10"))
    assert 11_000 < len(concepts) < 13_000  # the paper kept 11,494 of its ICD-10 release
    assert all(re.fullmatch(r"[A-Z]\d{2}(\.\d)?", c.id) for c in concepts)
    assert {"A00", "A00.1", "J45"} <= {c.id for c in concepts}


def test_uberon_universe_is_native_terms() -> None:
    concepts = universe("uberon", load_ontology("uberon"))
    assert len(concepts) > 10_000 and all(c.id.startswith("UBERON:") for c in concepts)


def test_gene_annotation_proxy() -> None:
    ann = load_popularity_source("go", "annotations", {"GO:0005515", "GO:0005634", "GO:0001822"})
    assert ann is not None and set(ann) == {"GO:0005515", "GO:0005634", "GO:0001822"}
    # protein binding annotates more human genes than the nucleus, the nucleus more than kidney development
    assert ann["GO:0005515"] > ann["GO:0005634"] > ann["GO:0001822"] > 10
