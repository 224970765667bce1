"""``genebench compare`` asks the comparability check: runs of different question sets are refused (or
marked with ``--allow-mixed``), and a run given twice is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench.record import GenebenchRecord
from tests.report.test_genebench_report import _records, _result


def _write(folder: Path, result: GenebenchRecord) -> Path:
    folder.mkdir()
    (folder / "result.json").write_text(result.model_dump_json())
    return folder


def test_compare_refuses_other_question_sets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    records = _records()
    a = _write(tmp_path / "a", _result(records, model="a"))
    b = _write(tmp_path / "b", _result(records, model="b").model_copy(update={"questions_sha256": "cd" * 32}))
    same = _write(tmp_path / "c", _result(records, model="c"))
    assert main(["genebench", "compare", str(a), str(b)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{a} and {b} are not comparable (questions #abababababab vs #cdcdcdcdcdcd)" in err
    assert main(["genebench", "compare", str(a), str(b), "--allow-mixed"]) == 0
    assert "b [differs: questions #abababababab vs #cdcdcdcdcdcd]" in capsys.readouterr().out
    assert main(["genebench", "compare", str(a), str(same)]) == 0
    assert "differs" not in capsys.readouterr().out
    assert main(["genebench", "compare", str(a), str(a)]) == 2
    assert "are the same run twice" in capsys.readouterr().err
