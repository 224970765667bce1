"""Popularity tables: the ``;``-separated web-occurrence files and generic (ID, count) tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.errors import InputError, InputFileError, SourceError
from knowsum.kb import PopularityRow, load_popularity


def test_web_occurrence_file(kb_fix: Path) -> None:
    rows = load_popularity(path=kb_fix / "go_web_occurrences.csv")
    assert len(rows) == 60
    assert rows[0] == PopularityRow("GO:0006600", "creatine metabolic process", 1830, 4085)
    uberon = load_popularity(path=kb_fix / "uberon_web_occurrences.csv")
    assert uberon[0] == PopularityRow("UBERON:0001062", "anatomical entity", 13200, 0)


def test_knowsum_shared_overrides_the_bundled_table(
    kb_fix: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "data" / "web_popularity"
    target.mkdir(parents=True)
    (target / "go_web_occurrences.csv").write_bytes((kb_fix / "go_web_occurrences.csv").read_bytes())
    monkeypatch.setenv("KNOWSUM_SHARED", str(tmp_path))
    assert len(load_popularity("go")) == 60
    with pytest.raises(InputError, match="known: go, uberon"):
        load_popularity("hpo")


def test_broken_install_without_the_bundled_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KNOWSUM_SHARED", str(tmp_path))
    import knowsum.kb._sources as sources

    monkeypatch.setattr(sources, "BUNDLED_DIR", tmp_path / "nothing")
    with pytest.raises(SourceError, match=r"no such data file in knowsum .*; pass --from FILE"):
        load_popularity("uberon")


def test_generic_tables_and_labels_with_separator(tmp_path: Path) -> None:
    two = tmp_path / "two.csv"
    two.write_text("id,count\nGO:0001822,12\nGO:0000003,7\n")
    assert load_popularity(path=two) == [
        PopularityRow("GO:0001822", "", 12),
        PopularityRow("GO:0000003", "", 7),
    ]
    tab = tmp_path / "three.tsv"
    tab.write_text("DOID:10652\tAlzheimer's disease\t99\n")
    assert load_popularity(path=tab)[0] == PopularityRow("DOID:10652", "Alzheimer's disease", 99)
    semi = tmp_path / "semi.csv"
    semi.write_text("GO:1;a;b label;3;4\n")
    assert load_popularity(path=semi)[0] == PopularityRow("GO:1", "a;b label", 4, 3)


def test_bad_table(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("GO:1;x;1;2\nGO:2;y;oops;many\n")
    with pytest.raises(InputFileError, match=r"bad\.csv:2"):
        load_popularity(path=bad)
    empty = tmp_path / "empty.csv"
    empty.write_text("\n")
    with pytest.raises(InputFileError, match="no rows"):
        load_popularity(path=empty)
