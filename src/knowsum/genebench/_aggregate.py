"""Aggregate scored instances into the paper's tables (Tables 1, 2, 5, 6; App. E).

Aggregation: a *cell* is a metric over a subset (Tables 5–6), computed per rotation and reported as
mean ± population std over the rotations ("mean ± standard deviation over cyclic permutations",
App. E). A knowledge type's score is the equal mean of its cells (Table 2: e.g. GPT-5's chromosome
53.53 = mean of 36.19, 68.81 and 55.60); the overall is the equal mean over the types asked.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from knowsum.genebench._parse import TRUNCATED
from knowsum.genebench._schema import KNOWLEDGE, question_key
from knowsum.genebench._score import UNANSWERED
from knowsum.genebench._textmetrics import SummaryFlag
from knowsum.genebench.record import AttentionCurve, Cell, GenebenchScores, InstanceRecord, Pearson
from knowsum.records import Caveat
from knowsum.stats import assign_buckets, bucket_edges, spearman_permutation

__all__ = ["CELLS", "PARTIAL", "SUMMARY_CUT", "partial_caveats", "summarize", "summary_caveats"]


@dataclass(frozen=True, slots=True)
class _CellSpec:
    key: str
    task: str
    label: str
    knowledge: str
    metric: str
    in_overall: bool = True


def _attention_cells(task: str, name: str, knowledge: str) -> tuple[_CellSpec, ...]:
    """The low- and high-attention cells of an accuracy task."""
    return tuple(
        _CellSpec(f"{task}/{key}", task, f"{name} — {level} attention", knowledge, "accuracy")
        for key, level in (("loc", "low"), ("non-loc", "high"))
    )


def _no_answer_cells(task: str, name: str, knowledge: str) -> tuple[_CellSpec, ...]:
    """The hallucination-resistance cell of a task, and its control (has an answer; not in the overall)."""
    return (
        _CellSpec(f"{task}/no-answer", task, f"{name} — hallucination resistance", knowledge, "accuracy"),
        _CellSpec(
            f"{task}/control",
            task,
            f"{name} — control (has an answer)",
            knowledge,
            "accuracy",
            in_overall=False,
        ),
    )


def _abstracts_cells(task: str, name: str, knowledge: str, metric: str) -> tuple[_CellSpec, ...]:
    """The without- and with-abstracts cells of a generation task."""
    return tuple(
        _CellSpec(f"{task}/{key}", task, f"{name} — {how} abstracts", knowledge, metric)
        for key, how in (("no_ref", "without"), ("with_ref", "with"))
    )


#: The cells of Tables 5–6 (plus the "control" cells of Q2-A/Q3-B, beyond the paper).
CELLS: tuple[_CellSpec, ...] = (
    *_attention_cells("Q1", "Gene Full Name", "full name"),
    *_no_answer_cells("Q2-A", "Synonyms (A)", "synonyms"),
    _CellSpec("Q2-B", "Q2-B", "Synonyms (B) — completeness", "synonyms", "macro F1"),
    *_attention_cells("Q3-A", "Chromosome Location (A)", "chromosome"),
    *_no_answer_cells("Q3-B", "Chromosome Location (B)", "chromosome"),
    *_attention_cells("Q4", "Gene Type", "gene_type"),
    _CellSpec("Q5", "Q5", "Related Proteins — completeness", "designation", "macro F1"),
    _CellSpec("Q6", "Q6", "Expression Pattern — completeness", "expression", "expression score"),
    *_abstracts_cells("Q7", "Gene Ontology", "go_annotation", "CAFA macro F1"),
    *_abstracts_cells("Q8", "Functional Summary", "summary", "summary score"),
)


def _mean(xs: Sequence[float]) -> float | None:
    return float(np.mean(xs)) if xs else None


def _per_rotation(recs: Sequence[InstanceRecord]) -> tuple[float | None, float | None, bool]:
    """``(mean, std, mixed)`` of a cell's scores over rotations (App. E).

    Every question of the cell asked in the same rotations (the paper's case: all its choice questions
    have four options): the mean of eq. 1 per rotation, then mean ± population std over rotations.
    Questions with different option counts (``mixed``, only in a user's file) have different rotations,
    so "rotation r" holds different questions for different r: the mean is then taken per question
    (each question's mean over its own rotations, then the mean over questions — the same figure in
    the balanced case) and no std over rotations is defined (beyond the paper; caveat ``options-mixed``).
    """
    if not recs:
        return None, None, False
    by_q: dict[str, list[InstanceRecord]] = defaultdict(list)
    for r in recs:
        by_q[question_key(r.question_index, r.flag)].append(r)
    rots = {frozenset(x.permutation for x in rs) for rs in by_q.values()}
    if len(rots) > 1 and any(r.permutation is not None for r in recs):
        return float(np.mean([np.mean([x.score for x in rs]) for rs in by_q.values()])), None, True
    by_rot: dict[int, list[InstanceRecord]] = defaultdict(list)
    for r in recs:
        by_rot[r.permutation if r.permutation is not None else -1].append(r)
    per_rot = [float(np.mean([r.score for r in rs])) for rs in by_rot.values()]
    rotated = len(by_rot) > 1  # a std over one rotation would be a meaningless 0
    return float(np.mean(per_rot)), float(np.std(per_rot)) if rotated else None, False


def _cell(spec: _CellSpec, every: Sequence[InstanceRecord]) -> Cell:
    recs = [r for r in every if r.not_scored is None]  # no reference: left out (_goeval)
    mean, std, mixed = _per_rotation(recs)
    extra: dict[str, float | None] = {}
    if mixed:
        extra["options_mixed"] = 1.0
    left_out = {question_key(r.question_index, r.flag) for r in every if r.not_scored is not None}
    if left_out:
        extra["not_scored"] = float(len(left_out))
    if spec.metric in ("macro F1", "CAFA macro F1", "expression score"):
        extra["precision"] = _mean([r.precision for r in recs if r.precision is not None])
        extra["recall"] = _mean([r.recall for r in recs if r.recall is not None])
    if spec.metric == "CAFA macro F1":
        mapped = sum(r.go_mapped or 0 for r in recs)
        unmapped = sum(r.go_unmapped or 0 for r in recs)
        extra["hallucinated_rate"] = unmapped / (mapped + unmapped) if mapped + unmapped else None
        gold_unmapped = sum(r.go_reference_unmapped or 0 for r in every)
        if gold_unmapped:
            extra["gold_unmapped"] = float(gold_unmapped)
        negated = sum(r.go_negated or 0 for r in recs)
        if negated:
            extra["negated"] = float(negated)
    if spec.metric == "expression score":
        extra["category_match"] = _mean([r.category_match for r in recs if r.category_match is not None])
        extra["tissue_f1"] = _mean([r.tissue_f1 for r in recs if r.tissue_f1 is not None])
    if spec.metric == "summary score":
        for name in ("rouge_l", "bertscore", "fluency", "perplexity", "length"):
            vals = [float(v) for r in recs if (v := getattr(r, name)) is not None]
            extra[name] = _mean(vals)
    if spec.task in ("Q2-A", "Q3-B") and recs:
        extra["no_right_answer_chosen"] = _mean([float(bool(r.chose_no_answer)) for r in recs])
    return Cell(
        key=spec.key,
        label=spec.label,
        knowledge=spec.knowledge,
        metric=spec.metric,
        mean=mean,
        std=std,
        n_questions=len({question_key(r.question_index, r.flag) for r in recs}),
        n_instances=len(recs),
        extra=extra,
        in_overall=spec.in_overall,
    )


def _attention(
    recs: Sequence[InstanceRecord], n_buckets: int, n_perm: int, seed: int
) -> AttentionCurve | None:
    acc: dict[str, list[float]] = defaultdict(list)
    count: dict[str, int] = {}
    for r in recs:
        if (
            r.perspective == "study_bias"
            and r.question_type == "single_choice"
            and r.pubmed_count is not None
        ):
            acc[r.question_index].append(r.score)
            count[r.question_index] = r.pubmed_count
    if len(acc) < 3:
        return None
    keys = sorted(acc)
    pubs = [float(count[k]) for k in keys]
    edges = bucket_edges(pubs, n_buckets)
    buckets = assign_buckets(pubs, edges)
    n_b = len(edges) - 1
    sums, ns = np.zeros(n_b), np.zeros(n_b, dtype=int)
    for k, b in zip(keys, buckets, strict=True):
        sums[b - 1] += float(np.mean(acc[k]))
        ns[b - 1] += 1
    accuracy = [float(s / n) if n else None for s, n in zip(sums, ns, strict=True)]
    filled = [(i + 1, a) for i, a in enumerate(accuracy) if a is not None]
    rho = p = None
    if len(filled) >= 3:
        res = spearman_permutation([f[0] for f in filled], [f[1] for f in filled], n_perm=n_perm, seed=seed)
        rho = None if math.isnan(res.rho) else res.rho
        p = res.p_value
    return AttentionCurve(
        edges=[float(e) for e in edges],
        accuracy=accuracy,
        n=[int(n) for n in ns],
        spearman=rho,
        p_value=p,
        n_perm=n_perm,
    )


def _pearson(key: str, recs: Sequence[InstanceRecord]) -> Pearson:
    pts = [(r.f1 if r.f1 is not None else r.tissue_f1, r.precision, r.recall) for r in recs]
    arr = np.array([p for p in pts if None not in p], dtype=float).reshape(-1, 3)

    def corr(j: int) -> float | None:
        if arr.shape[0] < 3 or np.std(arr[:, 0]) == 0 or np.std(arr[:, j]) == 0:
            return None
        return float(np.corrcoef(arr[:, 0], arr[:, j])[0, 1])

    return Pearson(key=key, f1_precision=corr(1), f1_recall=corr(2), n=int(arr.shape[0]))


def summarize(
    records: Sequence[InstanceRecord],
    *,
    missing: dict[str, str] | None = None,
    methods: dict[str, str] | None = None,
    n_buckets: int = 10,
    n_perm: int = 10_000,
    seed: int = 0,
    lenient: bool = False,
) -> GenebenchScores:
    """Aggregate scored instances into cells, knowledge scores, the overall and the diagnostics.

    Args:
        records: Scored instances.
        missing: Knowledge type → why it was not asked (no user file…).
        methods: Metric name → implementation (named in the result).
        n_buckets: PubMed-count buckets of the attention curve.
        n_perm: Permutations of its Spearman test.
        seed: Permutation seed.
        lenient: The records were scored under the lenient reply rule (named in the result).
    """
    by_task: dict[str, list[InstanceRecord]] = defaultdict(list)
    for r in records:
        by_task[r.task].append(r)
    cells: list[Cell] = []
    for spec in CELLS:
        recs = [r for r in by_task.get(spec.task, []) if _select(spec, r)]
        if recs:
            cells.append(_cell(spec, recs))
    knowledge: dict[str, float | None] = {}
    for k in KNOWLEDGE:
        vals = [c.mean for c in cells if c.knowledge == k and c.in_overall and c.mean is not None]
        if vals:
            knowledge[k] = float(np.mean(vals))
    why = dict(missing or {})
    for c in cells:
        if c.mean is None and c.extra.get("not_scored"):
            why.setdefault(c.knowledge, "asked, but no question could be scored (no gold reference)")
    for k in KNOWLEDGE:
        if k not in knowledge:
            why.setdefault(k, "no question of this type in the question set")
    asked = [k for k in KNOWLEDGE if k in knowledge]
    overall = float(np.mean([knowledge[k] for k in asked])) if asked else None
    # format errors are a property of replies: instances without one (unanswered) are counted apart
    replies = [r for r in records if not _unanswered(r)]
    errors: dict[str, list[bool]] = defaultdict(list)
    for r in replies:
        errors[r.question_type].append(r.format_error is not None)
    total_err = sum(sum(v) for v in errors.values())
    by_kind = {
        TRUNCATED: _rates(replies, lambda r: (r.format_error or "").startswith(TRUNCATED)),
        "invalid": _rates(
            replies, lambda r: r.format_error is not None and not r.format_error.startswith(TRUNCATED)
        ),
    }
    if len(replies) < len(records):
        by_kind[UNANSWERED] = _rates(records, _unanswered)
    rule = "lenient" if lenient else "strict"
    other = "strict" if lenient else "lenient"
    go = {
        c.key.split("/")[1]: {"macro_f1": c.mean, **c.extra, "n": float(c.n_questions)}
        for c in cells
        if c.key.startswith("Q7/")
    }
    summ = {
        c.key.split("/")[1]: {"score": c.mean, **c.extra, "n": float(c.n_questions)}
        for c in cells
        if c.key.startswith("Q8/")
    }
    return GenebenchScores(
        cells=cells,
        knowledge=knowledge,
        overall=overall,
        types_asked=asked,
        types_missing={k: v for k, v in why.items() if k not in knowledge},
        format_error_rate=total_err / len(replies) if replies else 0.0,
        format_errors={k: float(np.mean(v)) for k, v in sorted(errors.items())},
        reply_rule=rule,
        format_errors_by_rule={
            rule: _rates(replies, lambda r: r.format_error is not None),
            other: _rates(replies, lambda r: r.format_error_other is not None),
        },
        format_errors_by_kind=by_kind,
        truncated_rate=_rates(replies, lambda r: r.truncated),
        attention=_attention(records, n_buckets, n_perm, seed),
        pearson=[_pearson(t, by_task[t]) for t in ("Q2-B", "Q5", "Q6") if by_task.get(t)],
        go=go,
        summary=summ,
        methods=dict(methods or {}),
    )


def _unanswered(r: InstanceRecord) -> bool:
    return (r.format_error or "").startswith(UNANSWERED)


def _rates(records: Sequence[InstanceRecord], hit: Callable[[InstanceRecord], bool]) -> dict[str, float]:
    """``{'overall': share of records where hit, <question type>: share …}`` (empty without records)."""
    by_type: dict[str, list[bool]] = defaultdict(list)
    for r in records:
        by_type[r.question_type].append(hit(r))
    if not records:
        return {}
    out = {"overall": sum(sum(v) for v in by_type.values()) / len(records)}
    out.update({k: sum(v) / len(v) for k, v in sorted(by_type.items())})
    return out


def _select(spec: _CellSpec, r: InstanceRecord) -> bool:
    if spec.key.endswith("/no-answer"):
        return r.no_answer
    if spec.key.endswith("/control"):
        return not r.no_answer
    if "/" in spec.key:
        return r.flag == spec.key.split("/")[1]
    return True


SUMMARY_CUT = "summary-input-cut"
"""The caveat kind of summary scores computed on cut text (:func:`summary_caveats`)."""


def summary_caveats(records: Sequence[InstanceRecord]) -> list[Caveat]:
    """The record's caveat when some summary scores read cut text (empty when none did).

    BERTScore matches at most the encoder's 512 word pieces of an answer and of its reference, as
    ``bert-score`` truncates; the perplexity reads at most the language model's context. Such a
    score (eq. 6) rests on the first part of the text only. An empty answer is no such case: its
    score is 0 by the rule.
    """
    scored = [r for r in records if r.question_type == "summary" and r.rouge_l is not None]
    cuts = [[f for f in r.summary_flags or () if f != SummaryFlag.EMPTY_CANDIDATE] for r in scored]
    n_cut = sum(1 for c in cuts if c)
    if not n_cut:
        return []
    parts = ", ".join(f"{flag} {n}" for flag, n in sorted(Counter(f for c in cuts for f in c).items()))
    message = (
        f"summary inputs cut: {n_cut} of {len(scored)} summary scores read cut text ({parts}); they "
        "rest on the first part of the answer or reference only (summary_flags in predictions.jsonl)"
    )
    return [Caveat(kind=SUMMARY_CUT, mark="summary inputs cut", message=message, figure="summary score")]


PARTIAL = "type-partial"
"""The caveat kind of a knowledge type scored from part of its Table 2 cells (:func:`partial_caveats`)."""


def partial_caveats(scores: GenebenchScores, titles: Mapping[str, str]) -> list[Caveat]:
    """One caveat per knowledge type asked with some of its cells only.

    Table 2 scores a knowledge type as the equal mean of all its cells (Synonyms: Q2-A's hallucination
    resistance and Q2-B's completeness; Gene Ontology: without and with abstracts…). A run that asks
    some of them (``--types Q2-B``, no ``--abstracts``) gets the mean of those it has: a different
    quantity from the paper's, named here on the type's figure (``knowledge/<type>``).
    """
    have = {c.key for c in scores.cells}
    out: list[Caveat] = []
    for know in scores.knowledge:
        expected = [spec for spec in CELLS if spec.knowledge == know and spec.in_overall]
        absent = [spec.label for spec in expected if spec.key not in have]
        if not absent:
            continue
        title = titles.get(know, know)
        present = [spec.label for spec in expected if spec.key in have]
        out.append(
            Caveat(
                kind=PARTIAL,
                mark=f"{title} partial",
                message=(
                    f"{title} partial: Table 2 averages its {len(expected)} cells; {', '.join(absent)} not "
                    f"asked here, so it is {', '.join(present)} alone (not comparable with the paper's)"
                ),
                figure=f"knowledge/{know}",
            )
        )
    return out
