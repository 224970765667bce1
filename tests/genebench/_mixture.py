"""A known mixture of questions and replies whose every metric is computed by hand (tests of the run, the
score command and compare).

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
from pathlib import Path

from knowsum.genebench import Question, content_hash
from knowsum.models import Request

__all__ = ["NRA", "PREDICTIONS", "QUESTIONS", "reply", "write_predictions"]

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


def reply(request: Request) -> str:
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


GO_OK = (
    '[{"go": "located in nucleus", "evidence": "IDA"}, '
    '{"go": "enables quantum flux binding", "evidence": "IEA"}]'
)
#: The mixture of the module docstring as a prediction file: (question, permutation, reply, finish_reason).
PREDICTIONS = [
    *((0, r, t, "stop") for r, t in enumerate(["A", "The correct answer is B.", "A", "E"])),
    *((1, r, "D", "stop") for r in range(4)),
    *((2, r, NRA, "stop") for r in range(4)),
    *((3, r, NRA, "stop") for r in range(4)),
    *((4, r, t, "stop") for r, t in enumerate(["B, C", "C", "A, B, D", "A, B because both are aliases"])),
    (5, None, GO_OK, "stop"),
    (6, None, '[{"go": "part of TRAPP complex", "evidence": "IDA"', "length"),  # cut at the token limit
    (7, None, '{"Tissue": ["liver", "colon"], "Category": "Biased expression"}', "stop"),
]


def write_predictions(path: Path) -> Path:
    """:data:`PREDICTIONS` as a prediction file (``finish_reason`` kept, ``permutation`` only for choices)."""
    rows = [
        {"question_index": QUESTIONS[i].question_index, "permutation": r, "response": t, "finish_reason": f}
        for i, r, t, f in PREDICTIONS
    ]
    path.write_text("".join(json.dumps({k: v for k, v in x.items() if v is not None}) + "\n" for x in rows))
    return path
