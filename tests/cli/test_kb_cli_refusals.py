"""`knowsum kb install|categories|match`: files of the wrong KB or without its root, KBs without
categories, genes matched with ontology-only options and bad option values are one line each."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.kb import _install, installed, load_ontology, store_path

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"

DOID_WITHOUT_ROOT = """format-version: 1.2
ontology: doid

[Term]
id: DOID:7
name: disease of anatomical entity

[Term]
id: DOID:10652
name: Alzheimer's disease
is_a: DOID:7 ! disease of anatomical entity
"""


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["kb", *args])
    out, err = capsys.readouterr()
    return code, out, err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("knowsum: error: "), err
    return lines[0]


@pytest.fixture
def slim(tmp_path: Path) -> Path:
    """A valid DO OBO file without the DO's root DOID:4."""
    path = tmp_path / "doid_slim.obo"
    path.write_text(DOID_WITHOUT_ROOT, encoding="utf-8")
    return path


def test_install_refuses_a_file_without_the_recorded_root(
    tmp_home: Path, slim: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "install", "doid", "--from", str(slim))
    line = one_line(err)
    assert (code, out) == (2, "")
    assert str(slim) in line and "no term DOID:4" in line
    assert installed("doid") is None and not store_path("doid").exists()


def test_install_refuses_a_file_whose_ids_are_of_another_kb(
    tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hp = KB_FIX / "hp.obo"
    for name in ("doid", "go", "uberon", "mondo"):
        code, out, err = run(capsys, "install", name, "--from", str(hp))
        line = one_line(err)
        assert (code, out) == (2, ""), name
        assert str(hp) in line and f"is a {name} ID" in line and "HP:0000001" in line
        assert installed(name) is None
    assert run(capsys, "install", "hpo", "--from", str(hp))[0] == 0  # its own KB takes it


def test_a_refused_file_keeps_the_previous_install(
    tmp_home: Path, slim: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = KB_FIX / "doid_categories.obo"
    assert run(capsys, "install", "doid", "--from", str(good))[0] == 0
    code, _, err = run(capsys, "install", "doid", "--from", str(slim))
    assert code == 2 and "no term DOID:4" in one_line(err)
    assert "DOID:4" in load_ontology("doid")
    assert run(capsys, "categories", "doid")[0] == 0


def test_categories_of_a_store_without_its_root_is_one_line(
    tmp_home: Path, slim: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # a store installed before install checked roots: its meta names DOID:4, its terms lack it
    with monkeypatch.context() as m:
        m.setattr(_install, "_check_from", lambda *_args: None)
        assert run(capsys, "install", "doid", "--from", str(slim))[0] == 0
    code, out, err = run(capsys, "categories", "doid")
    line = one_line(err)
    assert (code, out) == (2, "")
    assert "lacks its root DOID:4" in line and "knowsum kb install doid" in line
    assert run(capsys, "categories", "doid", "--json")[0] == 2


@pytest.mark.parametrize(("name", "file"), [("theorems", "theorems.tsv"), ("mesh", "mesh.tsv")])
def test_categories_of_a_kb_without_a_hierarchy_is_refused(
    tmp_home: Path, capsys: pytest.CaptureFixture[str], name: str, file: str
) -> None:
    assert run(capsys, "install", name, "--from", str(KB_FIX / file))[0] == 0
    code, out, err = run(capsys, "categories", name)
    line = one_line(err)
    assert (code, out) == (2, "")
    assert f"{name} has no is_a hierarchy" in line and "go, doid, icd10, icd10cm, hpo, uberon, mondo" in line


def test_strict_criterion_note_only_for_doid(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "install", "hpo", "--from", str(KB_FIX / "hp.obo"))[0] == 0
    code, out, _ = run(capsys, "categories", "hpo")
    assert code == 0 and out.splitlines()[0] == "hpo: terms per top-level category"
    assert run(capsys, "install", "doid", "--from", str(KB_FIX / "doid_categories.obo"))[0] == 0
    code, out, _ = run(capsys, "categories", "doid")
    assert code == 0 and "(strict criterion: precedence rule)" in out.splitlines()[0]


@pytest.fixture
def genes(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    code, _, err = run(
        capsys,
        "install",
        "genes",
        "--from",
        str(KB_FIX / "gene_info.tsv"),
        "--from",
        str(KB_FIX / "genes.gaf"),
    )
    assert code == 0, err
    return tmp_home


def test_match_genes_without_a_hit_says_so(genes: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "match", "genes", "xyzzyq")
    assert (code, out) == (1, "")
    assert err == "no gene 'xyzzyq' in genes (try an Entrez ID, symbol or alias)\n"
    code, out, err = run(capsys, "match", "genes", "xyzzyq", "--json")
    assert (code, out.strip(), err) == (1, "[]", "")


@pytest.mark.parametrize(
    ("extra", "option"),
    [(["--cutoff", "0.5"], "--cutoff"), (["--cutoff", "0.9"], "--cutoff"), (["--obsolete"], "--obsolete")],
)
def test_match_genes_refuses_ontology_options(
    genes: Path, capsys: pytest.CaptureFixture[str], extra: list[str], option: str
) -> None:
    code, out, err = run(capsys, "match", "genes", "TP53", *extra)
    line = one_line(err)
    assert (code, out) == (2, "")
    assert f"{option} does not apply to genes" in line


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "2", "0", "x"])
def test_match_cutoff_is_a_finite_range(
    tmp_home: Path, capsys: pytest.CaptureFixture[str], value: str
) -> None:
    assert run(capsys, "install", "hpo", "--from", str(KB_FIX / "hp.obo"))[0] == 0
    code, out, err = run(capsys, "match", "hpo", "seizure", "--cutoff", value)
    assert (code, out) == (2, "")
    assert (
        f"Invalid value for '--cutoff': '{value}'" in err or f"Invalid value for '--cutoff': {value} " in err
    )
    assert len(err.strip().splitlines()) == 1, err


def test_install_from_a_directory_says_so(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "install", "hpo", "--from", str(tmp_path))
    line = one_line(err)
    assert (code, out) == (2, "")
    assert f"--from {tmp_path}: is a directory" in line and "not found" not in line
