"""The card's rows: each instrument's headline measures, their intervals, the papers' values beside them.

Intervals:

- census ``N̂_tot`` and ``SKR``: the run's own bootstrap interval (KnowSum §3, lognormal by default);
  ``N_seen`` is a count of what was seen and has none;
- recall accuracy and % invented IDs: Wilson score interval (95 %) on the counts
  ``p̂ ± …  = (p̂ + z²/2n ± z·√(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)`` (Wilson 1927);
- genebench knowledge types: the same Wilson interval on the type's score and its number of questions
  (exact for accuracies, an approximation for F1-type scores); the overall and the perspectives are
  means of those and carry none.

Published values come from each instrument's transcription of its paper: KnowSum Table 1, Bombieri
et al. Tables 1 and 3(a) and §6.3, SciHorizon-GENE Table 2.
"""

from __future__ import annotations

import math
from typing import Any, Literal

from knowsum.census import CensusResult, published_rows
from knowsum.genebench import PUBLISHED as GENE_PUBLISHED
from knowsum.genebench import GenebenchResult
from knowsum.recall import PUBLISHED as RECALL_PUBLISHED
from knowsum.recall import PUBLISHED_INVARIANCE, RecallResult
from knowsum.records import Record, published_label
from knowsum.records.profile import Measure, PublishedPoint

__all__ = ["census_measures", "genebench_measures", "recall_measures", "wilson"]

PAPER_QUERIES = {"diseases": 3000, "theorems": 30000}
"""KnowSum §4.1: N_query of each task (N_ans 50 diseases, 20 theorems)."""
PAPER_ANSWERS = {"diseases": 50, "theorems": 20}
GENE_PAPER_QUESTIONS = 2710
"""SciHorizon-GENE's question set (§4)."""
_Z = 1.959963984540054


def wilson(successes: float, n: int) -> tuple[float | None, float | None]:
    """The 95 % Wilson score interval of ``successes / n`` (``(None, None)`` when ``n = 0``)."""
    if n <= 0:
        return None, None
    p = min(1.0, max(0.0, successes / n))
    z2 = _Z * _Z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = _Z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


Instrument = Literal["census", "recall", "genebench"]


def _measure(
    instrument: Instrument,
    key: str,
    label: str,
    value: float | None,
    method: str,
    *,
    run: str,
    caveats: list[str],
    interval: tuple[float | None, float | None] | None = None,
    published: list[PublishedPoint] | None = None,
    percent: bool = False,
    record: Record | None = None,
) -> Measure:
    """One card row; ``interval`` is ``(lower, upper)`` or ``None`` for a measure that has none."""
    lo, hi = interval if interval is not None else (None, None)
    return Measure(
        key=f"{instrument}/{key}",
        instrument=instrument,
        label=label,
        value=value,
        lower=lo,
        upper=hi,
        percent=percent,
        method=method,
        run=run,
        published=published or [],
        caveats=caveats,
        interval_reason=getattr(record, "interval_reason", None) if interval is not None else None,
        marks=[] if record is None else list(record.caveats),
    )


def _release(kb_releases: dict[str, str]) -> str:
    shown = ", ".join(f"{kb} {rel or '(release unknown)'}" for kb, rel in kb_releases.items())
    return f"judged against {shown}; the paper used the release of its time, which may differ"


