"""Bad input: one clear line naming the file and line, a non-zero exit, nothing half-written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import InputFileError
from knowsum.genebench import read_abstracts, read_expression, read_summaries, write_questions

from .test_run_mock import QUESTIONS


@pytest.mark.parametrize(
    ("reader", "text", "line", "message"),
    [
        (read_expression, "gene\tcategory\ttissues\nTP53\tHigh expression\tliver\n", 2, "unknown category"),
        (read_expression, "TP53\tBiased expression\n", 1, "expected 3 tab-separated columns"),
        (read_expression, "TP53\tBiased expression\t \n", 1, "empty tissue list"),
        (read_expression, "TP53\tLow expression\tliver\n", 1, "'Low expression' gene"),
        (
            read_expression,
            "TP53\tBiased expression\tliver\nTP53\tBiased expression\tcolon\n",
            2,
            "appears twice",
        ),
        (read_expression, '{"gene": "TP53", "category": "Biased expression"}\n', 1, "missing key"),
        (
            read_expression,
            '{"gene": "TP53", "category": 3, "tissue_list": ["liver"]}\n',
            1,
            "unknown category",
        ),
        (read_summaries, "TP53\t\n", 1, "empty summary"),
        (read_summaries, "TP53 has no tab\n", 1, "expected 2 tab-separated columns"),
        (read_abstracts, "pmid\tabstract\nPMID123\ttext\n", 2, "PubMed ID"),
        (read_abstracts, '{"pmid": 1, "abstract": "a"}\n{"pmid": 1, "abstract": "b"}\n', 2, "appears twice"),
        (read_abstracts, "{not json\n", 1, "invalid JSON"),
    ],
)
def test_user_file_bad_rows(tmp_path: Path, reader, text: str, line: int, message: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "user.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFileError, match=message) as exc:
        reader(path)
    assert str(exc.value).startswith(f"{path}:{line}:")


def test_user_files_good_rows(tmp_path: Path) -> None:
    path = tmp_path / "e.tsv"
    path.write_text("gene\tcategory\ttissues\nAADAC\tbiased expression\tliver|small intestine, duodenum\n")
    assert read_expression(path)["AADAC"].tissues == ("liver", "small intestine", "duodenum")
    path.write_text('{"pmid": 12, "abstract": "TRAPP is a complex."}\n\n34\tSecond abstract.\n')
    assert read_abstracts(path) == {12: "TRAPP is a complex.", 34: "Second abstract."}


@pytest.fixture
def qfile(tmp_path: Path) -> Path:
    path = tmp_path / "questions.jsonl"
    write_questions(path, QUESTIONS)
    return path


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("not json", "not a JSON object"),
        ('{"question_index": "nope", "response": "A"}', "unknown question_index 'nope'"),
        ('{"question_index": "Q0", "response": 3}', "'response' must be a string"),
        ('{"question_index": "Q0", "permutation": 4, "response": "A"}', "permutation 4 out of range 0..3"),
        ('{"question_index": "Q0", "permutation": 0, "response": "A"}', "repeats the prediction of line 1"),
    ],
)
def test_bad_prediction_rows(
    qfile: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, message: str
) -> None:
    first = QUESTIONS[0].question_index
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        json.dumps({"question_index": first, "response": "A"}) + "\n" + row.replace("Q0", first) + "\n"
    )
    out = tmp_path / "scored"
    code = main(
        ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--out", str(out)]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith(f"knowsum: {preds}:2:") or f"{preds}:2:" in err[0]
    assert message in err[0]
    assert not out.exists()  # nothing written


def test_bad_question_file_at_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qfile = tmp_path / "q.jsonl"
    qfile.write_text('{"question_index": "a", "question_type": "single_choice"}\n')
    code = main(["genebench", "run", str(qfile), "-m", "mock", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and f"{qfile}:1:" in err[0]
    assert not (tmp_path / "run").exists()


def test_run_needs_exactly_one_question_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["genebench", "run", "-m", "mock"]) == 2
    assert "QUESTIONS file or --build-default" in capsys.readouterr().err


def test_paper_size_is_for_building(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n")
    assert main(["genebench", "run", str(qfile), "--paper-size", "-m", "mock"]) == 2
    assert "--paper-size feed the question builder" in capsys.readouterr().err


def test_unknown_type_at_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["genebench", "build", "--types", "Q1,Q42"]) == 2
    assert "unknown question type 'Q42'" in capsys.readouterr().err
