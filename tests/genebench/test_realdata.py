"""Questions built from the installed gene records (KB ``genes``) and GO, and a real SmolLM2 run."""

from __future__ import annotations

import pytest

from knowsum.genebench import (
    NO_RIGHT_ANSWER,
    BuildInputs,
    GenebenchConfig,
    Question,
    build_from_kb,
    build_questions,
)
from knowsum.kb import installed, load_genes

pytestmark = pytest.mark.realdata


@pytest.fixture(autouse=True)
def _need() -> None:
    for kb in ("genes", "go"):
        if installed(kb) is None:
            pytest.fail(f"needs `knowsum kb install {kb}` (make data)")


@pytest.fixture(scope="module")
def real_questions() -> list[Question]:
    questions, _ = build_from_kb(GenebenchConfig(per_type=400, seed=3))
    return questions


def test_tp53_full_name_and_mt_gene_without_location() -> None:
    store = load_genes()
    try:
        genes = store.records()
    finally:
        store.close()
    qs, _ = build_questions(
        BuildInputs(genes), ["Q1", "Q3-B"], only=[7157, 4514]
    )  # TP53, COX3 (mitochondrial)
    tp53 = next(q for q in qs if q.task == "Q1" and q.gene == "TP53")
    assert tp53.options[tp53.answer] == "tumor protein p53"  # type: ignore[index]
    cox3 = next(q for q in qs if q.task == "Q3-B" and q.gene == "COX3")
    assert cox3.no_answer and cox3.options[cox3.answer] == NO_RIGHT_ANSWER  # type: ignore[index]


def test_distractors_are_never_valid_over_real_genes(real_questions: list[Question]) -> None:
    """Property over ~4,000 questions on real genes: no wrong option is a valid answer for the gene."""
    store = load_genes()
    try:
        genes = {g.symbol: g for g in store.records({q.gene_id for q in real_questions if q.gene_id})}
    finally:
        store.close()
    types = {}
    checked = 0
    for q in real_questions:
        if not q.options:
            continue
        g = genes[q.gene]  # type: ignore[index]
        wrong = [v.lower() for k, v in q.options.items() if k not in q.gold_letters]
        if q.knowledge == "gene_type":
            types.update({s: None for s in q.options.values()})
            continue
        valid = {
            "full name": {g.name},
            "synonyms": {*g.aliases, g.symbol},
            "chromosome": {f"{c};{b}" for c in g.chromosomes for b in g.bands},
            "designation": {*g.designations, g.name},
        }[q.knowledge]
        assert not set(wrong) & {v.lower() for v in valid}, (q.task, q.gene, wrong)
        checked += 1
    assert checked > 2_000


def test_odd_one_out_types_on_real_genes(real_questions: list[Question]) -> None:
    store = load_genes()
    try:
        q4 = [q for q in real_questions if q.task == "Q4"]
        assert len(q4) == 800  # 400 LOC + 400 non-LOC
        for q in q4[:200]:
            recs = {s: store.by_symbol(s) for s in q.options.values()}  # type: ignore[union-attr]
            odd = q.options[q.answer]  # type: ignore[index]
            rest = {r.gene_type for s, r in recs.items() if s != odd and r is not None}
            assert len(rest) == 1 and recs[odd].gene_type not in rest  # type: ignore[union-attr]
    finally:
        store.close()


@pytest.fixture(scope="module")
def full_build() -> tuple[list[Question], object]:
    """Every question the installed data allows (the issue-16 acceptance figures are read from it)."""
    return build_from_kb(GenebenchConfig(per_type=None, tasks=("Q1", "Q2-A", "Q3-B", "Q7")))


def test_full_build_leaves_placeholders_and_loc_no_answers_out(full_build) -> None:  # type: ignore[no-untyped-def]
    questions, report = full_build
    q1 = [q for q in questions if q.task == "Q1"]
    assert not [q for q in q1 if q.options and q.options[str(q.answer)].startswith("uncharacterized LOC")]
    assert report.excluded["Q1"]["uncharacterized LOC full name"] > 10_000
    for task in ("Q2-A", "Q3-B"):
        pool = [q for q in questions if q.task == task and q.no_answer]
        assert sum(q.is_loc is True for q in pool) / len(pool) < 0.05, task


def test_no_go_gold_longer_than_the_go_budget(full_build) -> None:  # type: ignore[no-untyped-def]
    from knowsum.genebench import gold_tokens, token_budgets

    questions, _ = full_build
    go = [q for q in questions if q.task == "Q7"]
    budget = token_budgets(questions)["go_annotation"]
    assert max(gold_tokens(q) for q in go) < budget


def test_paper_size_on_the_real_genes() -> None:
    _, report = build_from_kb(
        GenebenchConfig(paper_size=True, tasks=("Q1", "Q2-A", "Q2-B", "Q3-B", "Q4", "Q5"))
    )
    assert report.counts["Q1"] == {"loc": 210, "non-loc": 210}
    assert report.counts["Q4"] == {"loc": 210, "non-loc": 210}
    for task in ("Q2-B", "Q5"):
        assert report.counts[task] == {"all": 210}
    assert report.counts["Q2-A"] == {"no-answer": 210} and report.counts["Q3-B"] == {"no-answer": 210}
