"""Score one reply per instance (Huang et al. App. D); :mod:`._aggregate` builds the tables.

Per instance (one question in one rotation):

- single choice: 1 if the validated letter is the gold letter, else 0 (eq. 1);
- multiple choice: precision |P∩R|/|P|, recall |P∩R|/|R|, F1 (eq. 2–3) over option letters;
- expression: Score = 0.5·CategoryMatch + 0.5·F1(tissues) (eq. 4, α = β = 0.5; tissue names
  compared case-insensitively; an empty list ≡ ``['Low expression']`` on both sides, as the release);
- GO: CAFA-style closure P/R/F1 (:mod:`knowsum.genebench._goeval`); a question whose gold maps to no
  GO term has no reference and is *not scored* (``not_scored``; left out of its cell and counted),
  whatever the reply — a failed reply to it still counts as a format error;
- summary: (ROUGE-L + BERTScore + Fluency)/3, Fluency = 1/(1 + log10 PPL) (eq. 5–6);
- a reply that fails validation (under the run's rule, strict by default) scores 0 and counts as a
  format error; a reply cut at the token limit that fails is a ``truncated`` format error;
- an instance a prediction file does not answer (``genebench score --allow-missing``) scores 0 like a
  wrong answer; its record says ``unanswered`` where a reply's validation error would be. Every
  record also says whether the reply passes the *other* rule (``format_error_other``), so the result
  can show the format-error rate under both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from knowsum.genebench._goeval import GoMapper
from knowsum.genebench._parse import Parsed, parse_both, parse_reply
from knowsum.genebench._prompts import rotate
from knowsum.genebench._schema import (
    NO_RIGHT_ANSWER,
    ExpressionAnswer,
    GoAnswer,
    Question,
    expression_tissues,
)
from knowsum.genebench.record import InstanceRecord
from knowsum.stats import StatsError, set_prf

__all__ = [
    "NO_GO_REFERENCE",
    "UNANSWERED",
    "Instance",
    "SummaryScorerLike",
    "score_instance",
    "score_instances",
    "score_unanswered",
    "task_of",
]

NO_GO_REFERENCE = "gold maps to no GO term"
"""``not_scored`` of a GO instance whose gold closes to no GO term (beyond the aspect roots): it has no
reference set, so P/R/F1 are undefined; it is left out of its cell and counted (:mod:`._goeval`)."""

UNANSWERED = "unanswered"
"""First word of the ``format_error`` of an instance with no reply (no prediction in the file)."""


@dataclass(frozen=True, slots=True)
class Instance:
    """A question asked in one rotation (``None`` for non-choice questions) and the raw reply.

    ``truncated``: the backend stopped the reply at the token limit (``finish_reason == "length"``).
    """

    question: Question
    rotation: int | None
    response: str
    truncated: bool = False


class SummaryScorerLike(Protocol):
    """What :func:`score_instances` needs from the summary scorer (see ``_textscore``)."""

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> Sequence[Any]: ...

    def methods(self) -> dict[str, str]: ...


def task_of(q: Question) -> str:
    """The question family; for files without ``task``, inferred from type, knowledge and perspective."""
    if q.task:
        return q.task
    k = q.knowledge
    if k == "full name":
        return "Q1"
    if k in ("synonyms", "chromosome"):
        n = "Q2" if k == "synonyms" else "Q3"
        if q.question_type == "multiple_choice":
            return f"{n}-B"
        return f"{n}-B" if (k == "chromosome" and q.perspective == "hallucination") else f"{n}-A"
    return {"gene_type": "Q4", "designation": "Q5", "expression": "Q6", "go_annotation": "Q7"}.get(k, "Q8")


def _base(
    inst: Instance, parsed: Parsed, other: Parsed, gold: tuple[str, ...] | None = None, **scores: Any
) -> InstanceRecord:
    q = inst.question
    value = parsed.value
    if isinstance(value, tuple):
        value = [list(v) if isinstance(v, tuple) else v for v in value]
    fields: dict[str, Any] = {
        "question_index": q.question_index,
        "task": task_of(q),
        "question_type": q.question_type,
        "knowledge": q.knowledge,
        "perspective": q.perspective,
        "flag": q.flag,
        "gene": q.gene,
        "pubmed_count": q.pubmed_count,
        "no_answer": q.no_answer,
        "permutation": inst.rotation,
        "gold": list(gold) if gold is not None else None,
        "response": inst.response,
        "parsed": value,
        "format_error": parsed.error,
        "format_error_other": other.error,
        "truncated": inst.truncated,
        **scores,
    }
    return InstanceRecord(**fields)


def _parse_both(inst: Instance, options: dict[str, str] | None, lenient: bool) -> tuple[Parsed, Parsed]:
    """The reply under the run's rule and under the other rule."""
    strict, loose = parse_both(inst.question.question_type, inst.response, options, truncated=inst.truncated)
    return (loose, strict) if lenient else (strict, loose)


