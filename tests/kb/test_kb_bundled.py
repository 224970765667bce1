"""The data knowsum ships (issue 10 item 5): theorem list and web-occurrence tables, no ``shared`` needed."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

import pytest

from knowsum.kb import install, load_ontology, load_popularity
from knowsum.kb._sources import BUNDLED_DIR, data_file

# rows and SHA-256 of the uncompressed files, as stated in knowsum/kb/data/README.md
BUNDLED = {
    "theorems_1000plus.tsv.gz": (1201, "2d2d906415e9bc6977a640b55f220e95b9aedc9404896dbc54ac559f1ecc4757"),
    "go_web_occurrences.csv.gz": (42854, "94fc3e9d13aa05644ef364347313414b86031f10fd5c417ba73f0286ebd82d9f"),
    "uberon_web_occurrences.csv.gz": (
        15543,
        "68297c445f53a737e2d0326caa0b0eefa944f0290c4e919b152c861185b7d027",
    ),
}


@pytest.fixture
def no_shared(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """As in a plain clone or a pip install: KNOWSUM_SHARED points nowhere."""
    monkeypatch.setenv("KNOWSUM_SHARED", str(tmp_path / "nonexistent"))


@pytest.mark.parametrize(("name", "expected"), list(BUNDLED.items()))
def test_bundled_files_match_their_readme(name: str, expected: tuple[int, str]) -> None:
    raw = gzip.decompress((BUNDLED_DIR / name).read_bytes())
    assert (len(raw.splitlines()), hashlib.sha256(raw).hexdigest()) == expected
    readme = (BUNDLED_DIR / "README.md").read_text(encoding="utf-8")
    assert name in readme and expected[1] in readme
    assert {"LICENSE-theorems.txt", "LICENSE-web-occurrences.txt"} <= {p.name for p in BUNDLED_DIR.iterdir()}


def test_theorems_install_from_the_package(tmp_home: Path, no_shared: None) -> None:
    assert data_file("data/theorems/theorems_1000plus.tsv") == BUNDLED_DIR / "theorems_1000plus.tsv.gz"
    install(["theorems"])
    onto = load_ontology("theorems")
    assert len(onto) == 1183  # 1,200 rows, 17 of them further names of a theorem already listed
    assert "Dominated convergence theorem" in {onto["Q1067156"].name, *onto["Q1067156"].synonyms}


def test_popularity_tables_from_the_package(no_shared: None) -> None:
    go = load_popularity("go")
    uberon = load_popularity("uberon")
    assert (len(go), len(uberon)) == (42854, 15543)
    assert all(r.id.startswith("GO:") for r in go) and all(r.count >= 0 for r in uberon)


def test_install_from_file_still_wins(tmp_home: Path, no_shared: None, tmp_path: Path) -> None:
    own = tmp_path / "mine.tsv"
    own.write_text("wikidata\tname\twikipedia_titles\tmsc\nQ11518\tPythagorean theorem\t\t51\n")
    install(["theorems"], [own])
    assert list(load_ontology("theorems")) == ["Q11518"]
