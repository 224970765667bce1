"""`kb install KB --from FILE` refuses conflicting or cut-short files in one line (exit 2, the previous
install kept), and a user's file is recorded under its own name, not the release of the data knowsum
ships. Through the CLI, in an isolated knowsum home."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.cli import main
from knowsum.kb._sources import sha256

MINI_GO = Path(__file__).resolve().parents[1] / "fixtures" / "recall" / "mini_go.obo"
KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"
HEADER = "wikidata\tname\twikipedia_titles\tmsc\n"


def kb(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["kb", *args])
    out, err = capsys.readouterr()
    return code, out, err


def one_error(err: str) -> str:
    """The single ``knowsum: error:`` line of ``err`` (asserting there is exactly one)."""
    lines = [ln for ln in err.splitlines() if ln.startswith("knowsum: error:")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def go_home(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """A knowsum home with ``go`` installed from ``mini_go.obo`` (the install a refusal must keep)."""
    code, _, err = kb(capsys, "install", "go", "--from", str(MINI_GO))
    assert code == 0, err
    return tmp_home


def refused(capsys: pytest.CaptureFixture[str], path: Path, *, kb_name: str = "go") -> str:
    """Install ``path`` with --force, assert exit 2 and one error line, and return that line."""
    before = json.loads((paths.kb_dir() / "manifest.json").read_text())[kb_name]
    code, out, err = kb(capsys, "install", kb_name, "--from", str(path), "--force")
    assert code == 2 and out == ""
    after = json.loads((paths.kb_dir() / "manifest.json").read_text())[kb_name]
    assert after == before  # the previous install is kept
    return one_error(err)


def test_a_duplicate_term_id_is_refused_not_merged(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = MINI_GO.read_text()
    dup = tmp_path / "dupid.obo"
    dup.write_text(text + "\n[Term]\nid: GO:0001822\nname: duplicate kidney thing\n")
    line = len(text.splitlines()) + 3
    first = text.splitlines().index("id: GO:0001822") + 1
    msg = refused(capsys, dup)
    assert f"dupid.obo:{line}: term GO:0001822 is defined again (first [Term] with it at line {first})" in msg
    assert "keep one [Term] stanza per ID" in msg and "'id: GO:0001822'" in msg
    code, out, _ = kb(capsys, "show", "go", "GO:0001822")
    assert code == 0 and out.startswith("GO:0001822\tkidney development")


def test_a_second_name_in_one_stanza_is_refused(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    twice = tmp_path / "twice.obo"
    twice.write_text(
        MINI_GO.read_text().replace("name: kidney development\n", "name: kidney development\nname: x\n")
    )
    msg = refused(capsys, twice)
    assert "twice.obo:13: a second 'name' in the [Term] stanza of line 10 (first at line 12)" in msg
    assert "'name: x'" in msg


def test_an_obo_file_cut_inside_a_tag_is_refused(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "trunc.obo"
    cut.write_bytes(MINI_GO.read_bytes()[:200])  # ends "namespa": the tag of line 13, cut
    msg = refused(capsys, cut)
    assert "trunc.obo:13: expected a 'tag: value' line (no ':')" in msg
    assert "give the complete OBO file" in msg and "(line: 'namespa')" in msg


def test_a_stanza_line_without_a_colon_is_refused(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbled = tmp_path / "garbled.obo"
    garbled.write_text(
        MINI_GO.read_text().replace("name: biological_process\n", "name: biological_process\njunk\n")
    )
    msg = refused(capsys, garbled)
    assert "garbled.obo:8: expected a 'tag: value' line (no ':')" in msg and "'junk'" in msg


@pytest.mark.parametrize(
    ("cut_after", "problem"),
    [
        ("[Te", "stanza header without its closing ']'"),
        ('def: "The process whose specific', "def text without its closing quote"),
        ('def: "The process." [GO:', "def cross-references without their closing ']'"),
        ('synonym: "nephrogen', "synonym text without its closing quote"),
    ],
)
def test_an_obo_file_cut_in_a_header_quote_or_list_is_refused(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], cut_after: str, problem: str
) -> None:
    head = MINI_GO.read_text().split("\n[Term]\nid: GO:0060993")[0]  # two whole stanzas, lines 1-14
    cut = tmp_path / "cut.obo"
    cut.write_text(head + cut_after)  # the cut line is line 15, without a final newline
    msg = refused(capsys, cut)
    assert f"cut.obo:15: {problem}" in msg and "give the complete OBO file" in msg
    assert repr(cut_after) in msg


def test_a_stanza_cut_before_its_name_is_refused(
    go_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = tmp_path / "trunc2.obo"
    cut.write_bytes(MINI_GO.read_bytes()[:163])  # "[Term]\nid: GO:000": a stanza without a name
    msg = refused(capsys, cut)
    assert (
        "trunc2.obo:10: [Term] stanza without id or name (GO:000 has no name)" in msg
        and "give the complete OBO file" in msg
    )


def test_a_missing_final_newline_installs_with_a_warning(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # legal in a complete file (the last value may be whole), so not refused: the install says so
    whole = tmp_path / "whole.obo"
    whole.write_text(MINI_GO.read_text().rstrip("\n"))
    code, out, err = kb(capsys, "install", "go", "--from", str(whole))
    assert code == 0 and "11 entries" in out
    n = len(MINI_GO.read_text().splitlines())
    assert f"go: warning: {whole}:{n}: the last line has no newline" in err
    code, out, err = kb(capsys, "install", "go", "--from", str(MINI_GO), "--force")
    assert code == 0 and "warning" not in err


def test_real_obo_files_still_install(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # slices of the real hp.obo and doid.obo: no refusal and no warning
    for name, file in (("hpo", KB_FIX / "hp.obo"), ("doid", KB_FIX / "doid_categories.obo"), ("go", MINI_GO)):
        code, _, err = kb(capsys, "install", name, "--from", str(file))
        assert code == 0 and "warning" not in err and "error" not in err, err


def test_a_theorem_row_with_missing_columns_is_refused(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.tsv"
    good.write_text(HEADER + "Q1\tX theorem\tX\t01\n")
    assert kb(capsys, "install", "theorems", "--from", str(good))[0] == 0
    for row, n in (("Q2\tY", 2), ("Q2\tY\t\t01\textra", 5)):
        bad = tmp_path / "short.tsv"
        bad.write_text(HEADER + "Q1\tX theorem\tX\t01\n" + row + "\n")
        msg = refused(capsys, bad, kb_name="theorems")
        assert f"short.tsv:3: {n} tab-separated columns, the header has 4" in msg
        assert "give every row all columns" in msg and repr(row) in msg


def test_a_users_theorem_file_is_not_recorded_as_the_bundled_snapshot(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    own = tmp_path / "own.tsv"
    own.write_text(HEADER + "Q1\tX theorem\tX\t01\nQ2\tY\t\t\n")
    code, out, _ = kb(capsys, "install", "theorems", "--from", str(own))
    assert code == 0 and "2 entries" in out
    want = f"from file own.tsv (sha256 {sha256(own)[:12]})"
    assert json.loads((paths.kb_dir() / "manifest.json").read_text())["theorems"]["release"] == want
    code, out, _ = kb(capsys, "list")
    (row,) = [ln for ln in out.splitlines() if ln.startswith("theorems")]
    assert want in row and "snapshot" not in row and "2026-07-22" not in row
