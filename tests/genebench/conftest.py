"""Fixtures of the genebench tests: 22 real gene records and a GO slice (``tests/fixtures/genebench``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowsum.kb import GeneRecord, GoAnnotation, Ontology, Synonym, Term, install, load_ontology

GB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "genebench"


def _data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GB_FIX / "genes.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="session")
def fixture_genes() -> list[GeneRecord]:
    """The 22 hand-picked gene records (real values, see the fixture README)."""
    return [
        GeneRecord(
            gene_id=g["gene_id"],
            symbol=g["symbol"],
            name=g["name"],
            gene_type=g["gene_type"],
            chromosomes=tuple(g["chromosomes"]),
            bands=tuple(g["bands"]),
            aliases=tuple(g["aliases"]),
            go=tuple(GoAnnotation(*a) for a in g["go"]),
            pubmed_count=g["pubmed_count"],
            designations=tuple(g["designations"]),
        )
        for g in _data()["genes"]
    ]


def _obo(terms: list[dict[str, Any]]) -> str:
    lines = ["format-version: 1.2", "data-version: fixture", ""]
    for t in terms:
        lines += ["[Term]", f"id: {t['id']}", f"name: {t['name']}", f"namespace: {t['namespace']}"]
        lines += [f'synonym: "{s}" EXACT []' for s in t["synonyms"]]
        for rel, parent in t["relations"]:
            lines.append(f"is_a: {parent}" if rel == "is_a" else f"relationship: {rel} {parent}")
        lines.append("")
    return "\n".join(lines)


@pytest.fixture(scope="session")
def go_slice_obo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The GO slice of the fixture as an OBO file."""
    path = tmp_path_factory.mktemp("go") / "go_slice.obo"
    path.write_text(_obo(_data()["go"]), encoding="utf-8")
    return path


@pytest.fixture
def slice_go(tmp_home: Path, go_slice_obo: Path) -> Ontology:
    """An isolated knowsum home whose ``go`` KB is the fixture's GO slice."""
    install(["go"], from_files=[go_slice_obo])
    return load_ontology("go")


def mini_ontology() -> Ontology:
    """The GO slice as an in-memory :class:`Ontology` (no install)."""
    terms = {
        t["id"]: Term(
            id=t["id"],
            name=t["name"],
            namespace=t["namespace"],
            synonyms=tuple(Synonym(s, "EXACT") for s in t["synonyms"]),
            relations=tuple((r, p) for r, p in t["relations"]),
        )
        for t in _data()["go"]
    }
    return Ontology("go", terms)
