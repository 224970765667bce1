"""``genebench run`` tells runs apart by the questions' content, not the question file's name.

Through ``main([...])`` on the mock backend (questions without GO or summary answers, so no KB is
needed): other questions under the same file name into the same ``--out`` are another run (refused,
naming the folder and both question sets; ``--overwrite`` replaces it); the same questions under
another path or name are the same run. A run folder written while a question file was named by its
path is read for what it holds: the same questions continue into it, other ones are refused.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.genebench import GenebenchConfig, run_genebench, write_questions
from knowsum.genebench._run import run_identity
from knowsum.models import MockBackend
from tests.genebench._mixture import QUESTIONS, reply

FIRST, OTHER = QUESTIONS[:2], QUESTIONS[2:5]  # single and multiple choice: no GO, no summaries


def _run(questions: Path | str, out: Path, *extra: str) -> list[str]:
    return ["genebench", "run", str(questions), "-m", "mock", "--n-perm", "20", "--out", str(out), *extra]


def _record(out: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((out / "result.json").read_text(encoding="utf-8"))
    return data


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_other_questions_under_the_same_name_are_another_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    out = Path("gr")
    write_questions(Path("q.jsonl"), FIRST)
    assert main(_run("q.jsonl", out)) == 0
    first = _record(out)
    assert first["identity"]["what"] == "questions #" + first["questions_sha256"][:12]
    before = _files(out)
    capsys.readouterr()

    write_questions(Path("q.jsonl"), OTHER)  # another question set, the same file name
    assert main(_run("q.jsonl", out)) == 2
    err = capsys.readouterr().err.strip()
    old = first["questions_sha256"][:12]
    assert err.startswith(f"knowsum: error: {out} holds a genebench run of questions #{old} ")
    assert f"(questions #{old} here, questions #" in err and " asked)" in err
    assert err.endswith("give another --out or --overwrite to replace it")
    assert _files(out) == before  # refused before anything was asked or written

    assert main(_run("q.jsonl", out, "--overwrite")) == 0
    second = _record(out)
    assert second["n_questions"] == len(OTHER) and second["questions_sha256"] != first["questions_sha256"]
    assert err.split("questions #")[-1].startswith(second["questions_sha256"][:12])  # the asked set


def test_the_same_questions_under_another_path_or_name_are_the_same_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    out = Path("gr")
    write_questions(Path("q.jsonl"), FIRST)
    assert main(_run("q.jsonl", out)) == 0
    first = _record(out)
    assert main(_run(tmp_path / "q.jsonl", out)) == 0  # the same file by its absolute path
    (tmp_path / "elsewhere").mkdir()
    copy = shutil.copy(tmp_path / "q.jsonl", tmp_path / "elsewhere" / "copy.jsonl")
    assert main(_run(copy, out)) == 0  # an identical copy under another name
    again = _record(out)
    assert again["identity"] == first["identity"] and again["questions_file"] == str(copy)
    assert again["questions_sha256"] == first["questions_sha256"]


def test_a_folder_that_named_its_question_file_by_path_is_read_for_its_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record of an earlier knowsum: ``what`` is the question file as given; its questions are
    known by ``questions_sha256``, so the same questions continue into the folder."""
    monkeypatch.chdir(tmp_path)
    out = Path("gr")
    write_questions(Path("q.jsonl"), FIRST)
    assert main(_run("q.jsonl", out)) == 0
    record = _record(out)
    record["identity"]["what"] = record["questions_file"]  # as the earlier knowsum wrote it
    (out / "result.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    capsys.readouterr()

    assert main(_run("q.jsonl", out, "--seed", "4")) == 2  # another setting is named as such
    assert f"{out} holds a genebench run of q.jsonl (seed=0 here, 4 asked)" in capsys.readouterr().err
    write_questions(Path("q.jsonl"), OTHER)
    assert main(_run("q.jsonl", out)) == 2  # other questions under the old name: another run
    assert f"{out} holds a genebench run of q.jsonl (q.jsonl here, questions #" in capsys.readouterr().err
    write_questions(Path("copy.jsonl"), FIRST)
    assert main(_run("copy.jsonl", out)) == 0  # the same questions: the same run, now named by content
    assert _record(out)["identity"]["what"] == "questions #" + record["questions_sha256"][:12]


def test_questions_given_in_code_are_named_by_content(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = run_genebench(
        GenebenchConfig(n_perm=20), MockBackend(reply), store=None, questions=FIRST, out=out
    )
    with pytest.raises(Exception, match=r"holds a genebench run of questions #\w{12} \(questions #"):
        run_genebench(GenebenchConfig(n_perm=20), MockBackend(reply), store=None, questions=OTHER, out=out)
    record = _record(out)
    record["identity"]["what"] = "given questions"  # as an earlier knowsum wrote it
    (out / "result.json").write_text(json.dumps(record), encoding="utf-8")
    again = run_genebench(
        GenebenchConfig(n_perm=20), MockBackend(reply), store=None, questions=FIRST, out=out
    )
    assert again.record.identity == first.record.identity


def test_the_files_a_build_reads_are_named_by_content(tmp_path: Path) -> None:
    """``--expression``/``--summaries``/``--abstracts``: a copy is the same build, other rows another."""
    (tmp_path / "a").mkdir()
    expr = tmp_path / "a" / "expr.tsv"
    expr.write_text("symbol\tcategory\ttissues\nKLKB1\ttissue enriched\tliver\n", encoding="utf-8")
    copy = shutil.copy(expr, tmp_path / "renamed.tsv")

    def build(path: Path) -> str:
        return run_identity(GenebenchConfig(expression=path, summaries=path), "m")["build"]

    assert build(expr) == build(copy) and str(expr) not in build(expr) and "renamed" not in build(copy)
    assert "abstracts None" in build(expr)  # a file not given reads as before
    expr.write_text("symbol\tcategory\ttissues\nKLKB1\tlow tissue specificity\t\n", encoding="utf-8")
    assert build(expr) != build(copy)
