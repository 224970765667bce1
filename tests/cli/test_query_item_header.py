"""A ``query<TAB>item`` header line is a header to every reader of ``QUERY<TAB>ITEM`` files.

``census score`` and ``knowsum estimate`` read it as a query named "query" naming an item "item"
(one more response, one more singleton). Both now take such a first line as the column header, say
so, and give the figures of the same file without it; a file holding the header alone is refused in
one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main

ROWS = "".join(f"q{i}\t{item}\n" for i in range(12) for item in ("a", f"b{i}", f"c{i % 4}"))


@pytest.mark.parametrize("header", ["query\titem\n", "Query\tItems\n"])
def test_both_readers_take_a_first_query_item_line_as_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], header: str
) -> None:
    plain, headed = tmp_path / "plain.tsv", tmp_path / "headed.tsv"
    plain.write_text(ROWS)
    headed.write_text(header + ROWS)
    runs = {}
    for path in (plain, headed):
        out = tmp_path / f"run-{path.stem}"
        args = ["census", "score", str(path), "--out", str(out), "--n-bootstrap", "0", "--name", "score:x"]
        assert main(args) == 0
        err = capsys.readouterr().err
        assert ("line 1 (query, item) read as the column header" in err) is (path == headed)
        runs[path] = json.loads((out / "result.json").read_text())
    assert (
        runs[plain]["counts"] == runs[headed]["counts"] and runs[plain]["n_total"] == runs[headed]["n_total"]
    )
    estimates = {}
    for path in (plain, headed):
        assert main(["estimate", str(path), "--n-bootstrap", "0", "--json"]) == 0
        estimates[path] = json.loads(capsys.readouterr().out)
    assert estimates[plain]["n_seen"] == estimates[headed]["n_seen"] == 17
    assert estimates[plain]["n_queries"] == estimates[headed]["n_queries"] == 12
    assert main(["estimate", str(headed), "--n-bootstrap", "0"]) == 0
    assert "line 1 (query, item) is the column header" in capsys.readouterr().out


def test_a_header_alone_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    alone = tmp_path / "alone.tsv"
    alone.write_text("query\titem\n")
    assert main(["census", "score", str(alone), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds its header line alone" in err
    assert not (tmp_path / "r").exists()
    assert main(["estimate", str(alone)]) == 2
    assert "only a header line" in capsys.readouterr().err
