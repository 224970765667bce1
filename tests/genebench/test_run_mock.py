"""End to end on the mock backend with a known mixture of replies: every metric equals its hand value.

The mixture (rotation r moves option j to position j + r, so the gold of a 4-option question sits at
A, B, C, D in rotations 0, 1, 2, 3):

- Q1 KLKB1 (high attention), gold at A: "A" ✓, "The correct answer is B." ✓ (chatty), "A" ✗, "E" (not an
  option: format error) → per rotation 1, 1, 0, 0 → 50.00 ± 50.00.
- Q1 LOC84214 (low attention), gold at B: always "D" → right only in rotation 2 → 25.00 ± 43.30.
- Q2-A CCDC121P1, gold "No right answer": replies the option text → 100 ± 0 (hallucination resistance).
- Q2-A CCNB1 control, gold "CCNB": always "No right answer" (picked wrongly) → 0, chose it 4/4.
- Q2-B RTN4RL2, gold {B, C}: "B, C" (F1 1); "C" vs {C, D} (P 1, R ½, F1 ⅔); "A, B, D" vs {D, A}
  (P ⅔, R 1, F1 0.8); "A, B because…" (format error, 0) → F1 (1 + ⅔ + 0.8 + 0)/4 = 0.61667.
- Q7 TRAPPC2 without abstracts: predicts "located in nucleus" (mapped) and an invented term (unmapped):
  closure(nucleus) has 7 terms, all in the 11-term reference closure → P 1, R 7/11, F1 14/18.
- Q7 TRAPPC2 with abstracts: malformed JSON → format error, 0.
- Q6 expression: category right, tissues {liver, colon} vs {liver, small intestine, duodenum}
  → 0.5·1 + 0.5·F1(½, ⅓ → 0.4) = 0.7.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from knowsum.cli import main
from knowsum.genebench import (
    GenebenchConfig,
    Question,
    content_hash,
    run_genebench,
    write_outputs,
    write_questions,
)
from knowsum.kb import Ontology
from knowsum.models import MockBackend, Request, ResponseStore

NRA = "No right answer"


def _q(
    task: str,
    qtype: str,
    knowledge: str,
    perspective: str,
    flag: str,
    gene: str,
    question: str,
    options: dict[str, str] | None,
    answer: object,
    context: str | None = None,
    pubmed: int = 0,
) -> Question:
    return Question.model_validate(
        {
            "question_index": content_hash(qtype, knowledge, question, options, context),
            "question_type": qtype,
            "knowledge": knowledge,
            "question": question,
            "options": options,
            "answer": answer,
            "context": context,
            "perspective": perspective,
            "flag": flag,
            "task": task,
            "gene": gene,
            "pubmed_count": pubmed,
        }
    )


def _letters(*texts: str) -> dict[str, str]:
    return {chr(65 + i): t for i, t in enumerate(texts)}


QUESTIONS = [
    _q(
        "Q1",
        "single_choice",
        "full name",
        "study_bias",
        "non-loc",
        "KLKB1",
        "Select the full name of KLKB1 gene.",
        _letters("kallikrein B1", "carboxypeptidase B1", "cyclin B1", "chymotrypsinogen B1"),
        "A",
        pubmed=88,
    ),
    _q(
        "Q1",
        "single_choice",
        "full name",
        "study_bias",
        "loc",
        "LOC84214",
        "Select the full name of LOC84214 gene.",
        _letters(
            "uncharacterized LOC90246",
            "Putative uncharacterized protein FLJ92257",
            "uncharacterized LOC91450",
            "uncharacterized LOC89844",
        ),
        "B",
        pubmed=1,
    ),
    _q(
        "Q2-A",
        "single_choice",
        "synonyms",
        "hallucination",
        "non-loc",
        "CCDC121P1",
        "Select the synonyms of CCDC121P1 gene.",
        _letters("CPC8", "OEATC", "MCOPCB9", NRA),
        "D",
    ),
    _q(
        "Q2-A",
        "single_choice",
        "synonyms",
        "hallucination",
        "non-loc",
        "CCNB1",
        "Select the synonyms of CCNB1 gene.",
        _letters("CCNB", "TRNAK13", "UPP", NRA),
        "A",
    ),
    _q(
        "Q2-B",
        "multiple_choice",
        "synonyms",
        "completeness",
        "non-loc",
        "RTN4RL2",
        "Select the synonyms of RTN4RL2 gene.",
        _letters("CFAP255", "NgR2", "NGRH1", "CD32A"),
        ["B", "C"],
    ),
    _q(
        "Q7",
        "go_annotation",
        "go_annotation",
        "literature_utilize",
        "no_ref",
        "TRAPPC2",
        "What are the Gene Ontology annotations for TRAPPC2?",
        None,
        [{"go": "located_in nucleus", "evidence": "IDA"}, {"go": "part_of TRAPP complex", "evidence": "IDA"}],
        "",
    ),
    _q(
        "Q7",
        "go_annotation",
        "go_annotation",
        "literature_utilize",
        "with_ref",
        "TRAPPC2",
        "What are the Gene Ontology annotations for TRAPPC2?",
        None,
        [{"go": "located_in nucleus", "evidence": "IDA"}, {"go": "part_of TRAPP complex", "evidence": "IDA"}],
        "TRAPP is a multisubunit tethering complex.",
    ),
    _q(
        "Q6",
        "expression",
        "expression",
        "completeness",
        "non-loc",
        "AADAC",
        "What is the expression pattern of AADAC gene?",
        None,
        {"tissue_list": ["liver", "small intestine", "duodenum"], "category": "Biased expression"},
    ),
]


def _reply(request: Request) -> str:
    system, user = request.messages[0][1], request.messages[1][1]  # type: ignore[index]
    first = system.split("Options: A: ")[1].split("\n")[0] if "Options: " in system else ""
    if "KLKB1" in system:
        rot = ["kallikrein B1", "chymotrypsinogen B1", "cyclin B1", "carboxypeptidase B1"].index(first)
        return ["A", "The correct answer is B.", "A", "E"][rot]
    if "LOC84214" in system:
        return "D"
    if "CCDC121P1" in system or "CCNB1" in system:
        return NRA
    if "RTN4RL2" in system:
        rot = ["CFAP255", "CD32A", "NGRH1", "NgR2"].index(first)
        return ["B, C", "C", "A, B, D", "A, B because both are aliases"][rot]
    if "TRAPPC2" in system:
        if "multisubunit" in user:
            return '[{"go": "part of TRAPP complex", "evidence": "IDA"'
        return (
            '[{"go": "located in nucleus", "evidence": "IDA"}, '
            '{"go": "enables quantum flux binding", "evidence": "IEA"}]'
        )
    if "AADAC" in system:
        return '{"Tissue": ["liver", "colon"], "Category": "Biased expression"}'
    raise AssertionError(system)


@pytest.fixture
def run(slice_go: Ontology, tmp_path: Path):  # type: ignore[no-untyped-def]
    backend = MockBackend(_reply)
    with ResponseStore(tmp_path / "store.sqlite") as store:
        result, records, questions = run_genebench(
            GenebenchConfig(), backend, store=store, questions=QUESTIONS
        )
    return result, records, questions, backend


def _cell(result, key: str):  # type: ignore[no-untyped-def]
    return next(c for c in result.scores.cells if c.key == key)


def test_every_metric_by_hand(run) -> None:  # type: ignore[no-untyped-def]
    result, _records, _, backend = run
    assert result.n_questions == 8 and result.n_instances == 5 * 4 + 3
    c = _cell(result, "Q1/non-loc")
    assert (c.mean, c.std, c.n_questions, c.n_instances) == (0.5, 0.5, 1, 4)
    c = _cell(result, "Q1/loc")
    assert c.mean == 0.25 and c.std == pytest.approx(math.sqrt(3) / 4)
    c = _cell(result, "Q2-A/no-answer")
    assert (c.mean, c.std, c.extra["no_right_answer_chosen"]) == (1.0, 0.0, 1.0)
    c = _cell(result, "Q2-A/control")
    assert (c.mean, c.extra["no_right_answer_chosen"], c.in_overall) == (0.0, 1.0, False)
    c = _cell(result, "Q2-B")
    per_rot = [1.0, 2 / 3, 0.8, 0.0]
    assert c.mean == pytest.approx(np.mean(per_rot)) and c.std == pytest.approx(np.std(per_rot))
    assert c.extra["precision"] == pytest.approx((1 + 1 + 2 / 3 + 0) / 4)
    assert c.extra["recall"] == pytest.approx((1 + 0.5 + 1 + 0) / 4)
    c = _cell(result, "Q7/no_ref")
    assert c.mean == pytest.approx(14 / 18) and c.extra["precision"] == 1.0
    assert c.extra["recall"] == pytest.approx(7 / 11) and c.extra["hallucinated_rate"] == 0.5
    assert _cell(result, "Q7/with_ref").mean == 0.0
    c = _cell(result, "Q6")
    assert (
        c.mean == pytest.approx(0.7)
        and c.extra["category_match"] == 1.0
        and c.extra["tissue_f1"] == pytest.approx(0.4)
    )
    s = result.scores
    assert s.knowledge["full name"] == pytest.approx(0.375)
    assert s.knowledge["synonyms"] == pytest.approx((1.0 + np.mean(per_rot)) / 2)
    assert s.knowledge["go_annotation"] == pytest.approx(7 / 18)
    assert s.knowledge["expression"] == pytest.approx(0.7)
    assert s.overall == pytest.approx(np.mean([0.375, (1.0 + np.mean(per_rot)) / 2, 7 / 18, 0.7]))
    assert s.types_asked == ["full name", "synonyms", "expression", "go_annotation"]
    assert set(s.types_missing) == {"chromosome", "gene_type", "designation", "summary"}
    assert s.format_error_rate == pytest.approx(3 / 23)
    assert s.format_errors == pytest.approx(
        {"expression": 0.0, "go_annotation": 0.5, "multiple_choice": 0.25, "single_choice": 1 / 16}
    )
    f1, p, r = np.array([1, 2 / 3, 0.8, 0]), np.array([1, 1, 2 / 3, 0]), np.array([1, 0.5, 1, 0])
    pearson = next(x for x in s.pearson if x.key == "Q2-B")
    assert pearson.f1_precision == pytest.approx(np.corrcoef(f1, p)[0, 1])
    assert pearson.f1_recall == pytest.approx(np.corrcoef(f1, r)[0, 1])
    assert len(backend.calls) == 23


def test_protocol_temperature_zero_and_messages(run) -> None:  # type: ignore[no-untyped-def]
    _, _, _, backend = run
    assert {r.params.temperature for r in backend.calls} == {0.0}
    roles = {tuple(m[0] for m in r.messages) for r in backend.calls}
    assert roles == {("system", "user")}


def test_resume_asks_nothing_twice(slice_go: Ontology, tmp_path: Path) -> None:
    store_path = tmp_path / "store.sqlite"
    first = MockBackend(_reply)
    with ResponseStore(store_path) as store:
        _a, _, _ = run_genebench(GenebenchConfig(), first, store=store, questions=QUESTIONS[:3])
    second = MockBackend(_reply)
    with ResponseStore(store_path) as store:
        b, _, _ = run_genebench(GenebenchConfig(), second, store=store, questions=QUESTIONS)
    assert len(first.calls) == 12 and len(second.calls) == 23 - 12
    assert _cell(b, "Q1/non-loc").mean == 0.5


def test_cli_run_and_score_agree(slice_go: Ontology, tmp_path: Path) -> None:
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    out = tmp_path / "run"
    store = tmp_path / "s.sqlite"
    backend = MockBackend(_reply)
    with ResponseStore(store) as st:
        result, records, qs = run_genebench(GenebenchConfig(questions=qfile), backend, store=st)
    write_outputs(out, result, records, qs, report=False)
    preds = tmp_path / "preds.jsonl"
    preds.write_text(
        "".join(
            json.dumps(
                {"question_index": r.question_index, "permutation": r.permutation, "response": r.response}
            )
            + "\n"
            for r in records
        )
    )
    code = main(["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--json"])
    assert code == 0
    scored = main(
        [
            "genebench",
            "score",
            "--questions",
            str(qfile),
            "--predictions",
            str(preds),
            "--out",
            str(tmp_path / "scored"),
        ]
    )
    assert scored == 0
    again = json.loads((tmp_path / "scored" / "result.json").read_text())
    assert again["scores"]["overall"] == pytest.approx(result.scores.overall)
    assert [c["mean"] for c in again["scores"]["cells"]] == pytest.approx(
        [c.mean for c in result.scores.cells]
    )


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
