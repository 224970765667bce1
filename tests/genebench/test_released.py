"""The benchmark's released question layout, read and scored as it is (``released_layout.jsonl``).

Hand expectations (fixture README): with the gold reply to every question every cell is 1.0 — the
low-expression row (``tissue_list: []``) answered as the Fig. 11 prompt asks (``['Low expression']``)
included; answering "A" to the 9 single-choice questions scores 2/9 (golds C, B, C, D, C, D, A, A, D),
Q4 low attention 1.0 (its gold is A), Q3-B 1/2 (PIRC23 A, trnL D) and every other single-choice cell 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.genebench import (
    GoMapper,
    Question,
    read_predictions,
    read_questions,
    score_records,
    summarize,
)
from knowsum.kb import Ontology
from tests.genebench.conftest import GB_FIX, mini_ontology

RELEASED = GB_FIX / "released_layout.jsonl"


def _gold_reply(q: Question) -> str:
    ans: Any = q.answer
    if q.question_type == "single_choice":
        return str(ans)
    if q.question_type == "multiple_choice":
        return ", ".join(ans)
    if q.question_type == "expression":
        return json.dumps({"Tissue": list(ans.tissue_list) or ["Low expression"], "Category": ans.category})
    if q.question_type == "go_annotation":
        return json.dumps([a.model_dump() for a in ans])
    return str(ans)


def _predictions(path: Path, questions: list[Question], single: str | None = None) -> Path:
    lines = []
    for q in questions:
        reply = single if single is not None and q.question_type == "single_choice" else _gold_reply(q)
        lines.append(json.dumps({"question_index": q.question_index, "flag": q.flag, "response": reply}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_release_file_reads_as_it_is() -> None:
    qs = read_questions(RELEASED)
    assert len(qs) == 17
    pair = [q for q in qs if q.question_type == "summary"]
    assert pair[0].question_index == pair[1].question_index  # one index, two questions
    assert [q.flag for q in pair] == ["no_ref", "with_ref"] and pair[0].key != pair[1].key
    low = next(q for q in qs if q.question == "What is the expression pattern of LINC02673 gene?")
    assert low.answer.tissue_list == ()  # type: ignore[union-attr]


def _without_summaries(folder: Path) -> Path:
    """The released-layout file without its summary pair (the slow test below scores it), lines as is."""
    path = folder / "released_no_summaries.jsonl"
    lines = RELEASED.read_text(encoding="utf-8").splitlines()
    path.write_text("".join(ln + "\n" for ln in lines if json.loads(ln)["question_type"] != "summary"))
    return path


def _score(preds: Path, out: Path) -> Path:
    """``genebench score`` of ``preds`` against the released-layout file without its summaries (every
    question answered) into ``out``."""
    questions = _without_summaries(out.parent)
    args = ["--questions", str(questions), "--predictions", str(preds), "--out", str(out)]
    assert main(["genebench", "score", *args]) == 0
    return out


def _cells(result: dict[str, Any]) -> dict[str, float]:
    return {c["key"]: c["mean"] for c in result["scores"]["cells"]}


def test_gold_replies_score_one_in_every_cell(slice_go: Ontology, tmp_path: Path) -> None:
    qs = [q for q in read_questions(RELEASED) if q.question_type != "summary"]  # summaries: slow test below
    out = _score(_predictions(tmp_path / "gold.jsonl", qs), tmp_path / "scored")
    result = json.loads((out / "result.json").read_text(encoding="utf-8"))
    cells = _cells(result)
    assert set(cells) == {
        "Q1/loc",
        "Q1/non-loc",
        "Q2-A/no-answer",
        "Q2-B",
        "Q3-A/loc",
        "Q3-A/non-loc",
        "Q3-B/no-answer",
        "Q4/loc",
        "Q4/non-loc",
        "Q5",
        "Q6",
        "Q7/no_ref",
        "Q7/with_ref",
    }
    assert cells == {k: 1.0 for k in cells}
    q6 = next(c for c in result["scores"]["cells"] if c["key"] == "Q6")
    assert q6["extra"]["tissue_f1"] == 1.0 and q6["n_questions"] == 2
    s = result["scores"]
    assert s["reply_rule"] == "strict"
    assert s["format_errors_by_rule"]["strict"]["overall"] == 0.0
    assert s["format_errors_by_rule"]["lenient"]["overall"] == 0.0
    assert result["n_questions"] == 15 and result["n_instances"] == 15


def test_all_a_scores_the_share_of_a_golds(slice_go: Ontology, tmp_path: Path) -> None:
    qs = [q for q in read_questions(RELEASED) if q.question_type != "summary"]
    out = _score(_predictions(tmp_path / "all_a.jsonl", qs, single="A"), tmp_path / "scored")
    records = [json.loads(x) for x in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    single = [r["score"] for r in records if r["question_type"] == "single_choice"]
    assert len(single) == 9 and sum(single) / len(single) == pytest.approx(2 / 9)
    cells = _cells(json.loads((out / "result.json").read_text(encoding="utf-8")))
    assert cells["Q4/loc"] == 1.0 and cells["Q3-B/no-answer"] == 0.5
    for key in ("Q1/loc", "Q1/non-loc", "Q2-A/no-answer", "Q3-A/loc", "Q3-A/non-loc", "Q4/non-loc"):
        assert cells[key] == 0.0, key


def test_a_shared_index_needs_its_flag(
    slice_go: Ontology, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        json.dumps({"question_index": read_questions(RELEASED)[-1].question_index, "response": "x"}) + "\n"
    )
    assert main(["genebench", "score", "--questions", str(RELEASED), "--predictions", str(preds)]) != 0
    err = capsys.readouterr().err
    assert (
        "p.jsonl:1: " in err
        and "with/without-abstracts pair" in err
        and '"flag": "no_ref" or "with_ref"' in err
    )


@pytest.mark.slow
def test_summary_pair_scored_as_two_questions(tmp_path: Path) -> None:
    pytest.importorskip("sentence_transformers", reason="needs pip install 'knowsum[embed]'")
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    from knowsum.genebench import _textmetrics as tm
    from knowsum.genebench._textscore import SummaryScorer
    from knowsum.models import is_installed, model_spec

    if not is_installed(model_spec(tm.PPL_REGISTRY_MODEL)):
        pytest.skip(f"run `knowsum models install {tm.PPL_REGISTRY_MODEL}`")
    qs = read_questions(RELEASED)
    pairs, replies, cut = read_predictions(
        _predictions(tmp_path / "p.jsonl", [q for q in qs if q.question_type == "summary"]),
        {q.key: q for q in qs},
    )
    records = score_records(
        pairs, replies, go=GoMapper(mini_ontology()), summary=SummaryScorer(), truncated=cut
    )
    assert [r.flag for r in records] == ["no_ref", "with_ref"]
    for (
        r
    ) in records:  # the reply is the reference: ROUGE-L and BERTScore are 1, the score (1 + 1 + fluency)/3
        assert r.rouge_l == pytest.approx(1.0) and r.bertscore == pytest.approx(1.0, abs=1e-5)
        assert r.score == pytest.approx((2 + (r.fluency or 0.0)) / 3, abs=1e-5)
    cells = {c.key: c for c in summarize(records).cells}
    assert cells["Q8/no_ref"].n_questions == cells["Q8/with_ref"].n_questions == 1
