"""Question generation on the hand-picked fixture genes: every family and cardinality case, by hand."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from knowsum.errors import ConfigError, InputFileError
from knowsum.genebench import (
    NO_RIGHT_ANSWER,
    PAPER_SIZE,
    BuildInputs,
    Expression,
    GenebenchConfig,
    Question,
    build_questions,
    parse_tasks,
    read_questions,
    write_questions,
)
from knowsum.kb import GeneRecord
from tests.genebench.conftest import mini_ontology


@pytest.fixture(scope="module")
def built(fixture_genes: list[GeneRecord]) -> list[Question]:
    questions, _ = build_questions(BuildInputs(fixture_genes, mini_ontology()), seed=0)
    return questions


def _one(questions: list[Question], task: str, gene: str) -> Question:
    found = [q for q in questions if q.task == task and q.gene == gene]
    assert len(found) == 1, (task, gene, len(found))
    return found[0]


def _gold_text(q: Question) -> str:
    assert q.options is not None and isinstance(q.answer, str)
    return q.options[q.answer]


def test_counts_per_family_by_hand(fixture_genes: list[GeneRecord]) -> None:
    questions, report = build_questions(BuildInputs(fixture_genes, mini_ontology()), seed=0)
    # LOC90246, LOC91450 are named "uncharacterized LOC…": no full-name question (the symbol tells)
    assert report.counts["Q1"] == {"loc": 3, "non-loc": 17}
    assert report.excluded["Q1"] == {"uncharacterized LOC full name": 2}
    # no alias: CCDC121P1, TRN-GTT25-1, RN7SKP162 + 4 LOC genes, which leave the "No right answer" pool
    assert report.counts["Q2-A"] == {"no-answer": 3, "control": 9}
    assert report.excluded["Q2-A"] == {"LOC gene without a value": 4}
    assert report.excluded["Q3-B"] == {"LOC gene without a value": 0}
    assert report.counts["Q2-B"] == {"all": 6}
    assert report.counts["Q3-A"] == {"loc": 5, "non-loc": 16}  # COX3 has no band
    assert report.counts["Q3-B"] == {"no-answer": 1, "control": 21}
    # LOC: only LOC93622 (protein-coding) and LOC89844 (pseudo) have another type with >= 3 LOC genes (ncRNA)
    assert report.counts["Q4"] == {"loc": 2, "non-loc": 17}
    assert report.counts["Q5"] == {"all": 9}
    assert report.counts["Q7"] == {"no_ref": 4, "with_ref": 0}
    assert set(report.skipped) == {"Q6", "Q8", "Q7 with abstracts"}  # no user files
    assert len(questions) == report.total


def test_paper_example_full_name_distractors(built: list[Question]) -> None:
    q = _one(built, "Q1", "KLKB1")
    assert q.question == "Select the full name of KLKB1 gene."
    assert q.question_type == "single_choice" and q.knowledge == "full name" and q.perspective == "study_bias"
    assert sorted(q.options.values()) == sorted(  # type: ignore[union-attr]
        ["kallikrein B1", "carboxypeptidase B1", "cyclin B1", "chymotrypsinogen B1"]
    )
    assert _gold_text(q) == "kallikrein B1" and q.flag == "non-loc"
    assert _one(built, "Q1", "LOC84214").flag == "loc"


def test_no_right_answer_cases(built: list[Question]) -> None:
    syn = _one(built, "Q2-A", "CCDC121P1")  # no alias recorded
    assert syn.no_answer and _gold_text(syn) == NO_RIGHT_ANSWER and syn.perspective == "hallucination"
    loc = _one(built, "Q3-B", "COX3")  # mitochondrial gene: no cytogenetic band
    assert loc.question == "Select the chromosome location of COX3 gene."
    assert loc.no_answer and _gold_text(loc) == NO_RIGHT_ANSWER
    control = _one(built, "Q2-A", "CCNB1")  # one alias: a real answer beside the "No right answer" option
    assert _gold_text(control) == "CCNB" and NO_RIGHT_ANSWER in control.options.values()  # type: ignore[union-attr]
    assert not control.no_answer
    located = _one(built, "Q3-A", "TP53")
    assert _gold_text(located) == "17;17p13.1"


def test_multiple_choice_synonyms_and_designations(
    built: list[Question], fixture_genes: list[GeneRecord]
) -> None:
    q = _one(built, "Q2-B", "RTN4RL2")
    assert q.question_type == "multiple_choice" and q.perspective == "completeness"
    gold = {q.options[a] for a in q.answer}  # type: ignore[index,union-attr]
    assert gold == {"NGRH1", "NgR2"}
    assert all(len(x.answer) == 2 for x in built if x.task == "Q2-B")  # as every released Q2-B
    others = set(q.options.values()) - gold  # type: ignore[union-attr]
    assert len(others) == 2 and not others & {"RTN4RL2", "NGRH1", "NgR2"}
    d = _one(built, "Q5", "TRA-AGC3-1")
    assert (
        d.question == "Select all the related proteins of TRA-AGC3-1 gene." and d.knowledge == "designation"
    )
    tra = next(g for g in fixture_genes if g.symbol == "TRA-AGC3-1")
    assert {d.options[a] for a in d.answer} <= set(tra.designations)  # type: ignore[index,union-attr]
    assert len(d.answer) == 2  # all its designations (2)
    designations = {g.symbol: len(g.designations) for g in fixture_genes}
    for x in (x for x in built if x.task == "Q5"):  # all of them, up to 4 (TP53 has 7: 4 gold, no distractor)
        assert len(x.answer) == min(designations[x.gene or ""], 4)


def test_odd_one_out(built: list[Question], fixture_genes: list[GeneRecord]) -> None:
    types = {g.symbol: g.gene_type for g in fixture_genes}
    for q in (x for x in built if x.task == "Q4"):
        assert (
            q.question
            == "Select the gene symbol that does not belong to the same gene type as the other three."
        )
        odd = _gold_text(q)
        rest = [v for k, v in q.options.items() if k != q.answer]  # type: ignore[union-attr]
        assert len({types[s] for s in rest}) == 1 and types[odd] != types[rest[0]]
        assert {s.startswith("LOC") for s in q.options.values()} == {q.flag == "loc"}  # type: ignore[union-attr]


def test_go_answers_carry_qualifiers(built: list[Question]) -> None:
    q = _one(built, "Q7", "TRAPPC2")
    assert q.question == "What are all the Gene Ontology annotations for TRAPPC2?" and q.context == ""
    got = {(a.go, a.evidence) for a in q.answer}  # type: ignore[union-attr]
    assert got == {
        ("located_in nucleus", "IDA"),  # IDA preferred over IBA
        ("located_in nucleoplasm", "IDA"),
        ("located_in cytoplasm", "IBA"),  # IBA preferred over IC
        ("part_of TRAPP complex", "IDA"),  # a complex: under GO:0032991
        ("located_in intracellular membrane-bounded organelle", "IDA"),
    }
    tp53 = {a.go for a in _one(built, "Q7", "TP53").answer}  # type: ignore[union-attr]
    assert {"enables DNA binding", "part_of protein-containing complex"} <= tp53


def test_every_distractor_is_wrong_for_its_gene(
    built: list[Question], fixture_genes: list[GeneRecord]
) -> None:
    by = {g.symbol: g for g in fixture_genes}
    for q in built:
        if not q.options:
            continue
        g = by[q.gene]  # type: ignore[index]
        wrong = [v for k, v in q.options.items() if k not in q.gold_letters]
        valid = {
            "full name": {g.name},
            "synonyms": {*g.aliases, g.symbol},
            "chromosome": {f"{g.chromosome};{b}" for b in g.bands},
            "designation": {*g.designations, g.name},
        }.get(q.knowledge, set())
        lowered = {v.lower() for v in valid}
        assert not [w for w in wrong if w.lower() in lowered], (q.task, q.gene, wrong)


def test_user_files_and_literature_context(fixture_genes: list[GeneRecord]) -> None:
    expr = {
        "TP53": Expression("Low expression", ("Low expression",)),
        "NOSUCHGENE": Expression("Low expression", ()),
    }
    inputs = BuildInputs(
        fixture_genes,
        mini_ontology(),
        expression=expr,
        summaries={"7157": "This gene encodes a tumor suppressor protein."},
        abstracts={11: "Abstract one.", 12: "Abstract two.", 13: "Abstract three.", 14: "Abstract four."},
        max_abstracts=2,
    )
    pubmed = {7157: [14, 12, 11], 891: [99]}
    qs, report = build_questions(inputs, ["Q6", "Q7", "Q8"], pubmed=lambda gid: pubmed.get(gid, []))
    assert report.unknown_genes["expression"] == 1
    q6 = _one(qs, "Q6", "TP53")
    assert q6.question == "What is the expression pattern of TP53 gene?"
    assert q6.answer.category == "Low expression"  # type: ignore[union-attr]
    forms = sorted((q.flag, q.context) for q in qs if q.task == "Q8")
    assert forms == [("no_ref", ""), ("with_ref", "Abstract one.\n---\nAbstract two.")]
    assert [q.gene for q in qs if q.task == "Q7"] == [
        "TP53",
        "TP53",
    ]  # only genes with an abstract, both forms
    assert len({q.question_index for q in qs}) == len(qs)


def test_file_round_trip_and_seed(
    tmp_path: Path, built: list[Question], fixture_genes: list[GeneRecord]
) -> None:
    path = tmp_path / "q.jsonl"
    assert write_questions(path, built) == len(built)
    back = read_questions(path)  # validates every built question
    assert back == built
    again, _ = build_questions(BuildInputs(fixture_genes, mini_ontology()), seed=0)
    assert again == built
    other, _ = build_questions(BuildInputs(fixture_genes, mini_ontology()), seed=1)
    assert other != built


def test_per_type_sampling(fixture_genes: list[GeneRecord]) -> None:
    qs, report = build_questions(BuildInputs(fixture_genes, mini_ontology()), ["Q1", "Q3-B"], per_type=2)
    assert report.counts == {"Q1": {"loc": 2, "non-loc": 2}, "Q3-B": {"no-answer": 1, "control": 2}}
    assert Counter(q.task for q in qs) == {"Q1": 4, "Q3-B": 3}


def test_parse_tasks() -> None:
    assert parse_tasks("Q1, synonyms") == ("Q1", "Q2-A", "Q2-B")
    assert parse_tasks("q3") == ("Q3-A", "Q3-B")
    with pytest.raises(ConfigError, match="unknown question type 'Q9'"):
        parse_tasks("Q9")
    with pytest.raises(ValueError, match=r"unknown task\(s\) \['Q9'\]; known: Q1, Q2-A, Q2-B, Q3-A"):
        GenebenchConfig(tasks=("Q1", "Q9"))
    assert GenebenchConfig(tasks=("Q4",)).tasks == ("Q4",)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not a JSON object"),
        ('{"question_index": "x", "question_type": "essay"}', "question_type"),
        (
            '{"question_index": "x", "question_type": "single_choice", "knowledge": "favourite colour", '
            '"question": "q", "options": {"A": "a", "B": "b"}, "answer": "A", "perspective": "study_bias", '
            '"flag": "loc"}',
            "knowledge",
        ),
        (
            '{"question_index": "x", "question_type": "single_choice", "knowledge": "full name", '
            '"question": "q", "options": {"A": "a", "B": "b"}, "answer": "C", "perspective": "study_bias", '
            '"flag": "loc"}',
            "answer letter",
        ),
    ],
)
def test_bad_question_lines(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"question_index": "ok", "question_type": "summary", "knowledge": "summary", "question": "q", '
        '"answer": "text", "perspective": "literature_utilize", "flag": "no_ref"}\n' + line + "\n"
    )
    with pytest.raises(InputFileError, match=message) as exc:
        read_questions(path)
    assert f"{path}:2" in str(exc.value)


def test_paper_size_builds_the_paper_cells(fixture_genes: list[GeneRecord]) -> None:
    # §4.2: 2,710 questions, 9,010 instances; 10 choice cells x 210 x 4 rotations + 610 open questions
    choice = sum(n for t, c in PAPER_SIZE.items() if t not in ("Q6", "Q7", "Q8") for n in c.values())
    open_ = PAPER_SIZE["Q6"]["all"] + 2 * PAPER_SIZE["Q7"]["genes"] + 2 * PAPER_SIZE["Q8"]["genes"]
    assert (choice, choice + open_, 4 * choice + open_) == (2100, 2710, 9010)
    _, report = build_questions(BuildInputs(fixture_genes, mini_ontology()), paper_size=True, per_type=1)
    # fewer fixture genes than 210: every eligible one; no control stratum (not in the paper)
    assert report.counts["Q1"] == {"loc": 3, "non-loc": 17}
    assert report.counts["Q2-A"] == {"no-answer": 3}
    assert report.counts["Q3-B"] == {"no-answer": 1}


def test_odd_one_out_uses_unknown_and_other_types(fixture_genes: list[GeneRecord]) -> None:
    # the release asks gene-type questions about "unknown"/"other" genes: re-type the 5 tRNA genes "other"
    genes = [replace(g, gene_type="other") if g.gene_type == "tRNA" else g for g in fixture_genes]
    qs, report = build_questions(BuildInputs(genes), ["Q4"], seed=0)
    types = {g.symbol: g.gene_type for g in genes}
    assert report.counts["Q4"] == {"loc": 2, "non-loc": 17}  # as with the real types: every gene asked
    assert any(types[_gold_text(q)] == "other" for q in qs)  # an "other" gene as the odd one out
    assert any("other" in {types[s] for s in (q.options or {}).values()} - {types[_gold_text(q)]} for q in qs)
