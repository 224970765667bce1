"""Every loader on its sliced real-source fixture, and corrupt/truncated input."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.errors import InputFileError, SourceError
from knowsum.kb import PARENT
from knowsum.kb._store import OntologyData, read_store, write_store
from knowsum.kb.loaders import bioc, cellxgene, hpo, icd, indra, obo, theorems


def _data(name: str) -> OntologyData:
    return OntologyData(name, "fixture", "fixture")


def test_indra_go_json(kb_fix: Path) -> None:
    data = indra.load_indra_json((kb_fix / "go.json").read_text(), _data("go"), "go.json")
    rec = data.terms["GO:0001822"]
    assert rec.name == "kidney development"
    assert ("part_of", "GO:0072001") in rec.relations
    assert data.terms["GO:0000003"].alt_ids == ["GO:0019952", "GO:0050876"]
    assert "Wikipedia:Kidney_development" in rec.xrefs


def test_go_enrichment_from_go_db(kb_fix: Path) -> None:
    data = indra.load_indra_json((kb_fix / "go.json").read_text(), _data("go"), "go.json")
    n = len(data.terms)
    bioc.enrich_go(data, kb_fix / "GO.slice.sqlite")
    assert data.terms["GO:0001822"].definition.startswith(
        "The process whose specific outcome is the progression"
    )
    obsolete = [r for r in data.terms.values() if r.obsolete]
    assert len(obsolete) == 12 and len(data.terms) == n + 12
    assert data.terms["GO:0000005"].name == "obsolete ribosomal chaperone activity"
    assert data.terms["GO:0000005"].namespace == "molecular_function"
    assert data.meta["definitions_release"] == "2022-07-01"


def test_indra_doid_json(kb_fix: Path) -> None:
    data = indra.load_indra_json((kb_fix / "doid.json").read_text(), _data("doid"), "doid.json")
    ad = data.terms["DOID:10652"]
    assert ad.name == "Alzheimer's disease"
    assert ("Alzheimer disease", "") in ad.synonyms
    assert "ICD10CM:G30" in ad.xrefs and "MESH:D000544" in ad.xrefs


def test_mesh_tsv(kb_fix: Path) -> None:
    data = indra.load_mesh_tsv((kb_fix / "mesh.tsv").read_text(), _data("mesh"), "mesh.tsv")
    ad = data.terms["D000544"]
    assert ad.name == "Alzheimer Disease"
    assert ("Alzheimer's Disease", "ENTRY") in ad.synonyms
    assert ("tree_number", "C10.228.140.380.100") in ad.props
    assert ad.namespace == "C"


def test_hgnc_tsv(kb_fix: Path) -> None:
    data = indra.load_hgnc_tsv((kb_fix / "hgnc.tsv").read_text(), _data("hgnc"), "hgnc.tsv")
    tp53 = data.terms["HGNC:11998"]
    assert tp53.name == "TP53"
    assert ("tumor protein p53", "EXACT") in tp53.synonyms
    assert ("p53", "ALIAS") in tp53.synonyms
    assert ("entrez", "7157") in tp53.props
    assert tp53.namespace == "gene with protein product"


def test_obo_hp(kb_fix: Path) -> None:
    data = obo.load_obo(kb_fix / "hp.obo", "hpo")
    assert data.release == "hp/releases/2025-01-16"
    assert len(data.terms) == 596
    seizure = data.terms["HP:0001250"]
    assert seizure.name == "Seizure"
    assert seizure.definition.startswith("A seizure is an intermittent abnormality")
    assert ("Epileptic seizure", "EXACT") in seizure.synonyms
    assert ("is_a", "HP:0012638") in seizure.relations
    assert seizure.alt_ids and all(a.startswith("HP:") for a in seizure.alt_ids)
    obsolete = [r for r in data.terms.values() if r.obsolete]
    assert len(obsolete) >= 8  # the 8 chosen ones, plus any in the random sample
    assert all(r.name.startswith("obsolete") for r in obsolete)


def test_obo_truncated_and_wrong_format(tmp_path: Path, kb_fix: Path) -> None:
    text = (kb_fix / "hp.obo").read_text()
    cut = tmp_path / "cut.obo"
    cut.write_text(text[: text.index("[Term]") + 22])  # "[Term]\nid: HP:0000001\n", no name
    with pytest.raises(InputFileError, match=r"cut\.obo"):
        obo.load_obo(cut, "hpo")
    junk = tmp_path / "junk.obo"
    junk.write_text("this is not an ontology\n")
    with pytest.raises(InputFileError, match=r"junk\.obo: no \[Term\]"):
        obo.load_obo(junk, "hpo")
    binary = tmp_path / "bin.obo"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputFileError, match=r"bin\.obo"):
        obo.load_obo(binary, "hpo")


def test_hpo_annotations(kb_fix: Path) -> None:
    data = obo.load_obo(kb_fix / "hp.obo", "hpo")
    hpo.add_hpo_annotations((kb_fix / "genes_to_phenotype.txt").read_text(), data, "g2p")
    annotated = [r for r in data.terms.values() if any(k == "gene" for k, _ in r.props)]
    assert annotated
    assert any(v.startswith("NCBIGene:") and "|" in v for r in annotated for k, v in r.props if k == "gene")
    with pytest.raises(SourceError, match=r"g2p"):
        hpo.add_hpo_annotations("not a header\n", data, "g2p")


def test_icd10_xml(kb_fix: Path) -> None:
    data = icd.load_icd10_xml((kb_fix / "icd_10_v2019.xml").read_bytes(), _data("icd10"), "icd10.xml")
    assert data.terms["A00"].name == "Cholera"
    assert data.terms["A00"].namespace == "category"
    assert data.terms["A00.0"].relations == [("is_a", "A00")]
    assert data.terms["A00-A09"].relations == [("is_a", "I")]
    assert data.terms["I"].namespace == "chapter"


def test_icd10cm_xml(kb_fix: Path) -> None:
    data = icd.load_icd10cm_xml((kb_fix / "icd10cm_tabular.xml").read_bytes(), _data("icd10cm"), "cm.xml")
    assert data.terms["A00"].name == "Cholera"
    assert data.terms["A00"].relations == [("is_a", "A00-A09")]
    assert data.terms["A00-A09"].relations == [("is_a", "1")]
    assert data.terms["A00.9"].namespace == "subcategory"
    assert data.meta["version"] == "2026"


def test_icd10cm_seventh_character_extensions(kb_fix: Path) -> None:
    raw = (kb_fix / "icd10cm_tabular.xml").read_bytes()
    codes = set((kb_fix / "icd10cm_codes.txt").read_text().split())
    data = icd.load_icd10cm_xml(raw, _data("icd10cm"), "cm.xml", codes)
    assert {c.replace(".", "") for c in data.terms} == codes  # exactly the official code list
    ext = data.terms["S00.00XA"]
    assert ext.name == "Unspecified superficial injury of scalp, initial encounter"
    assert ext.namespace == "extended subcategory" and ext.relations == [("is_a", "S00.00")]
    assert data.terms["S00.00XS"].name.endswith(", sequela")
    unchecked = icd.load_icd10cm_xml(raw, _data("icd10cm"), "cm.xml")
    assert set(unchecked.terms) >= set(data.terms)


def test_icd_truncated_xml(kb_fix: Path) -> None:
    raw = (kb_fix / "icd_10_v2019.xml").read_bytes()
    with pytest.raises(SourceError, match=r"short\.xml: corrupt or truncated XML"):
        icd.load_icd10_xml(raw[: len(raw) // 2], _data("icd10"), "short.xml")


def test_cellxgene_uberon(kb_fix: Path) -> None:
    data = cellxgene.load_cellxgene_json((kb_fix / "uberon.json.zst").read_bytes(), _data("uberon"), "u.zst")
    kidney = data.terms["UBERON:0002113"]
    assert kidney.name == "kidney"
    assert kidney.relations and all(r == PARENT for r, _ in kidney.relations)
    assert data.meta["taxonomy"] == PARENT
    deprecated = [r for r in data.terms.values() if r.obsolete]
    assert len(deprecated) >= 5
    assert all(r.name == "" or r.name.startswith("obsolete") for r in deprecated)
    with pytest.raises(SourceError, match=r"u\.zst"):
        cellxgene.load_cellxgene_json(b"not zstd", _data("uberon"), "u.zst")


def test_theorems_duplicates_become_synonyms(kb_fix: Path) -> None:
    data = theorems.load_theorems_tsv((kb_fix / "theorems.tsv").read_text(), _data("theorems"), "t.tsv")
    assert data.terms["Q11518"].name == "Pythagorean theorem"
    assert data.terms["Q11518"].namespace == "51"
    dct = data.terms["Q1067156"]
    assert dct.name == "Dominated convergence theorem"
    assert ("Bounded convergence theorem", "NAME") in dct.synonyms


def test_theorems_bad_rows(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match=r"t\.tsv:1"):
        theorems.load_theorems_tsv("id\tname\n", _data("theorems"), "t.tsv")
    bad = "wikidata\tname\twikipedia_titles\tmsc\nQ1\tA theorem\tA\t01\nnot-an-id\tX\tX\t01\n"
    with pytest.raises(InputFileError, match=r"t\.tsv:3"):
        theorems.load_theorems_tsv(bad, _data("theorems"), "t.tsv")


def test_json_corrupt(kb_fix: Path) -> None:
    text = (kb_fix / "doid.json").read_text()
    with pytest.raises(SourceError, match=r"doid\.json: corrupt or truncated JSON"):
        indra.load_indra_json(text[:1000], _data("doid"), "doid.json")


def test_store_roundtrip_and_corrupt(tmp_path: Path, kb_fix: Path) -> None:
    data = indra.load_indra_json((kb_fix / "go.json").read_text(), _data("go"), "go.json")
    path = tmp_path / "go.sqlite"
    write_store(data, path)
    meta, terms, alts = read_store(path)
    assert meta["name"] == "go" and meta["format"]
    assert len(terms) == len(data.terms)
    assert alts["GO:0019952"] == "GO:0000003"
    assert terms["GO:0001822"].relations == tuple(data.terms["GO:0001822"].relations)
    assert not list(tmp_path.glob("*.tmp"))
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(path.read_bytes()[:3000])
    with pytest.raises(SourceError, match=r"bad\.sqlite"):
        read_store(bad)
