"""``recall score --popularity FILE``: a bad count in the popularity table is one line naming the file,
the line, the field, its column and value, and what to do (the one file-error wording of
``tests/cli/test_file_errors.py``); a header row is skipped, a bad first data row is not taken for one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.kb import install, load_popularity

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
FIX_LINE = "a popularity is a whole number >= 0; correct it, or remove the line"


@pytest.fixture
def work(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install(["go"], from_files=[FIX / "mini_go.obo"])
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.csv").write_text("id,prediction\nGO:0001822,GO:0001822\n")
    return tmp_path


@pytest.mark.parametrize(
    ("content", "where", "problem"),
    [
        ("id,count\nGO:0001822,abc\n", 2, "field count 'abc' (column 2) is not a whole number"),
        ("id,count\nGO:0001822,-5\n", 2, "field count '-5' (column 2) is negative"),
        ("GO:0001822,abc\n", 1, "field count 'abc' (column 2) is not a whole number"),  # not a header
        ("GO:0001822\tkidney development\t2.5\n", 1, "field count '2.5' (column 3) is not a whole number"),
        (
            "GO:0001822;kidney development;x;10\n",
            1,
            "field n_annotations 'x' (column 3) is not a whole number",
        ),
        ("GO:0001822;kidney development;3;-2\n", 1, "field n_web_occurrences '-2' (column 4) is negative"),
    ],
)
def test_a_bad_count_names_file_line_field_and_value(
    work: Path, capsys: pytest.CaptureFixture[str], content: str, where: int, problem: str
) -> None:
    table = work / "pop.csv"
    table.write_text(content, encoding="utf-8")
    args = ["recall", "score", "--kb", "go", "--predictions", "p.csv", "--popularity", str(table)]
    assert main([*args, "--out", str(work / "run")]) == 2
    err = capsys.readouterr().err
    line = content.splitlines()[where - 1]
    assert err == f"knowsum: error: {table}:{where}: {problem}: {FIX_LINE} (line: {line!r})\n"
    assert not (work / "run").exists()  # nothing written


def test_a_header_row_is_skipped_and_good_rows_are_read(tmp_path: Path) -> None:
    table = tmp_path / "pop.tsv"
    table.write_text("id\tcount\nGO:0001822\t1000\nGO:0060993\tkidney morphogenesis\t0\n")
    rows = load_popularity(path=table)
    assert [(r.id, r.label, r.count) for r in rows] == [
        ("GO:0001822", "", 1000),
        ("GO:0060993", "kidney morphogenesis", 0),
    ]
