"""Every Fig. 10 question wording and every Fig. 11 prompt, in full, against the paper's own text.

The reference is ``fixtures/genebench/scihorizon_gene_fig10_fig11.txt``: lines 433–458 of the text
extraction of Huang et al. (arXiv:2601.12805), unchanged (provenance in the fixture README).
"""

from __future__ import annotations

import re

import pytest

from knowsum.genebench import INSTRUCTIONS, SYSTEM_PROMPT, BuildInputs, Question, build_questions, messages
from knowsum.genebench._makers import WORDING
from knowsum.genebench._prompts import SYSTEM_OPTIONS
from knowsum.kb import GeneRecord
from tests.genebench.conftest import GB_FIX

PAPER = (GB_FIX / "scihorizon_gene_fig10_fig11.txt").read_text(encoding="utf-8").splitlines()
FIG11_ROWS = {
    "Single Choice": "single_choice",
    "Multiple Choice": "multiple_choice",
    "Templated Answer: Expression": "expression",
    "Templated Answer: Gene Ontology": "go_annotation",
    "Open Answer: Function Summary": "summary",
}


def _fig11() -> dict[str, str]:
    out = {}
    for line in PAPER:
        label, _, rest = line.partition("\t")
        if label in FIG11_ROWS:
            out[FIG11_ROWS[label]] = re.fullmatch(r"<p>(.*)</p>", rest).group(1)  # type: ignore[union-attr]
    return out


def _fig10() -> list[tuple[str, str, str]]:
    """``(task, question, gene)`` of each Fig. 10 example (two per Q7/Q8)."""
    out = []
    for line in PAPER:
        m = re.search(r"\t(Q\d(?:-[AB])?)\t", line)
        if m is None:
            continue
        q = re.search(r"(Select [^.]*\.|What [^?]*\?)", line)
        assert q is not None, line
        gene = re.search(r"(?:of|for) (\S+?)(?: gene)?[.?]$", q.group(1))
        out.append((m.group(1), q.group(1), gene.group(1) if gene else ""))
    return out


def test_the_excerpt_has_every_example_and_prompt() -> None:
    assert [t for t, _, _ in _fig10()] == [
        "Q1",
        "Q2-A",
        "Q2-B",
        "Q3-A",
        "Q3-B",
        "Q4",
        "Q5",
        "Q6",
        "Q7",
        "Q8",
        "Q7",
        "Q8",
    ]
    assert set(_fig11()) == set(INSTRUCTIONS)


@pytest.mark.parametrize("qtype", sorted(FIG11_ROWS.values()))
def test_fig11_instruction_in_full(qtype: str) -> None:
    assert INSTRUCTIONS[qtype] == _fig11()[qtype]


def test_fig11_system_prompt_in_full() -> None:
    line = next(x for x in PAPER if x.startswith("<p>You are a biologist.")).rstrip("\t")  # cell separator
    m = re.fullmatch(r"<p>(.*) <i>\[Only within Single Choice and Multiple Choice\]</i></p>", line)
    assert m is not None
    paper = m.group(1)
    assert paper == SYSTEM_PROMPT + SYSTEM_OPTIONS
    q = Question.model_validate(
        {
            "question_index": "x",
            "question_type": "summary",
            "knowledge": "summary",
            "question": "What is the functional summary of RPL37?",
            "answer": "Ribosomes …",
            "context": "Ribosomal protein L37 mRNA is ",
            "perspective": "literature_utilize",
            "flag": "with_ref",
        }
    )
    (_, system), (_, user) = messages(q)
    assert system == paper.split(" Options:")[0].replace("{question}", q.question)  # no options part
    assert user == _fig11()["summary"].replace("{context}", "Ribosomal protein L37 mRNA is ")


@pytest.mark.parametrize(("task", "question", "gene"), _fig10())
def test_fig10_question_wording(task: str, question: str, gene: str) -> None:
    wording = WORDING[task]
    if task == "Q7":  # the released files ask "What are all the …" (fixture released_layout.jsonl)
        question = question.replace("What are the", "What are all the")
    assert wording.format(gene) == question


def test_built_questions_use_the_wording(fixture_genes: list[GeneRecord]) -> None:
    from tests.genebench.conftest import mini_ontology

    built, _ = build_questions(BuildInputs(genes=fixture_genes, go=mini_ontology()), seed=0)
    for q in built:
        assert q.task is not None
        assert q.question == WORDING[q.task].format(q.gene), q.task
