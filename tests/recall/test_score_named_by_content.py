"""``recall score`` tells scorings apart by the files' content, not their names.

Through ``main([...])`` on the 11-term mini GO: other rows under the same file name into the same
``--out`` are another run (refused, naming the folder and both contents; ``--overwrite`` replaces
it); the same rows under another path or name are the same run; so for an ``--invariance-file``. A
folder holding a scoring recorded by its path (an earlier knowsum) is refused with the reason.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main

INV = Path(__file__).resolve().parents[1] / "fixtures" / "recall" / "invariance"


def _score(path: Path | str, out: Path, *extra: str) -> list[str]:
    return [
        "recall",
        "score",
        "--kb",
        "go",
        "--predictions",
        str(path),
        "--n-perm",
        "50",
        "--out",
        str(out),
        *extra,
    ]


def _record(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "result.json").read_text(encoding="utf-8"))
    return data


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _hash(path: Path) -> str:
    return "#" + hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def test_other_rows_under_the_same_name_are_another_run(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, path = Path("rs"), tmp_path / "p.csv"
    path.write_text("id,prediction\nGO:0008150,GO:0008150\nGO:0001822,GO:0060993\n", encoding="utf-8")
    old = _hash(path)
    assert main(_score("p.csv", out)) == 0
    first = _record(out)
    assert first["identity"]["what"] == f"predictions {old}" and first["model"] == "p.csv"
    before = _files(out)
    capsys.readouterr()

    path.write_text("id,prediction\nGO:0000003,GO:0000003\n", encoding="utf-8")  # other rows, same name
    assert main(_score("p.csv", out)) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"knowsum: error: {out} holds a recall run of predictions {old} "
        f"(predictions {old} here, predictions {_hash(path)} asked): "
        "give another --out or --overwrite to replace it"
    )
    assert _files(out) == before  # refused before anything was written

    assert main(_score("p.csv", out, "--overwrite")) == 0
    second = _record(out)
    assert second["scores"]["n"] == 1 and second["identity"]["what"] == f"predictions {_hash(path)}"


def test_the_same_rows_under_another_path_or_name_are_the_same_run(mini_go: Path, tmp_path: Path) -> None:
    out, path = Path("rs"), tmp_path / "p.csv"
    path.write_text("id,prediction\nGO:0008150,GO:0008150\nGO:0001822,GO:0060993\n", encoding="utf-8")
    assert main(_score("p.csv", out)) == 0
    first = _record(out)
    assert main(_score(path, out)) == 0  # the same file by its absolute path
    (tmp_path / "elsewhere").mkdir()
    copy = Path(shutil.copy(path, tmp_path / "elsewhere" / "q.csv"))
    assert main(_score(copy, out)) == 0  # an identical copy under another name
    again = _record(out)
    assert again["identity"] == first["identity"] and again["model"] == "q.csv"


def test_an_invariance_file_is_named_by_content(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = Path("inv")
    answers = Path(shutil.copy(INV / "answers_m3.txt", tmp_path / "answers.txt"))
    args = ["--per-bucket", "2", "--invariance-file"]
    assert main(_score(INV / "concepts.csv", out, *args, f"pi1={answers}")) == 0
    assert _record(out)["identity"]["invariance"] == f"pi1={_hash(answers)}"
    renamed = Path(shutil.copy(answers, tmp_path / "renamed.txt"))
    assert main(_score(INV / "concepts.csv", out, *args, f"pi1={renamed}")) == 0  # a copy: the same run
    capsys.readouterr()
    lines = answers.read_text(encoding="utf-8").splitlines()
    answers.write_text("\n".join([lines[1], lines[0], *lines[2:]]) + "\n", encoding="utf-8")
    assert main(_score(INV / "concepts.csv", out, *args, f"pi1={answers}")) == 2  # other answers
    assert f"(invariance=pi1={_hash(renamed)} here, pi1={_hash(answers)} asked)" in capsys.readouterr().err


@pytest.mark.parametrize("identity", [True, False])
def test_a_scoring_recorded_by_its_path_is_refused_with_the_reason(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], identity: bool
) -> None:
    """An earlier knowsum named the scored file by its resolved path (or, before identities, by its
    name only): what it held is not in the record, so even the same file is refused, saying why."""
    out, path = Path("rs"), tmp_path / "p.csv"
    path.write_text("id,prediction\nGO:0008150,GO:0008150\n", encoding="utf-8")
    assert main(_score("p.csv", out)) == 0
    record = _record(out)
    if identity:
        record["identity"]["what"] = str(path.resolve())
        record["identity"]["model"] = path.name
    else:
        del record["identity"]
    (out / "result.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    capsys.readouterr()

    assert main(_score("p.csv", out)) == 2
    shown = str(path.resolve()) if identity else "p.csv"
    assert capsys.readouterr().err.strip() == (
        f"knowsum: error: {out} holds a recall score of {shown} written by an earlier knowsum, which named "
        "a scored file by its path, not its content, so whether this file holds the same rows cannot be "
        "told: give another --out or --overwrite to replace it"
    )
    assert main(_score("p.csv", out, "--overwrite")) == 0
    assert _record(out)["identity"]["what"] == f"predictions {_hash(path)}"