def score_instance(inst: Instance, go: GoMapper | None, *, lenient: bool = False) -> InstanceRecord:
    """Score one non-summary instance (summaries are scored in batch by :func:`score_instances`)."""
    q = inst.question
    gold: tuple[str, ...] | None = None
    options = q.options
    if q.options:
        options, gold = rotate(q, inst.rotation or 0)
    parsed, other = _parse_both(inst, options, lenient)
    if q.question_type == "single_choice":
        assert gold is not None and options is not None
        nra = NO_RIGHT_ANSWER in options.values()
        chose = parsed.ok and options.get(parsed.value) == NO_RIGHT_ANSWER
        return _base(
            inst,
            parsed,
            other,
            gold,
            score=float(parsed.ok and parsed.value == gold[0]),
            chose_no_answer=chose if nra else None,
        )
    if q.question_type == "multiple_choice":
        assert gold is not None
        prf = set_prf(parsed.value if parsed.ok else (), gold)
        return _base(
            inst, parsed, other, gold, score=prf.f1, precision=prf.precision, recall=prf.recall, f1=prf.f1
        )
    if q.question_type == "expression":
        ans = q.answer
        assert isinstance(ans, ExpressionAnswer)
        if not parsed.ok:
            return _base(
                inst, parsed, other, score=0.0, category_match=0.0, tissue_f1=0.0, precision=0.0, recall=0.0
            )
        cm = float(parsed.value["category"] == ans.category)
        prf = set_prf(expression_tissues(parsed.value["tissue_list"]), expression_tissues(ans.tissue_list))
        return _base(
            inst,
            parsed,
            other,
            score=0.5 * cm + 0.5 * prf.f1,
            category_match=cm,
            tissue_f1=prf.f1,
            precision=prf.precision,
            recall=prf.recall,
        )
    if q.question_type == "go_annotation":
        if go is None:
            raise StatsError("GO questions need the GO knowledge base (knowsum kb install go)")
        ans = q.answer
        assert isinstance(ans, list)
        refs = [a.go for a in ans if isinstance(a, GoAnswer)]
        s = go.score([g for g, _ in parsed.value] if parsed.ok else [], refs)
        ref: dict[str, Any] = {"go_reference": s.n_reference, "go_reference_unmapped": s.n_reference_unmapped}
        if s.prf is None:  # no reference: not scored, whatever the reply (_goeval, beyond the paper)
            return _base(inst, parsed, other, score=0.0, not_scored=NO_GO_REFERENCE, **ref)
        if not parsed.ok:  # a failed reply is wrong
            return _base(inst, parsed, other, score=0.0, precision=0.0, recall=0.0, f1=0.0, **ref)
        return _base(
            inst,
            parsed,
            other,
            score=s.prf.f1,
            precision=s.prf.precision,
            recall=s.prf.recall,
            f1=s.prf.f1,
            go_mapped=s.n_mapped,
            go_unmapped=s.n_unmapped,
            go_negated=s.n_negated or None,
            **ref,
        )
    raise ValueError(f"score_instance does not score {q.question_type}")


def score_unanswered(question: Question, rotation: int | None) -> InstanceRecord:
    """The record of an instance no prediction answers: every score 0, as for a wrong answer."""
    inst = Instance(question, rotation, "")
    none = Parsed(None, f"{UNANSWERED}: no prediction in the file, scored as wrong")
    gold = rotate(question, rotation or 0)[1] if question.options else None
    zeros: dict[str, Any] = {}
    kind = question.question_type
    if kind == "single_choice" and question.options and NO_RIGHT_ANSWER in question.options.values():
        zeros["chose_no_answer"] = False
    elif kind in ("multiple_choice", "go_annotation"):
        zeros.update(precision=0.0, recall=0.0, f1=0.0)
    elif kind == "expression":
        zeros.update(category_match=0.0, tissue_f1=0.0, precision=0.0, recall=0.0)
    return _base(inst, none, none, gold, score=0.0, **zeros)


def score_instances(
    instances: Sequence[Instance],
    go: GoMapper | None,
    summary: SummaryScorerLike | None,
    *,
    lenient: bool = False,
) -> list[InstanceRecord]:
    """Score every instance (summaries in one batch through ``summary``); ``lenient``: reply rule."""
    out: list[InstanceRecord | None] = [None] * len(instances)
    todo: list[tuple[int, Parsed]] = []
    for i, inst in enumerate(instances):
        if inst.question.question_type == "summary":
            parsed = parse_reply("summary", inst.response)
            if parsed.ok:
                todo.append((i, parsed))
            else:
                out[i] = _base(inst, parsed, parsed, score=0.0)
        else:
            out[i] = score_instance(inst, go, lenient=lenient)
    if todo:
        if summary is None:
            raise StatsError("summary questions need the summary scorer")
        refs = [str(instances[i].question.answer) for i, _ in todo]
        scored = summary.score([p.value for _, p in todo], refs)
        for (i, parsed), s in zip(todo, scored, strict=True):
            out[i] = _base(
                instances[i],
                parsed,
                parsed,
                score=float(s.score),
                rouge_l=float(s.rouge_l),
                bertscore=float(s.bertscore_f1),
                perplexity=_finite(s.perplexity),
                fluency=float(s.fluency),
                length=len(parsed.value.split()),
                summary_flags=[str(f) for f in s.flags] or None,
            )
    return [r for r in out if r is not None]


def _finite(x: float) -> float | None:
    return float(x) if math.isfinite(x) else None
