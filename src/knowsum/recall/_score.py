"""Judge answers and compute every recall metric (paper §4.1 RQ1, §5.1 RQ2).

:func:`judge` classifies one answer (correct / wrong / invented / no ID) and computes its error
measures; :func:`summarize` aggregates judged predictions into :class:`RecallScores`:

- accuracy = correct / all;
- Levenshtein distance between gold and predicted ID over every wrong well-formed ID (existing
  or invented); Jaccard similarity of the gold and predicted labels over wrong IDs that exist
  (an invented ID has no label);
- unique predicted IDs, % of them invented (absent from the whole ontology, obsolete and
  alternative IDs included), % of wrong predictions (no-ID answers included) caused by invented IDs;
- the same Tables 2–3 under the paper's comparability rules (:mod:`knowsum.recall._paper`; Table 2
  averaged over the buckets only when every wrong prediction has one);
- with popularity (buckets: :mod:`knowsum.stats.buckets`): per-bucket accuracy; with x = the
  bucket's mean popularity and y = its accuracy (paper §5.1), Spearman ρ with a
  permutation p-value and the Granger F (lag 3) with its parametric and permutation p-values;
  Table 6: Spearman of x vs the paper-rule mean Levenshtein / Jaccard (a bucket without errors
  counts 0 / 1) and, for knowsum's rules, over buckets with errors; the top-k repeated wrong IDs
  with ``R_B`` per bucket.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from knowsum.kb import Ontology
from knowsum.recall._concepts import Concept
from knowsum.recall._paper import Study, paper_errors, paper_scores
from knowsum.recall._popularity import Buckets
from knowsum.recall.metrics import jaccard, label_tokens, levenshtein, repetition_ratio
from knowsum.recall.record import BucketStats, PopularityScores, PredictionRecord, RecallScores
from knowsum.stats import granger_f, granger_test, spearman_permutation

__all__ = ["GRANGER_LAG", "Judge", "Scoring", "granger_f", "judge", "score", "spearman_or_none", "summarize"]

GRANGER_LAG = 3


class OntologyLabels(Mapping[str, str]):
    """Every ID of an ontology (primary — live or obsolete — and alternative) → its term's name.

    Membership is exact (the IDs as the ontology spells them) and costs nothing up front; a name
    is read from the ontology the first time it is asked for and then cached, so scoring touches
    only the terms that were predicted.
    """

    def __init__(self, ontology: Ontology) -> None:
        self._ontology = ontology
        self._ids = frozenset(ontology)  # the keys only: no term is built
        self._alt = ontology.alt_ids
        self._cache: dict[str, str] = {}

    def __getitem__(self, key: str) -> str:
        name = self._cache.get(key)
        if name is None:
            tid = key if key in self._ids else self._alt.get(key)
            if tid is None:
                raise KeyError(key)
            name = self._cache[key] = self._ontology[tid].name
        return name

    def __contains__(self, key: object) -> bool:
        return key in self._ids or key in self._alt

    def __iter__(self) -> Iterator[str]:
        yield from self._ids
        yield from (a for a in self._alt if a not in self._ids)

    def __len__(self) -> int:
        return len(self._ids) + sum(a not in self._ids for a in self._alt)


class Judge:
    """Classifies answers against one ontology (see :func:`judge`).

    Existence is decided over the *whole* ontology: primary IDs of live and obsolete terms and
    every alternative ID (paper §4.1 fn. 8).
    """

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        self.names: Mapping[str, str] = OntologyLabels(ontology)
        """Every ID of the ontology (live, obsolete and alternative) → label."""
        self._tokens: dict[str, frozenset[str]] = {}

    def _label_of(self, pid: str) -> str | None:
        name = self.names.get(pid)
        if name is None:
            tid = self.ontology.resolve(pid)  # an odd spelling the table does not hold
            name = None if tid is None else self.ontology[tid].name
        return name

    def _tok(self, label: str) -> frozenset[str]:
        tokens = self._tokens.get(label)
        if tokens is None:
            tokens = self._tokens[label] = label_tokens(label)
        return tokens

    def __call__(
        self,
        concept: Concept,
        text: str,
        predicted: str | None,
        accepted: frozenset[str] = frozenset(),
        prompt: str = "",
    ) -> PredictionRecord:
        """Classify one answer (arguments as in :func:`judge`)."""
        common: dict[str, Any] = {
            "id": concept.id,
            "label": concept.label,
            "popularity": concept.popularity,
            "bucket": concept.bucket,
            "prompt": prompt,
            "text": text,
            "predicted": predicted,
            "levenshtein": None,
            "jaccard": None,
            "predicted_label": None,
            "answers": {},
        }
        if predicted is None:
            return PredictionRecord.model_construct(**common, status="no_id")
        if predicted == concept.id or predicted in accepted:
            return PredictionRecord.model_construct(**common, status="correct")
        common["levenshtein"] = levenshtein(concept.id, predicted)
        other = self._label_of(predicted)
        if other is None:
            return PredictionRecord.model_construct(**common, status="invented")
        common["jaccard"] = jaccard(self._tok(concept.label), self._tok(other))
        common["predicted_label"] = other
        return PredictionRecord.model_construct(**common, status="wrong")


def judge(
    concept: Concept,
    text: str,
    predicted: str | None,
    ontology: Ontology,
    accepted: frozenset[str] = frozenset(),
    prompt: str = "",
) -> PredictionRecord:
    """Classify one answer: correct, wrong (another existing ID), invented, or no ID.

    Errors with an ID get the Levenshtein distance between gold and predicted ID; wrong existing
    IDs also get the Jaccard similarity of the gold label and the predicted ID's label. For many
    answers, build one :class:`Judge` and call it instead.

    Args:
        concept: The gold concept.
        text: Raw answer.
        predicted: Canonical extracted ID or ``None``.
        ontology: The whole ontology (for existence and labels of predicted IDs).
        accepted: Further IDs that count as correct (polysemy: terms with the same label).
        prompt: The prompt sent, recorded as is.
    """
    return Judge(ontology)(concept, text, predicted, accepted, prompt)


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def spearman_or_none(
    x: Sequence[float], y: Sequence[float], n_perm: int, seed: int
) -> tuple[float | None, float | None]:
    """Spearman ρ and permutation p-value; ``(None, None)`` below 3 pairs or for a constant input."""
    if len(x) < 3:
        return None, None
    res = spearman_permutation(np.asarray(x, float), np.asarray(y, float), n_perm=n_perm, seed=seed)
    if math.isnan(res.rho):
        return None, None
    return res.rho, res.p_value


def _pct(num: int, den: int) -> float | None:
    return 100.0 * num / den if den else None


@dataclass(frozen=True, slots=True)
class Scoring:
    """How :func:`summarize` scores besides the study: the arguments of that name."""

    source: str = ""
    top_k: int = 500
    n_perm: int = 10_000
    seed: int = 0
    resolve: Callable[[str], str | None] | None = None


def summarize(
    records: Sequence[PredictionRecord],
    buckets: Buckets | None = None,
    *,
    study: Study | None = None,
    source: str = "",
    top_k: int = 500,
    n_perm: int = 10_000,
    seed: int = 0,
    resolve: Callable[[str], str | None] | None = None,
) -> RecallScores:
    """Aggregate judged predictions into :class:`RecallScores` (see module docstring).

    Args:
        records: Judged predictions (:func:`judge`).
        buckets: Popularity buckets of the universe; ``None`` skips the popularity analysis.
        study: The study's concept IDs and labels for the paper's rules
            (:mod:`knowsum.recall._paper`); ``None`` skips them.
        source: Name of the popularity source, recorded.
        top_k: k of the top-k repeated wrong IDs (paper: 500).
        n_perm: Permutations of each Spearman test and of the Granger test (default 10,000).
        seed: Seed of the permutation tests.
        resolve: Maps a predicted ID to its primary ID (alternative IDs), for the bucket lookup.
    """
    return score(records, buckets, study, Scoring(source, top_k, n_perm, seed, resolve))


def score(
    records: Sequence[PredictionRecord], buckets: Buckets | None, study: Study | None, opts: Scoring
) -> RecallScores:
    """:func:`summarize` with its options in one :class:`Scoring` (a run's and a scored file's)."""
    n = len(records)
    status = Counter(r.status for r in records)
    predicted = {r.predicted for r in records if r.predicted is not None}
    invented_ids = {r.predicted for r in records if r.status == "invented"}
    n_wrong = n - status["correct"]
    levs = [float(r.levenshtein) for r in records if r.levenshtein is not None]
    jacs = [r.jaccard for r in records if r.jaccard is not None]
    errors = paper_errors(records, study) if study is not None else None
    pop = _popularity(records, buckets, opts, errors) if buckets is not None else None
    paper = None
    if study is not None and errors is not None:
        # Table 2 (rule 2): the mean over buckets of the per-bucket means when every wrong prediction
        # is in a bucket, else pooled over every wrong prediction (one without a bucket counts too)
        means = None
        wrong = [r for r, e in zip(records, errors, strict=True) if e is not None]
        if pop is not None and all(r.bucket is not None for r in wrong):
            means = [
                (s.paper_mean_levenshtein, s.paper_mean_jaccard)
                for s in pop.buckets
                if s.paper_mean_levenshtein is not None and s.paper_mean_jaccard is not None
            ]
        paper = paper_scores(records, study, errors, means)
    return RecallScores(
        n=n,
        n_correct=status["correct"],
        accuracy=status["correct"] / n if n else 0.0,
        n_no_id=status["no_id"],
        n_wrong=n_wrong,
        n_invented=status["invented"],
        n_unique_predicted=len(predicted),
        n_invented_unique=len(invented_ids),
        invented_unique_pct=_pct(len(invented_ids), len(predicted)),
        wrong_due_to_invented_pct=_pct(status["invented"], n_wrong),
        mean_levenshtein=_mean(levs),
        n_levenshtein=len(levs),
        mean_jaccard=_mean(jacs),
        n_jaccard=len(jacs),
        popularity=pop,
        paper=paper,
    )


def _top_k(
    records: Sequence[PredictionRecord],
    buckets: Buckets,
    k: int,
    resolve: Callable[[str], str | None] | None,
) -> tuple[list[tuple[str, int, int]], Counter[int]]:
    counts = Counter(r.predicted for r in records if r.status == "wrong" and r.predicted is not None)
    ranked: list[tuple[str, int, int]] = []
    for pid, times in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        bucket = buckets.of.get(pid)
        if bucket is None and resolve is not None:
            primary = resolve(pid)
            bucket = buckets.of.get(primary) if primary is not None else None
        if bucket is not None:
            ranked.append((pid, times, bucket))
            if len(ranked) == k:
                break
    return ranked, Counter(b for _, _, b in ranked)


def _bucket_mean(values: Sequence[tuple[int, float]], i: int) -> float | None:
    return float(np.mean([v[i] for v in values])) if values else None


def _popularity(
    records: Sequence[PredictionRecord],
    buckets: Buckets,
    opts: Scoring,
    errors: Sequence[tuple[int, float] | None] | None,
) -> PopularityScores:
    members: dict[int, list[int]] = {}
    for i, r in enumerate(records):
        if r.bucket is not None:
            members.setdefault(r.bucket, []).append(i)
    ranked, n_b = _top_k(records, buckets, opts.top_k, opts.resolve)
    k_used, big_n = len(ranked), sum(buckets.sizes)
    stats: list[BucketStats] = []
    for b in range(1, buckets.n + 1):
        idx = members.get(b, [])
        rs = [records[i] for i in idx]
        errs = [e for e in (errors[i] for i in idx) if e is not None] if errors is not None else []
        correct = sum(r.status == "correct" for r in rs)
        rb = repetition_ratio(n_b[b], buckets.sizes[b - 1], big_n, k_used)
        stats.append(
            BucketStats(
                bucket=b,
                lo=float(buckets.edges[b - 1]),
                hi=float(buckets.edges[b]),
                n_universe=buckets.sizes[b - 1],
                n=len(rs),
                n_correct=correct,
                accuracy=correct / len(rs) if rs else None,
                mean_popularity=_mean([r.popularity for r in rs if r.popularity is not None]),
                mean_levenshtein=_mean([float(r.levenshtein) for r in rs if r.levenshtein is not None]),
                mean_jaccard=_mean([r.jaccard for r in rs if r.jaccard is not None]),
                paper_mean_levenshtein=_bucket_mean(errs, 0),
                paper_mean_jaccard=_bucket_mean(errs, 1),
                n_top_k=n_b[b],
                r_b=None if math.isnan(rb) else rb,
            )
        )
    # Rule 4: x = mean popularity of the bucket, y = its accuracy, over buckets with predictions.
    filled = [s for s in stats if s.accuracy is not None and s.mean_popularity is not None]
    x = [s.mean_popularity or 0.0 for s in filled]
    acc = [s.accuracy or 0.0 for s in filled]
    granger = granger_test(acc, x, lag=GRANGER_LAG, n_perm=opts.n_perm, seed=opts.seed)

    def trend(values: Sequence[float | None], fill: float | None) -> tuple[float | None, float | None]:
        """Spearman ρ (permutation p) of bucket mean popularity vs a per-bucket value (None → fill)."""
        pairs = [(px, fill if v is None else v) for px, v in zip(x, values, strict=True)]
        kept = [(px, v) for px, v in pairs if v is not None]
        return spearman_or_none([p for p, _ in kept], [v for _, v in kept], opts.n_perm, opts.seed)

    # Spearman field → its per-bucket values and the fill of a bucket without one
    series: dict[str, tuple[Sequence[float | None], float | None]] = {
        "bucket": (acc, None),
        "levenshtein": ([s.paper_mean_levenshtein for s in filled], 0.0),  # Table 6, the paper's rules
        "jaccard": ([s.paper_mean_jaccard for s in filled], 1.0),
        "knowsum_levenshtein": ([s.mean_levenshtein for s in filled], None),
        "knowsum_jaccard": ([s.mean_jaccard for s in filled], None),
    }
    rhos: dict[str, Any] = {}
    for name, (values, fill) in series.items():
        paper_rule = name in ("levenshtein", "jaccard")
        rho, p = (None, None) if paper_rule and errors is None else trend(values, fill)
        rhos[f"{name}_spearman"] = rho
        rhos[f"{name}_spearman_p"] = p
    rank = [(s.bucket, s.r_b) for s in stats if s.r_b is not None]
    rrho, rp = (
        spearman_or_none([b for b, _ in rank], [v for _, v in rank], opts.n_perm, opts.seed)
        if k_used
        else (None, None)
    )
    return PopularityScores(
        source=opts.source,
        n_buckets=buckets.n,
        n_with_popularity=sum(len(v) for v in members.values()),
        buckets=stats,
        **rhos,
        granger_f=None if granger is None else granger.f,
        granger_p=None if granger is None else granger.p_value,
        granger_perm_p=None if granger is None else granger.perm_p_value,
        top_k=opts.top_k,
        top_k_used=k_used,
        rb_spearman=rrho,
        rb_spearman_p=rp,
        top_ids=ranked[:20],
    )