def census_measures(result: CensusResult, run: str) -> list[Measure]:
    """N_seen, N̂_tot and SKR of one census run (one task, one criterion), beside KnowSum Table 1."""
    task, crit = result.task, result.criterion
    rows = published_rows(task, crit)
    caveats = []
    paper_q, answers = PAPER_QUERIES.get(task), int(result.parameters.get("answers") or 0)
    if paper_q and result.n_queries < paper_q:
        caveats.append(
            f"N_query = {result.n_queries:,} here, {paper_q:,} in the paper: N_seen grows with N_query, and "
            f"N̂_tot extrapolates t = {result.t:g}× from fewer observations (a wider interval)"
        )
    if task in PAPER_ANSWERS and answers and answers != PAPER_ANSWERS[task]:
        caveats.append(f"N_ans = {answers} per query here, {PAPER_ANSWERS[task]} in the paper")
    caveats.append(_release(result.kb_releases))
    k = f"k = {result.k} ({result.k_source})" if result.k is not None else "k: none"
    boot = f"{result.level:.0%} {result.interval_method} bootstrap interval"

    horizon = "trust horizon: " + (result.horizon.message if result.horizon is not None else "not computed")

    def row(name: str, title: str, value: float | None, interval: Any, method: str) -> Measure:
        published = [
            PublishedPoint(label=r.label, model=r.model, value=float(getattr(r, name))) for r in rows
        ]
        return _measure(
            "census", f"{task}/{crit}/{name}", f"{task} ({crit}) {title}", value, method,
            run=run, caveats=[*caveats, horizon] if name == "n_total" else caveats, interval=interval,
            published=published, record=None if name == "n_seen" else result,
        )  # fmt: skip

    return [
        row("n_seen", "N_seen", result.n_seen, None,
            f"distinct verified items, {crit} criterion (KnowSum §4.1); a count, no interval"),
        row("n_total", "N̂_tot", result.n_total, result.interval_total,
            f"N_seen + Û(t), t = {result.t:g}, {result.estimator} (smoothed Good–Turing), {k}; {boot}"),
        row("skr", "SKR", result.skr, result.interval_skr, f"N_seen / N̂_tot; interval from N̂_tot's ({boot})"),
    ]  # fmt: skip


def _recall_pub(kb: str, pick: str) -> list[PublishedPoint]:
    table = "Table 1" if pick == "accuracy" else "Table 3(a)"
    out = []
    for model, row in RECALL_PUBLISHED.get(kb, {}).items():
        value = row.accuracy if pick == "accuracy" else row.invented_pct / 100
        out.append(
            PublishedPoint(label=published_label(model, "Bombieri et al.", table), model=model, value=value)
        )
    return out


def _why_no_rho(accuracies: list[float]) -> str:
    """Why a bucket ρ is undefined: Spearman's ρ needs both variables to vary."""
    if len(accuracies) < 2:
        return f"; undefined: {len(accuracies)} bucket(s) with concepts, ρ needs at least 2"
    if len(set(accuracies)) == 1:
        return f"; undefined: accuracy is {accuracies[0]:.1%} in every bucket (ρ needs it to vary)"
    return "; undefined"


