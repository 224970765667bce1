"""A knowledge type asked with part of its Table 2 cells is marked, on its own row, and a score that
is no share of questions gets no Wilson interval (the known mixture of ``_mixture.py``, on the mock
backend).

Table 2 scores Synonyms as the equal mean of Q2-A's hallucination resistance and Q2-B's
completeness. Without the Q2-A questions the run's Synonyms is Q2-B's macro F1 alone (0.61667 under
the lenient rule): a different quantity from the paper's, which the record and the card say.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.genebench import INSTRUMENT, GenebenchConfig, run_genebench
from knowsum.genebench._aggregate import PARTIAL
from knowsum.kb import Ontology
from knowsum.models import MockBackend, ResponseStore
from tests.genebench._mixture import QUESTIONS, reply


def _run(tmp_path: Path, questions: list):  # type: ignore[no-untyped-def]
    with ResponseStore(tmp_path / "store.sqlite") as store:
        return run_genebench(
            GenebenchConfig(lenient=True),
            MockBackend(reply),
            store=store,
            questions=questions,
            out=tmp_path / "r",
        ).record


def test_a_type_missing_one_of_its_cells_is_marked_on_its_row(slice_go: Ontology, tmp_path: Path) -> None:
    record = _run(tmp_path, [q for q in QUESTIONS if q.task != "Q2-A"])
    assert record.scores.knowledge["synonyms"] == pytest.approx(0.61667, abs=1e-5)  # Q2-B alone
    (partial,) = [c for c in record.caveats if c.kind == PARTIAL]
    assert partial.figure == "knowledge/synonyms" and partial.mark == "Synonyms partial"
    assert "Synonyms (A) — hallucination resistance not asked here" in partial.message
    rows = {m.key: m for m in INSTRUMENT.measures(record, "r")}
    assert PARTIAL in {c.kind for c in rows["genebench/knowledge/synonyms"].caveats}
    assert PARTIAL not in {c.kind for c in rows["genebench/knowledge/full name"].caveats}


def test_a_complete_run_has_no_partial_type(slice_go: Ontology, tmp_path: Path) -> None:
    record = _run(tmp_path, list(QUESTIONS))
    assert not [c for c in record.caveats if c.kind == PARTIAL]


def test_only_accuracy_types_get_a_wilson_interval(slice_go: Ontology, tmp_path: Path) -> None:
    rows = {m.key: m for m in INSTRUMENT.measures(_run(tmp_path, list(QUESTIONS)), "r")}
    full = rows["genebench/knowledge/full name"]  # Q1: accuracies
    assert full.lower is not None and full.upper is not None and "Wilson 95 %" in full.method
    syn = rows["genebench/knowledge/synonyms"]  # Q2-A accuracy + Q2-B macro F1
    assert syn.value is not None and syn.lower is None and syn.upper is None
    assert syn.interval_reason == "a mean of macro F1 scores, not a share of questions"
    expr = rows["genebench/knowledge/expression"]
    assert expr.lower is None and "expression score" in (expr.interval_reason or "")


def test_a_build_given_both_sizes_is_refused() -> None:
    """``--per-type`` beside ``--paper-size`` (or ``per_type`` beside ``paper_size`` anywhere a config
    is made): the paper's size would have dropped ``per_type`` without a word."""
    from pydantic import ValidationError

    from knowsum.genebench import GenebenchConfig

    with pytest.raises(ValidationError, match="per_type and paper_size both set"):
        GenebenchConfig(per_type=1, paper_size=True)
    assert GenebenchConfig(paper_size=True).paper_size and GenebenchConfig(per_type=1).per_type == 1
