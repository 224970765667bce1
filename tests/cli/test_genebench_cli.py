"""``knowsum genebench build|run|score|compare`` through ``main([...])``: outputs, exit codes, stderr.

The scripted runs use the reply mixture of ``tests/genebench/_mixture.py`` (every metric computed by
hand there) and the GO slice of the genebench fixtures.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from knowsum.cli import main
from knowsum.genebench import (
    GenebenchConfig,
    read_questions,
    read_records,
    run_genebench,
    write_outputs,
    write_questions,
)
from knowsum.kb import Ontology, installed
from knowsum.models import MockBackend, ResponseStore
from tests.genebench._mixture import QUESTIONS, reply, write_predictions
from tests.genebench.conftest import go_slice_obo, slice_go  # noqa: F401  (fixtures)


@pytest.fixture
def run(slice_go: Ontology, tmp_path: Path):  # type: ignore[no-untyped-def]  # noqa: F811
    """The mixture run on the scripted backend, lenient rule: (result, records, questions, backend)."""
    backend = MockBackend(reply)
    with ResponseStore(tmp_path / "store.sqlite") as store:
        gb = run_genebench(
            GenebenchConfig(lenient=True), backend, store=store, questions=QUESTIONS, out=tmp_path / "run"
        )
    return gb.record, read_records(gb.out_dir), read_questions(gb.out_dir / "questions.jsonl"), backend


def _score_cli(tmp_path: Path, *extra: str) -> dict[str, object]:
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    preds = write_predictions(tmp_path / "preds.jsonl")
    out = tmp_path / f"scored{len(extra)}"
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--out", str(out)]
    assert main([*args, *extra]) == 0
    data: dict[str, object] = json.loads((out / "result.json").read_text())
    return data


@pytest.mark.usefixtures("slice_go")
def test_cli_score_lenient_and_strict_by_hand(tmp_path: Path) -> None:
    per_rot = [1.0, 2 / 3, 0.8, 0.0]
    lenient = _score_cli(tmp_path, "--lenient")
    s = lenient["scores"]
    cells = {c["key"]: c["mean"] for c in s["cells"]}  # type: ignore[index]
    assert cells == pytest.approx(
        {
            "Q1/loc": 0.25,
            "Q1/non-loc": 0.5,
            "Q2-A/no-answer": 1.0,
            "Q2-A/control": 0.0,
            "Q2-B": float(np.mean(per_rot)),
            "Q6": 0.7,
            "Q7/no_ref": 14 / 18,
            "Q7/with_ref": 0.0,
        }
    )
    assert s["overall"] == pytest.approx(np.mean([0.375, (1.0 + np.mean(per_rot)) / 2, 7 / 18, 0.7]))  # type: ignore[index]
    assert s["reply_rule"] == "lenient" and s["format_error_rate"] == pytest.approx(3 / 23)  # type: ignore[index]
    assert s["format_errors_by_kind"]["truncated"] == pytest.approx(  # type: ignore[index]
        {
            "overall": 1 / 23,
            "expression": 0.0,
            "go_annotation": 0.5,
            "multiple_choice": 0.0,
            "single_choice": 0.0,
        }
    )
    assert s["truncated_rate"]["overall"] == pytest.approx(1 / 23)  # type: ignore[index]
    strict = _score_cli(tmp_path)["scores"]
    cells = {c["key"]: c["mean"] for c in strict["cells"]}  # type: ignore[index]
    assert (cells["Q1/non-loc"], cells["Q2-A/no-answer"], cells["Q2-A/control"]) == (0.25, 0.0, 0.0)
    assert strict["reply_rule"] == "strict" and strict["format_error_rate"] == pytest.approx(12 / 23)  # type: ignore[index]
    assert strict["format_errors_by_rule"]["lenient"]["overall"] == pytest.approx(3 / 23)  # type: ignore[index]


def test_compare_table2_layout(run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    result, records, questions, _ = run
    write_outputs(tmp_path / "a", result, records, questions, report=False)
    other = result.model_copy(update={"model": "other-model"})
    write_outputs(tmp_path / "b", other, records, questions, report=False)
    assert main(["genebench", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| model | Gene Full Name | Synonyms | Chromosome Location | Gene Type | Related Proteins |" in out
    assert "| mock | 37.50 | 80.83 | - | - | - | 70.00 | 38.89 | - | 56.81 |" in out
    assert "| Gene Full Name — high attention | 50.00 ± 50.00 | 50.00 ± 50.00 |" in out
    assert "| hallucination resistance | 100.00 | 100.00 |" in out


def test_compare_published_rows(run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    result, records, questions, _ = run
    write_outputs(tmp_path / "a", result, records, questions, report=False)
    assert main(["genebench", "compare", str(tmp_path / "a"), "--published", "--markdown"]) == 0
    out = capsys.readouterr().out
    gpt5 = (
        "| GPT-5 · SciHorizon-GENE Table 2 | 67.68 | 83.91 | 53.53 | 73.93 | 82.39 | 55.02 | 43.17 | 35.70 |"
    )
    assert gpt5 + " 61.92 |" in out
    gemma = "| Gemma 3-27B · SciHorizon-GENE Table 2 | 62.56 | 45.15 | 14.60 | 63.93 | 79.40 | 34.58 | - |"
    assert gemma + " 34.02 | 47.75 |" in out  # a type the paper does not report
    lines = [x for x in out.splitlines() if x.startswith("| mock ") or " · SciHorizon-GENE Table 2 |" in x]
    assert len(lines) == 28 and lines[-1].startswith(
        "| *MedAlpaca-7B · SciHorizon-GENE Table 2"
    )  # by overall
    assert "| mock | 37.50 | 80.83 |" in out and "Huang et al. (arXiv:2601.12805), Table 2" in out
    assert main(["genebench", "compare", "--published"]) == 0  # the paper's table alone
    assert main(["genebench", "compare"]) != 0


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


@pytest.mark.parametrize(
    "given", [["--types", "Q1"], ["--per-type", "5"], ["--types", "Q1", "--per-type", "1"]]
)
def test_build_options_beside_a_questions_file_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: list[str]
) -> None:
    """They were silently ignored (every question of the file ran); their defaults alone are fine."""
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n")
    assert main(["genebench", "run", str(qfile), *given, "-m", "mock", "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    named = ", ".join(x for x in given if x.startswith("--"))
    assert f"{named} feed the question builder" in err and not (tmp_path / "r").exists()


def test_unknown_type_at_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["genebench", "build", "--types", "Q1,Q42"]) == 2
    assert "unknown question type 'Q42'" in capsys.readouterr().err


@pytest.mark.usefixtures("slice_go")
def test_score_json_and_its_run_folder(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    preds = write_predictions(tmp_path / "preds.jsonl")
    monkeypatch.chdir(tmp_path)
    assert main(["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)  # stdout: one JSON object
    assert data["model"] == "predictions file" and data["backend"] == "file" and data["n_instances"] == 23
    assert data["reply_rule"] == "strict" and data["format_error_rate"] == pytest.approx(12 / 23)
    run_dir = Path("genebench-runs/score-preds")  # the default run folder of a score
    assert err.strip().splitlines()[-1] == f"report: {run_dir / 'report.html'}"
    assert {p.name for p in run_dir.iterdir()} >= {"result.json", "predictions.jsonl", "plots", "report.html"}
    assert json.loads((run_dir / "result.json").read_text())["kb_releases"] == {"go": "fixture"}


@pytest.mark.usefixtures("slice_go")
def test_run_from_a_file_json_and_report_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    out = tmp_path / "run"
    args = ["genebench", "run", str(qfile), "-m", "mock", "--store", str(tmp_path / "s.sqlite")]
    args += ["--n-perm", "50", "--seed", "3", "--temperature", "0.5", "--out", str(out)]
    assert main([*args, "--json"]) == 0
    stdout, err = capsys.readouterr()
    data = json.loads(stdout)
    assert data["model"] == "mock" and data["n_questions"] == 8 and data["n_instances"] == 23
    assert err.strip().splitlines()[-1] == f"report: {out / 'report.html'}"
    result = json.loads((out / "result.json").read_text())
    assert result["config"]["n_perm"] == 50 and result["config"]["temperature"] == 0.5
    assert result["config"]["seed"] == 3 and result["backend"] == "mock"
    assert main(args) == 0  # the summary on stdout, the report line last
    stdout = capsys.readouterr().out
    assert stdout.startswith("genebench — mock: 8 questions, 23 instances")
    assert stdout.strip().splitlines()[-1] == f"report: {out / 'report.html'}"
    assert "Gene Full Name" in stdout and "wrote " not in stdout


def test_compare_json_and_page(run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    result, records, questions, _ = run
    write_outputs(tmp_path / "a", result, records, questions, report=False)
    page = tmp_path / "cmp.html"
    args = ["genebench", "compare", str(tmp_path / "a"), "--published", "--json", "--html", str(page)]
    assert main(args) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    (mine,) = data["runs"]
    assert mine["model"] == "mock" and mine["overall"] == pytest.approx(result.scores.overall)
    assert mine["perspectives"]["hallucination resistance"] == 1.0
    assert data["published"][0] == {
        "model": "GPT-5 · SciHorizon-GENE Table 2",
        "overall": pytest.approx(0.6192),
        "knowledge": pytest.approx(data["published"][0]["knowledge"]),
    }
    assert len(data["published"]) == 27 and err.strip().splitlines()[-1] == f"report: {page}"
    assert 'data-plot="radar"' in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("spelling", ["-o", "--output", "--out"])
def test_build_rejects_the_missing_kb_before_writing(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], spelling: str
) -> None:
    out = tmp_path / "q.jsonl"
    assert main(["genebench", "build", "--types", "Q1", spelling, str(out)]) != 0
    err = capsys.readouterr().err
    assert "knowsum kb install genes" in err and not out.exists()
    renamed = "knowsum: note: --out is renamed --output; --out will be removed"
    assert (renamed in err) == (spelling == "--out")  # the old spelling still works, and says so


needs_genes = pytest.mark.skipif(
    installed("genes") is None or installed("go") is None,
    reason="needs `knowsum kb install genes go` (make data)",
)


@pytest.mark.realdata
@needs_genes
def test_cli_build_writes_a_valid_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "q.jsonl"
    assert main(["genebench", "build", "--types", "Q1,Q3", "--per-type", "3", "-o", str(out)]) == 0
    qs = read_questions(out)
    assert {q.task for q in qs} == {"Q1", "Q3-A", "Q3-B"} and len(qs) == 18
    line = json.loads(out.read_text().splitlines()[0])
    assert list(line)[:11] == [
        "question_index",
        "question_type",
        "knowledge",
        "question",
        "options",
        "answer",
        "context",
        "batch_id",
        "perspective",
        "flag",
        "task",
    ]
    stdout, err = capsys.readouterr()
    assert stdout.count("Q3-A") == 1 and "Q3-A" not in err  # the counts per task are printed once
    assert stdout.strip().splitlines()[-1] == f"wrote 18 questions to {out}"


@pytest.mark.realdata
@needs_genes
def test_build_json_and_the_old_out_spelling(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "q.jsonl"
    assert main(["genebench", "build", "--types", "Q1", "--per-type", "2", "--out", str(out), "--json"]) == 0
    stdout, err = capsys.readouterr()
    data = json.loads(stdout)
    assert data["output"] == str(out) and data["n_questions"] == 4 == len(read_questions(out))
    assert data["counts"] == {"Q1": {"loc": 2, "non-loc": 2}} and data["token_budgets"]["single_choice"] == 16
    assert data["kb_releases"]["genes"]
    assert "knowsum: note: --out is renamed --output; --out will be removed" in err
    assert err.strip().splitlines()[-1] == f"wrote 4 questions to {out}"


def _klkb1_only(tmp_path: Path) -> tuple[Path, Path]:
    """The question file and predictions for 3 of its 23 instances (KLKB1 in rotations 0, 1, 2)."""
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    preds = tmp_path / "three.jsonl"
    first = QUESTIONS[0].question_index
    replies = ["A", "The correct answer is B.", "A"]  # right, format error (strict rule), wrong
    rows = [{"question_index": first, "permutation": r, "response": t} for r, t in enumerate(replies)]
    preds.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return qfile, preds


def test_score_refuses_predictions_that_leave_instances_unanswered(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """3 of 23 instances answered: refused, naming the count and the first one (was: exit 0 with
    n_questions 1 and "no question of this type in the question set" for types in the set)."""
    qfile, preds = _klkb1_only(tmp_path)
    out = tmp_path / "scored"
    code = main(
        ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--out", str(out)]
    )
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err == (
        f"knowsum: error: {preds}: answers 3 of 23 instances (20 unanswered, the first: question_index "
        f"'{QUESTIONS[0].question_index}', permutation 3); give a prediction for every instance, or pass "
        "--allow-missing to score the unanswered as wrong\n"
    )
    assert not out.exists()


@pytest.mark.usefixtures("slice_go")
def test_allow_missing_scores_the_unanswered_as_wrong_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    qfile, preds = _klkb1_only(tmp_path)
    out = tmp_path / "scored"
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--out", str(out)]
    assert main([*args, "--allow-missing", "--json"]) == 0
    stdout, err = capsys.readouterr()
    assert "knowsum: note: 3 of 23 instances answered; the 20 unanswered are scored as wrong" in err
    numbers = json.loads(stdout)
    assert (numbers["n_questions"], numbers["n_instances"], numbers["n_unanswered"]) == (8, 23, 20)
    result = json.loads((out / "result.json").read_text())
    s = result["scores"]
    present = {q.knowledge for q in QUESTIONS}
    assert present <= set(s["knowledge"]) and not present & set(s["types_missing"])  # never "absent"
    assert s["knowledge"]["full name"] == pytest.approx((1 / 4 + 0) / 2)  # KLKB1: ✓ ✗ ✗ + unanswered
    assert s["overall"] == pytest.approx(0.125 / 4)
    assert s["format_error_rate"] == pytest.approx(1 / 3)  # of the 3 replies, not of the 23 instances
    assert s["format_errors_by_kind"]["unanswered"]["overall"] == pytest.approx(20 / 23)
    assert result["config"]["answered"] == 3 and result["config"]["allow_missing"] is True
    records = read_records(out)
    assert len(records) == 23 and sum((r.format_error or "").startswith("unanswered") for r in records) == 20
    assert all(r.score == 0 for r in records if r.format_error and r.format_error.startswith("unanswered"))

    assert main([*args, "--allow-missing"]) == 0  # the terminal summary says it too
    assert "3 of 23 instances answered; the 20 unanswered are scored as wrong" in capsys.readouterr().out


@pytest.mark.usefixtures("slice_go")
def test_predictions_without_rotations_answer_each_question_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No rotation given anywhere: the instances are the questions in the order written (8, not 23)."""
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    preds = tmp_path / "plain.jsonl"
    preds.write_text(
        "".join(json.dumps({"question_index": q.question_index, "response": "A"}) + "\n" for q in QUESTIONS)
    )
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--json"]
    assert main([*args, "--out", str(tmp_path / "scored")]) == 0
    numbers = json.loads(capsys.readouterr().out)
    assert (numbers["n_questions"], numbers["n_instances"], numbers["n_unanswered"]) == (8, 8, 0)