def recall_measures(result: RecallResult, run: str) -> list[Measure]:
    """Accuracy, % invented IDs and popularity ρ of a recall run (+ PI ρ when it ran invariance)."""
    s, kb, cfg = result.scores, result.kb, result.config
    caveats = []
    if cfg.get("select") == "stratified":
        caveats.append(
            f"{cfg.get('per_bucket')} concepts per popularity bucket ({s.n} in all) weigh every bucket "
            "equally; the paper scores every label, where unpopular concepts dominate — not the same estimand"
        )
    elif cfg.get("select") == "sample":
        caveats.append(
            f"a random sample of {s.n} labels (no popularity table for {kb} here, so no buckets and no ρ); "
            "the paper scores every label"
        )
    caveats.append(_release(result.kb_releases))
    out: list[Measure] = []

    def row(key: str, label: str, value: float | None, method: str, **kw: Any) -> Measure:
        return _measure("recall", f"{kb}/{key}", f"{kb} {label}", value, method, run=run, **kw)

    if not result.invariance:  # an invariance run adds its ρ; its sample's accuracy is the main run's job
        out.append(
            row("accuracy", "accuracy", s.accuracy,
                f"exact ID from label over {s.n} concepts (Bombieri et al. §4.2); Wilson 95 %",
                interval=wilson(s.n_correct, s.n), percent=True, caveats=caveats,
                published=_recall_pub(kb, "accuracy"))
        )  # fmt: skip
        paper = s.paper
        unique, invented = (
            (paper.unique_answers, paper.invented_unique)
            if paper
            else (s.n_unique_predicted, s.n_invented_unique)
        )
        out.append(
            row("invented", "% invented IDs", invented / unique if unique else None,
                f"distinct answered IDs that do not exist / distinct answered IDs ({unique}), "
                "the paper's rules (Table 3a %Inv); Wilson 95 %",
                interval=wilson(invented, unique), percent=True, caveats=caveats,
                published=_recall_pub(kb, "invented"))
        )  # fmt: skip
        pop = s.popularity
        p = (
            f", permutation p = {pop.bucket_spearman_p:.3g}"
            if pop and pop.bucket_spearman_p is not None
            else ""
        )
        if pop is not None and pop.bucket_spearman is None:
            p += _why_no_rho(
                [b.accuracy for b in pop.buckets if b.accuracy is not None and b.mean_popularity is not None]
            )
        out.append(
            row("popularity_rho", "popularity ρ", pop.bucket_spearman if pop is not None else None,
                f"Spearman ρ of popularity bucket vs accuracy over "
                f"{pop.n_buckets if pop else 0} buckets (source {pop.source if pop else 'none'}){p}",
                caveats=[*caveats, "the paper shows this correlation as a figure (Fig. 2), no number"])
        )  # fmt: skip
    for inv in result.invariance:
        pub = [
            PublishedPoint(
                label=published_label(m, "Bombieri et al.", "§6.3"), model=m, value=float(v[inv.method])
            )
            for m, v in PUBLISHED_INVARIANCE.get(kb, {}).items()
            if isinstance(v.get(inv.method), float)
        ]
        out.append(
            row(f"{inv.method}_rho", f"{inv.method.upper()} ρ(AvPI, acc)", inv.spearman,
                f"Spearman ρ of average prediction invariance vs accuracy over buckets, "
                f"{inv.m} prompts per concept, {inv.n_concepts} concepts (Bombieri et al. §6)",
                caveats=caveats, published=pub)
        )  # fmt: skip
    return out


def _gene_pub(pick: str | None) -> list[PublishedPoint]:
    out = []
    for row in GENE_PUBLISHED:
        value = row.overall if pick is None else row.knowledge.get(pick)
        if value is not None:
            label = published_label(row.model.lstrip("*"), "SciHorizon-GENE", "Table 2")
            out.append(PublishedPoint(label=label, model=row.model.lstrip("*"), value=value))
    return out


def genebench_measures(result: GenebenchResult, run: str) -> list[Measure]:
    """Overall, the four perspectives and the eight knowledge types of a genebench run (Table 2)."""
    s = result.scores
    caveats = []
    if result.n_questions < GENE_PAPER_QUESTIONS:
        caveats.append(
            f"{result.n_questions:,} questions here, {GENE_PAPER_QUESTIONS:,} in the paper: "
            "each type rests on fewer questions (wider intervals)"
        )
    caveats.append(_release(result.kb_releases))

    def row(key: str, label: str, value: float | None, method: str, **kw: Any) -> Measure:
        return _measure("genebench", key, label, value, method, run=run, percent=True, **kw)

    out = [
        row("overall", "overall", s.overall,
            f"equal mean of the {len(s.types_asked)} knowledge types asked (SciHorizon-GENE "
            "Table 2); no interval (see the types')",
            caveats=caveats, published=_gene_pub(None))
    ]  # fmt: skip
    for name, value in result.perspective_means().items():
        out.append(
            row(f"perspective/{name}", f"perspective: {name}", value,
                "mean of the perspective's cells (§3.4, Fig. 9); the paper draws it, no table",
                caveats=caveats)
        )  # fmt: skip
    for know, title in result.knowledge_titles.items():
        value = s.knowledge.get(know)
        n = sum(c.n_questions for c in s.cells if c.knowledge == know and c.in_overall)
        why = s.types_missing.get(know)
        out.append(
            row(f"knowledge/{know}", title, value,
                f"Table 2 score over {n} questions (mean over rotations); Wilson 95 % on n questions",
                interval=wilson(value * n, n) if value is not None else None,
                caveats=[*caveats, f"not asked: {why}"] if why else caveats,
                published=_gene_pub(know))
        )  # fmt: skip
    return out
