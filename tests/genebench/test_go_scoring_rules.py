"""CAFA-style GO scoring (App. D) where the gold or the reply says less than it seems, through
``genebench score``: a gold that maps to no GO term is not scored (never 1), unmapped gold terms are
counted, a negated prediction is not the positive term — each said on every surface of the run.

The gene is the fixture's TRAPPC2 (its GO slice holds ``nucleus``, ``TRAPP complex``…); the invented
terms map to nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.genebench import INSTRUMENT, load_result
from knowsum.genebench._caveats import GO_GOLD_UNMAPPED, GO_NOT_SCORED
from knowsum.kb import Ontology


def _go_question(index: str, flag: str, gold: list[str]) -> dict[str, Any]:
    return {
        "question_index": index,
        "question_type": "go_annotation",
        "knowledge": "go_annotation",
        "context": "",
        "question": "What are all the Gene Ontology annotations for TRAPPC2?",
        "answer": [{"go": g, "evidence": "IDA"} for g in gold],
        "perspective": "literature_utilize",
        "flag": flag,
    }


def _score(tmp: Path, questions: list[dict[str, Any]], replies: dict[str, list[str]], name: str) -> Path:
    qfile, pfile = tmp / f"{name}_q.jsonl", tmp / f"{name}_p.jsonl"
    qfile.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    preds = [
        {"question_index": i, "response": json.dumps([{"go": g, "evidence": "IDA"} for g in r])}
        for i, r in replies.items()
    ]
    pfile.write_text("".join(json.dumps(p) + "\n" for p in preds), encoding="utf-8")
    out = tmp / name
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(pfile), "--out", str(out)]
    assert main([*args, "--json"]) == 0
    return out


def _surfaces(out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, str]:
    """The run's terminal summary, ``--json``, page and compare table (text, markdown, ``--json``)."""
    capsys.readouterr()
    surfaces = {"page": (out / "report.html").read_text(encoding="utf-8")}
    for name, extra in (
        ("compare", []),
        ("compare markdown", ["--markdown"]),
        ("compare --json", ["--json"]),
    ):
        assert main(["genebench", "compare", str(out), *extra]) == 0
        surfaces[name] = capsys.readouterr().out
    return surfaces


def test_a_gold_no_go_term_maps_to_is_not_scored(
    slice_go: Ontology, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Invented terms against a gold that maps to nothing scored 100 % (set_prf(∅, ∅) = 1)."""
    questions = [
        _go_question("a" * 64, "no_ref", ["enables frobnicase activity of widgets"]),
        _go_question("b" * 64, "with_ref", []),
        _go_question("c" * 64, "no_ref", ["located_in nucleus"]),
    ]
    replies = {
        "a" * 64: ["located in made-up compartment zeta"],
        "b" * 64: [],
        "c" * 64: ["located in nucleus"],
    }
    out = _score(tmp_path, questions, replies, "go")
    shown = json.loads(capsys.readouterr().out)
    record = load_result(out)
    cells = {c.key: c for c in record.scores.cells}
    assert cells["Q7/no_ref"].mean == 1.0 and cells["Q7/no_ref"].n_questions == 1  # the scorable one
    assert cells["Q7/no_ref"].extra["not_scored"] == 1.0
    assert cells["Q7/with_ref"].mean is None and cells["Q7/with_ref"].n_questions == 0
    assert record.scores.knowledge["go_annotation"] == 1.0  # the cell without a reference is not a 1
    (caveat,) = [c for c in record.caveats if c.kind == GO_NOT_SCORED]
    assert caveat.mark == "2 GO not scored" and "(Q7/no_ref 1, Q7/with_ref 1)" in caveat.message
    assert GO_NOT_SCORED in [c["kind"] for c in shown["caveats"]]
    rows = [json.loads(x) for x in (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert sorted(r.get("not_scored") or "" for r in rows) == ["", *["gold maps to no GO term"] * 2]
    for surface, text in _surfaces(out, capsys).items():
        assert "2 GO not scored" in text, surface
    card = {m.key: m for m in INSTRUMENT.measures(record, "r")}
    assert GO_NOT_SCORED in [c.kind for c in card["genebench/knowledge/go_annotation"].marks]


def test_only_unscorable_go_questions_leave_the_type_unscored(
    slice_go: Ontology, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = [_go_question("a" * 64, "no_ref", ["enables frobnicase activity of widgets"])]
    out = _score(tmp_path, questions, {"a" * 64: ["located in made-up compartment zeta"]}, "none")
    record = load_result(out)
    assert record.scores.overall is None and "go_annotation" not in record.scores.knowledge
    assert "no gold reference" in record.scores.types_missing["go_annotation"]


def test_unmapped_gold_terms_are_counted(
    slice_go: Ontology, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dropping them silently made a reply of the one mappable term score 100 %, unmarked."""
    questions = [
        _go_question("a" * 64, "no_ref", ["located_in nucleus", "enables frobnicase activity of widgets"])
    ]
    out = _score(tmp_path, questions, {"a" * 64: ["located in nucleus"]}, "gold")
    record = load_result(out)
    (cell,) = record.scores.cells
    assert cell.extra["gold_unmapped"] == 1.0
    (caveat,) = [c for c in record.caveats if c.kind == GO_GOLD_UNMAPPED]
    assert caveat.mark == "1 gold GO unmapped" and "(Q7/no_ref 1)" in caveat.message
    for surface, text in _surfaces(out, capsys).items():
        assert "1 gold GO unmapped" in text, surface


def test_a_negated_prediction_is_not_the_positive_term(
    slice_go: Ontology, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    questions = [_go_question("a" * 64, "no_ref", ["located_in nucleus"])]
    for n, spelling in enumerate(("NOT located in nucleus", "NOT|located_in nucleus", "not nucleus")):
        out = _score(tmp_path, questions, {"a" * 64: [spelling]}, f"not{n}")
        (cell,) = load_result(out).scores.cells
        assert cell.mean == 0.0 and cell.extra["negated"] == 1.0, spelling
        assert cell.extra["hallucinated_rate"] is None  # mapped or not, a negation is no hallucination
    out = _score(tmp_path, questions, {"a" * 64: ["NOT located in nucleus", "located in nucleus"]}, "both")
    assert load_result(out).scores.cells[0].mean == 1.0
