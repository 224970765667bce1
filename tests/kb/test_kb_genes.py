"""GeneStore built from the org.Hs.eg.db slice (+ goatools' designations) and from NCBI gene_info + GAF."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from knowsum.errors import InputFileError, SourceError
from knowsum.kb import GeneStore
from knowsum.kb.loaders import genes, goatools

GOATOOLS = "goatools_genes_NCBI_9606_All.txt"
TP53_2016 = (
    "antigen NY-CO-13",
    "mutant tumor protein 53",
    "p53 tumor suppressor",
    "phosphoprotein p53",
    "transformation-related protein 53",
    "tumor protein 53",
    "tumor supressor p53",  # sic, NCBI's spelling
)


def _designations(kb_fix: Path) -> genes.Designations:
    text = (kb_fix / GOATOOLS).read_text(encoding="utf-8")
    return genes.Designations(goatools.load_goatools_designations(text, GOATOOLS), "fixture", "2016")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, kb_fix: Path) -> GeneStore:
    out = tmp_path_factory.mktemp("genes") / "genes.sqlite"
    src = kb_fix / "org.Hs.eg.slice.sqlite"
    assert genes.build_from_orgdb(src, out, "fixture", _designations(kb_fix)) == 25
    return GeneStore(out)


def test_tp53_record(store: GeneStore) -> None:
    tp53 = store.by_symbol("tp53")
    assert tp53 is not None
    assert (tp53.gene_id, tp53.symbol, tp53.name) == (7157, "TP53", "tumor protein p53")
    assert (tp53.chromosome, tp53.band, tp53.gene_type) == ("17", "17p13.1", "protein-coding")
    assert {"P53", "LFS1"} <= set(tp53.aliases)
    assert tp53.pubmed_count == len(store.pubmed_ids(7157)) > 0
    assert {a.aspect for a in tp53.go} == {"BP", "MF", "CC"}
    assert all(a.go_id.startswith("GO:") and a.evidence for a in tp53.go)
    assert store[7157] == store["TP53"] == tp53
    assert store.meta["entrez_date"] == "2022-Sep12"
    assert tp53.designations == TP53_2016 == store.designations(7157)


def test_goatools_designations(kb_fix: Path) -> None:
    by_gene = goatools.load_goatools_designations((kb_fix / GOATOOLS).read_text(), GOATOOLS)
    assert len(by_gene) == 29 and sum(1 for d in by_gene.values() if d) == 24
    assert by_gene[7157] == TP53_2016
    assert by_gene[7154] == (  # a tRNA gene
        "tRNA alanine (anticodon UGC)",
        "tRNA-Ala-TGC-7-1",
        "transfer RNA alanine (anticodon UGC)",
        "transfer RNA alanine 1 (anticodon UGC)",
    )
    assert by_gene[55][0] == "5'-nucleotidase"  # a "-quoted value
    assert by_gene[4508] == ()  # MT-ATP6: none
    assert goatools.split_designations("-") == () == goatools.split_designations("")
    assert goatools.split_designations(" a || b |a|-") == ("a", "b")


def test_goatools_entry_spanning_lines_and_never_run(tmp_path: Path) -> None:
    text = (
        "import os\nGENEID2NT = {\n  7 : NtData(GeneID=7,\n      other_designations='x|y'),\n"
        "  8 : NtData(GeneID=8, other_designations=os.system('false')),\n}\n"
    )
    with pytest.raises(InputFileError, match=r"f\.py:5: NtData entry without literal"):
        goatools.load_goatools_designations(text, "f.py")
    ok = text.replace("os.system('false')", "''")
    assert goatools.load_goatools_designations(ok, "f.py") == {7: ("x", "y"), 8: ()}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("x = 1\n", r"f\.py: not a goatools NCBI gene file"),
        ("GENEID2NT = {\n  1 : NtData(GeneID=1, other_designations='a'),\n", r"f\.py:2: .*not closed"),
        ("GENEID2NT = {\n  1 : NtData(GeneID=1, other_des\n}\n", r"f\.py:2: not a Python dict entry"),
        ("GENEID2NT = {\n  1 : dict(GeneID=1),\n}\n", r"f\.py:2: expected `GeneID : NtData"),
        ("GENEID2NT = {\n  2 : NtData(GeneID=1, other_designations=''),\n}\n", r"f\.py:2: GeneID must"),
        ("GENEID2NT = {\n  1 : NtData(GeneID=1),\n}\n", r"f\.py:2: NtData entry without"),
        ("GENEID2NT = {\n}\n", r"f\.py: no NtData entries"),
    ],
)
def test_goatools_bad_files(text: str, error: str) -> None:
    with pytest.raises(InputFileError, match=error):
        goatools.load_goatools_designations(text, "f.py")


def test_designations_only_for_store_genes(store: GeneStore) -> None:
    assert store.meta["designations_release"] == "2016" and store.meta["designations_source"] == "fixture"
    with_any = [r.gene_id for r in store.records() if r.designations]
    assert len(with_any) == 19 == int(store.meta["designations_genes"])
    assert 7154 not in store and store.designations(7154) == ()  # tRNA gene of 2016, not in the slice
    assert store[4508].designations == () and store.has_designations


def test_store_without_designations_table_still_opens(tmp_path: Path, kb_fix: Path) -> None:
    out = tmp_path / "old.sqlite"
    genes.build_from_orgdb(kb_fix / "org.Hs.eg.slice.sqlite", out, "fixture", _designations(kb_fix))
    with sqlite3.connect(out) as con:  # the schema before the designations table
        con.execute("DROP TABLE designations")
    old = GeneStore(out)
    assert not old.has_designations
    assert old[7157].designations == () == old.designations(7157)
    assert all(r.designations == () for r in old.records()) and old[7157].aliases


def test_lookup_by_id_symbol_alias(store: GeneStore) -> None:
    assert [g.symbol for g in store.lookup("7157")] == ["TP53"]
    assert [g.symbol for g in store.lookup("brca1")] == ["BRCA1"]
    assert "TP53" in [g.symbol for g in store.by_alias("p53")]
    assert store.lookup("NO-SUCH-GENE") == []
    assert store.get(123456789) is None
    with pytest.raises(KeyError):
        store["NO-SUCH-GENE"]


def test_bulk_records_equal_single_lookups(store: GeneStore) -> None:
    everything = store.records()
    assert [r.gene_id for r in everything] == list(store)
    assert everything == [store[g] for g in store]
    some = store.records([7157, 672, 999_999_999, 7157])
    assert [r.symbol for r in some] == ["BRCA1", "TP53"]


def test_par_gene_on_x_and_y(store: GeneStore) -> None:
    csf2ra = store.by_symbol("CSF2RA")
    assert csf2ra is not None and set(csf2ra.chromosomes) == {"X", "Y"}


def test_queries(store: GeneStore) -> None:
    assert len(store) == 25 and 7157 in store and list(store)[:2] == [1, 2]
    loc = store.query(loc=True)
    assert loc == [100996442, 112268148]
    assert all(store[i].is_loc for i in loc)
    assert not set(loc) & set(store.query(loc=False))
    assert 7157 in store.query(gene_type="protein-coding", chromosome="17")
    assert store.query(chromosome="MT") == [4508, 4513]
    assert store.query(chromosome="X") == [1438] == store.query(chromosome="Y")
    assert sum(store.type_counts().values()) == 25
    go_id = store[7157].go[0].go_id
    assert 7157 in store.genes_for_go(go_id)
    assert all(a.aspect == "MF" for a in store.go_annotations(7157, "MF"))


def test_gene_info_and_gaf(tmp_path: Path, kb_fix: Path, store: GeneStore) -> None:
    out = tmp_path / "g.sqlite"
    assert genes.build_from_gene_info(kb_fix / "gene_info.tsv", kb_fix / "genes.gaf", out) == 25
    other = GeneStore(out)
    a, b = other[7157], store[7157]
    assert (a.symbol, a.name, a.gene_type, a.chromosomes, a.bands) == (
        b.symbol,
        b.name,
        b.gene_type,
        b.chromosomes,
        b.bands,
    )
    assert set(a.aliases) == set(b.aliases)
    assert a.designations == b.designations == TP53_2016  # the Other_designations column
    assert [r.designations for r in other.records()] == [r.designations for r in store.records()]
    assert (other.meta["designations_source"], other.meta["designations_release"]) == (
        "gene_info.tsv",
        "from file",
    )
    assert other.meta["designations_genes"] == "19"
    assert set(other.by_symbol("A1BG").go) <= set(store.by_symbol("A1BG").go)  # type: ignore[union-attr]
    assert other.query(loc=True) == store.query(loc=True)


def test_gene_info_without_other_designations(tmp_path: Path, kb_fix: Path) -> None:
    rows = [ln.split("\t") for ln in (kb_fix / "gene_info.tsv").read_text().splitlines()]
    cut = tmp_path / "gene_info"
    cut.write_text("".join("\t".join(r[:13] + r[14:]) + "\n" for r in rows))
    assert genes.build_from_gene_info(cut, None, tmp_path / "g.sqlite") == 25
    other = GeneStore(tmp_path / "g.sqlite")
    assert other[7157].designations == () and "designations_release" not in other.meta


def test_bad_gene_files(tmp_path: Path, kb_fix: Path) -> None:
    bad = tmp_path / "gene_info"
    bad.write_text("GeneID\tSymbol\n1\tA1BG\n")
    with pytest.raises(InputFileError, match=r"gene_info:1"):
        genes.build_from_gene_info(bad, None, tmp_path / "x.sqlite")
    lines = (kb_fix / "gene_info.tsv").read_text().splitlines()
    short = tmp_path / "short_info"
    short.write_text("\n".join([*lines[:3], lines[3][:20]]) + "\n")
    with pytest.raises(InputFileError, match=r"short_info:4"):
        genes.build_from_gene_info(short, None, tmp_path / "x.sqlite")
    gaf = tmp_path / "bad.gaf"
    gaf.write_text("!gaf-version: 2.2\nNCBIGene\t7157\tTP53\n")
    with pytest.raises(InputFileError, match=r"bad\.gaf:2"):
        genes.build_from_gene_info(kb_fix / "gene_info.tsv", gaf, tmp_path / "x.sqlite")
    assert not (tmp_path / "x.sqlite").exists() and not list(tmp_path.glob("*.tmp"))
    notdb = tmp_path / "org.sqlite"
    notdb.write_bytes(b"not a database at all" * 100)
    with pytest.raises(SourceError, match=r"org\.sqlite"):
        genes.build_from_orgdb(notdb, tmp_path / "y.sqlite", "x")
