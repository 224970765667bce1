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

Those are the values under the lenient rule. Under the strict rule (the default) the chatty "The
correct answer is B." and the 8 option-text replies "No right answer" are format errors: Q1 high
attention 1, 0, 0, 0 → 25.00 ± 43.30; Q2-A 0; format errors 12/23 instead of 3/23.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from knowsum.cli import main
from knowsum.genebench import (
    GenebenchConfig,
    GoAnswer,
    Question,
    content_hash,
    run_genebench,
    write_outputs,
    write_questions,
)
from knowsum.genebench._budget import gold_text, token_budgets
from knowsum.kb import Ontology
from knowsum.models import MockBackend, Request, Response, ResponseStore

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
            GenebenchConfig(lenient=True), backend, store=store, questions=QUESTIONS
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
    assert s.format_error_rate == pytest.approx(3 / 23) and s.reply_rule == "lenient"
    assert s.format_errors_by_rule["strict"]["overall"] == pytest.approx(12 / 23)
    assert s.format_errors_by_rule["strict"]["single_choice"] == pytest.approx(10 / 16)
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
    assert _cell(b, "Q1/non-loc").mean == 0.25  # strict rule: the chatty reply is a format error


_GO_OK = (
    '[{"go": "located in nucleus", "evidence": "IDA"}, '
    '{"go": "enables quantum flux binding", "evidence": "IEA"}]'
)
#: The mixture of the module docstring as a prediction file: (question, permutation, reply, finish_reason).
_PREDICTIONS = [
    *((0, r, t, "stop") for r, t in enumerate(["A", "The correct answer is B.", "A", "E"])),
    *((1, r, "D", "stop") for r in range(4)),
    *((2, r, NRA, "stop") for r in range(4)),
    *((3, r, NRA, "stop") for r in range(4)),
    *((4, r, t, "stop") for r, t in enumerate(["B, C", "C", "A, B, D", "A, B because both are aliases"])),
    (5, None, _GO_OK, "stop"),
    (6, None, '[{"go": "part of TRAPP complex", "evidence": "IDA"', "length"),  # cut at the token limit
    (7, None, '{"Tissue": ["liver", "colon"], "Category": "Biased expression"}', "stop"),
]


def _score_cli(tmp_path: Path, *extra: str) -> dict[str, object]:
    qfile = tmp_path / "questions.jsonl"
    write_questions(qfile, QUESTIONS)
    preds = tmp_path / "preds.jsonl"
    rows = [
        {"question_index": QUESTIONS[i].question_index, "permutation": r, "response": t, "finish_reason": f}
        for i, r, t, f in _PREDICTIONS
    ]
    preds.write_text("".join(json.dumps({k: v for k, v in x.items() if v is not None}) + "\n" for x in rows))
    out = tmp_path / f"scored{len(extra)}"
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(preds), "--out", str(out)]
    assert main([*args, *extra]) == 0
    data: dict[str, object] = json.loads((out / "result.json").read_text())
    return data


def test_cli_score_lenient_and_strict_by_hand(slice_go: Ontology, tmp_path: Path) -> None:
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


class _LengthLimited(MockBackend):
    """Cuts every reply to ``max_tokens`` words and reports ``finish_reason == 'length'`` when it does."""

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        out = await super().generate(requests)
        cut = []
        for r in out:
            words = r.text.split(" ")
            limit = r.request.params.max_tokens or len(words)
            text = " ".join(words[:limit])
            cut.append(self.response(r.request, text, "length" if len(words) > limit else "stop"))
        return cut


def test_budgets_fit_the_gold_and_a_cut_reply_is_truncated(slice_go: Ontology, tmp_path: Path) -> None:
    go = [q for q in QUESTIONS if q.question_type == "go_annotation"]
    names = sorted(t.name for t in slice_go.values())
    long_gold = go[0].model_copy(  # 72 annotations: far over the floor of 320 tokens
        update={"answer": [GoAnswer(go=f"located_in {n}", evidence="IDA") for n in names * 3]}
    )
    budgets = token_budgets([long_gold])
    assert budgets["go_annotation"] == math.ceil(1.5 * math.ceil(len(gold_text(long_gold)) / 2.5)) > 320
    gold_json = gold_text(long_gold)
    backend = _LengthLimited(lambda _r: gold_json)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        result, records, _ = run_genebench(GenebenchConfig(), backend, store=store, questions=[long_gold])
    assert (
        backend.calls[0].params.max_tokens == budgets["go_annotation"] == result.max_tokens["go_annotation"]
    )
    assert records[0].format_error is None and not records[0].truncated  # the complete answer fits
    small = _LengthLimited(lambda _r: gold_json)
    with ResponseStore(tmp_path / "t.sqlite") as store:
        cut, recs, _ = run_genebench(
            GenebenchConfig(max_tokens=50), small, store=store, questions=[long_gold]
        )
    assert recs[0].truncated and (recs[0].format_error or "").startswith("truncated")
    assert cut.scores.format_errors_by_kind["truncated"]["overall"] == 1.0 and recs[0].score == 0.0


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


def test_published_rows_are_the_papers_table2() -> None:
    from knowsum.genebench import KNOWLEDGE, PUBLISHED

    assert len(PUBLISHED) == 27 and PUBLISHED[0].model == "GPT-5"
    gpt5 = PUBLISHED[0]
    assert [gpt5.knowledge[k] for k in KNOWLEDGE] == pytest.approx(
        [0.6768, 0.8391, 0.5353, 0.7393, 0.8239, 0.5502, 0.4317, 0.3570]
    )
    for row in PUBLISHED:  # the copied overall is the equal mean of the types reported (Table 2 caption)
        vals = [v for v in row.knowledge.values() if v is not None]
        assert row.overall == pytest.approx(sum(vals) / len(vals), abs=6e-5), row.model


def test_compare_published_rows(run, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    result, records, questions, _ = run
    write_outputs(tmp_path / "a", result, records, questions, report=False)
    assert main(["genebench", "compare", str(tmp_path / "a"), "--published", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| [paper] GPT-5 | 67.68 | 83.91 | 53.53 | 73.93 | 82.39 | 55.02 | 43.17 | 35.70 | 61.92 |" in out
    gemma = "| [paper] Gemma 3-27B | 62.56 | 45.15 | 14.60 | 63.93 | 79.40 | 34.58 | - | 34.02 | 47.75 |"
    assert gemma in out  # a type the paper does not report
    lines = [x for x in out.splitlines() if x.startswith("| mock ") or x.startswith("| [paper] ")]
    assert len(lines) == 28 and lines[-1].startswith("| [paper] *MedAlpaca-7B")  # ranked by overall
    assert "| mock | 37.50 | 80.83 |" in out and "Huang et al. (arXiv:2601.12805), Table 2" in out
    assert main(["genebench", "compare", "--published"]) == 0  # the paper's table alone
    assert main(["genebench", "compare"]) != 0
