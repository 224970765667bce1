"""Ontology mapping, alt IDs, closure, categories and ID status on the sliced real sources."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.kb import IS_A, PARENT, PART_OF, Ontology


def test_mapping_protocol(go: Ontology) -> None:
    assert isinstance(go, Mapping)
    assert len(go) == 539
    assert "GO:0001822" in go
    assert go["GO:0001822"].name == "kidney development"
    assert go["GO:0001822"].namespace == "biological_process"
    assert set(go) == set(go.keys())
    with pytest.raises(KeyError):
        go["GO:9999999"]


def test_alt_ids_resolve_to_primary(go: Ontology) -> None:
    assert go.alt_ids["GO:0019952"] == "GO:0000003"
    assert go["GO:0019952"].id == "GO:0000003"
    assert go["go:19952"].name == "reproduction"
    assert "GO:0019952" in go  # Mapping.__contains__ goes through __getitem__
    assert "GO:0019952" not in list(go)  # iteration yields primary IDs only


def test_parents_by_relation(go: Ontology) -> None:
    term = go["GO:0001822"]
    assert term.parents(IS_A) == ("GO:0048513",)
    assert term.parents(PART_OF) == ("GO:0072001",)
    assert go.parents("GO:0001822", [PART_OF]) == ("GO:0072001",)


def test_ancestors_and_closure(go: Ontology) -> None:
    isa = go.ancestors("GO:0001822", [IS_A])
    both = go.ancestors("GO:0001822")
    assert {"GO:0048513", "GO:0048856", "GO:0032502", "GO:0008150"} <= isa
    assert "GO:0072001" not in isa and "GO:0072001" in both  # part_of only with part_of
    assert isa < both
    assert "GO:0001822" not in both
    closure = go.closure(["GO:0001822", "GO:0019952", "GO:9999999"])
    assert {"GO:0001822", "GO:0000003"} | both <= closure
    assert "GO:9999999" not in closure


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_closure_properties(go: Ontology, data: st.DataObject) -> None:
    ids = data.draw(st.lists(st.sampled_from(sorted(go)), min_size=1, max_size=5))
    closure = go.closure(ids)
    assert set(ids) <= closure
    assert go.closure(closure) == closure  # idempotent
    for t in ids:  # the closure of a subset is a subset
        assert go.closure([t]) <= closure
        for parent in go.parents(t, [IS_A, PART_OF]):
            assert go.ancestors(parent) <= go.ancestors(t)


def test_doid_category_strict_vs_relaxed(doid: Ontology) -> None:
    assert doid.roots == ("DOID:4",)
    assert doid["DOID:10652"].name == "Alzheimer's disease"
    assert doid.category("DOID:10652") == ("DOID:7",)
    assert doid["DOID:7"].name == "disease of anatomical entity"
    assert doid.is_a("DOID:10652", "DOID:7")
    assert not doid.is_a("DOID:7", "DOID:10652")
    assert doid.category("DOID:4") == ()
    children = {doid[c].name for c in doid.children("DOID:4")}
    assert {"disease of anatomical entity", "disease of cellular proliferation"} <= children
    assert "DOID:10652" in doid.descendants("DOID:7")


def test_id_status(go: Ontology, hpo: Ontology) -> None:
    assert go.id_status("GO:0001822") == "primary"
    assert go.id_status("go:1822") == "primary"
    assert go.id_status("GO:0019952") == "alt"
    assert go.id_status("GO:0000000") == "nonexistent"
    assert go.id_status("kidney development") == "malformed"
    obsolete = next(t for t in hpo.values() if t.obsolete)
    assert hpo.id_status(obsolete.id) == "obsolete"


def test_labels_skip_obsolete(hpo: Ontology) -> None:
    obsolete = {t.id for t in hpo.values() if t.obsolete}
    assert obsolete
    assert not obsolete & {i for i, _ in hpo.labels()}
    assert obsolete <= {i for i, _ in hpo.labels(include_obsolete=True)}


def test_untyped_parents_are_the_taxonomy(kb_fix: Path, tmp_path: Path) -> None:
    from knowsum.kb._store import OntologyData, write_store
    from knowsum.kb.loaders import cellxgene

    data = OntologyData("uberon", "fixture", "fixture")
    cellxgene.load_cellxgene_json((kb_fix / "uberon.json.zst").read_bytes(), data, "uberon.json.zst")
    write_store(data, tmp_path / "uberon.sqlite")
    uberon = Ontology.open("uberon", tmp_path / "uberon.sqlite")
    assert uberon.taxonomy == PARENT
    kidney = "UBERON:0002113"
    assert uberon[kidney].name == "kidney"
    assert "UBERON:0000062" in uberon.ancestors(kidney)  # organ, via the default relations
    assert uberon.is_a(kidney, "UBERON:0000062")
    assert kidney in uberon.descendants("UBERON:0000062")
    assert 0 < len(uberon.roots) < 10 and all(not uberon[r].parents() for r in uberon.roots)
    assert uberon.category(kidney) and not set(uberon.category(kidney)) & set(uberon.roots)
