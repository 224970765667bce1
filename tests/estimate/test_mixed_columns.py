"""A two-column file that mixes ITEM<TAB>COUNT lines with a line whose second field is no count is
refused, naming both lines, rather than guessed: read as QUERY<TAB>ITEM it made ``apple<TAB>3`` a query
"apple" naming the item "3" (exit 0). A real QUERY<TAB>ITEM file, numbers among its items, still reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main


@pytest.mark.parametrize(
    ("text", "bad"),
    [("apple\t3\nbanana\tx\n", "2"), ("apple\t3\nbanana\t2\nfig\t\n", "3")],
)
def test_mixed_lines_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, bad: str
) -> None:
    f = tmp_path / "c.tsv"
    f.write_text(text, encoding="utf-8")
    assert main(["estimate", str(f)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert f"c.tsv:{bad}: mixes ITEM<TAB>COUNT lines (line 1: 'apple\\t3')" in err and "--format" in err
    if bad == "2":  # said explicitly, it reads as asked ("fig<TAB>" has no item either way)
        assert main(["estimate", str(f), "--format", "items"]) == 0
    capsys.readouterr()


def test_query_item_lines_with_a_few_numbers_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "items.tsv"
    f.write_text("q1\tapple\nq1\t1984\nq2\tapple\nq2\tpear\nq3\tfig\n", encoding="utf-8")
    assert main(["estimate", str(f), "--json"]) == 0
    assert '"format": "items"' in capsys.readouterr().out
