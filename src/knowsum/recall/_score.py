"""Judge answers and compute every recall metric (paper §4.1 RQ1, §5.1 RQ2).

:func:`judge` classifies one answer (correct / wrong / invented / no ID) and computes its error
measures; :func:`summarize` aggregates judged predictions into :class:`RecallScores`:

- accuracy = correct / all;
- Levenshtein distance between gold and predicted ID over every wrong well-formed ID (existing
  or invented); Jaccard similarity of the gold and predicted labels over wrong IDs that exist
  (an invented ID has no label);
- unique predicted IDs, % of them invented (absent from the whole ontology, obsolete and
  alternative IDs included), % of wrong predictions (no-ID answers included) caused by invented IDs;
- with popularity: per-bucket accuracy, Spearman ρ of bucket rank vs accuracy with a
  permutation p-value, Granger F (bucket mean popularity → accuracy, lag 3), Spearman of bucket
  rank vs mean Levenshtein / Jaccard, and the top-k repeated wrong IDs with ``R_B`` per bucket.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from knowsum.kb import Ontology
from knowsum.recall._concepts import Concept, primary_names
from knowsum.recall._popularity import Buckets
from knowsum.recall._result import BucketStats, PopularityScores, PredictionRecord, RecallScores
from knowsum.recall.metrics import jaccard, label_tokens, levenshtein, repetition_ratio
from knowsum.stats import granger_f, spearman_permutation

__all__ = ["GRANGER_LAG", "Judge", "granger_f", "judge", "spearman_or_none", "summarize"]

GRANGER_LAG = 3


class Judge:
    """Classifies answers against one ontology (see :func:`judge`); builds its ID → label table once.

    Existence is decided over the *whole* ontology: primary IDs of live and obsolete terms and
    every alternative ID (paper §4.1 fn. 8).
    """

    def __init__(self, ontology: Ontology) -> None:
        self.ontology = ontology
        names = primary_names(ontology, include_obsolete=True)
        for alt, primary in ontology.alt_ids.items():
            if primary in names:
                names.setdefault(alt, names[primary])
        self._names = names
        self._tokens: dict[str, frozenset[str]] = {}

    def _label_of(self, pid: str) -> str | None:
        name = self._names.get(pid)
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


def summarize(
    records: Sequence[PredictionRecord],
    buckets: Buckets | None = None,
    *,
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
        source: Name of the popularity source, recorded.
        top_k: k of the top-k repeated wrong IDs (paper: 500).
        n_perm: Permutations of each Spearman test (paper: permutation test; default 10,000).
        seed: Seed of the permutation tests.
        resolve: Maps a predicted ID to its primary ID (alternative IDs), for the bucket lookup.
    """
    n = len(records)
    status = Counter(r.status for r in records)
    predicted = {r.predicted for r in records if r.predicted is not None}
    invented_ids = {r.predicted for r in records if r.status == "invented"}
    n_wrong = n - status["correct"]
    levs = [float(r.levenshtein) for r in records if r.levenshtein is not None]
    jacs = [r.jaccard for r in records if r.jaccard is not None]
    pop = _popularity(records, buckets, source, top_k, n_perm, seed, resolve) if buckets is not None else None
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


def _popularity(
    records: Sequence[PredictionRecord],
    buckets: Buckets,
    source: str,
    top_k: int,
    n_perm: int,
    seed: int,
    resolve: Callable[[str], str | None] | None,
) -> PopularityScores:
    members: dict[int, list[PredictionRecord]] = {}
    for r in records:
        if r.bucket is not None:
            members.setdefault(r.bucket, []).append(r)
    ranked, n_b = _top_k(records, buckets, top_k, resolve)
    k_used, big_n = len(ranked), sum(buckets.sizes)
    stats: list[BucketStats] = []
    for b in range(1, buckets.n + 1):
        rs = members.get(b, [])
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
                n_top_k=n_b[b],
                r_b=None if math.isnan(rb) else rb,
            )
        )
    filled = [s for s in stats if s.accuracy is not None]
    acc = [s.accuracy for s in filled if s.accuracy is not None]
    gf, gp = granger_f(acc, [s.mean_popularity or 0.0 for s in filled], lag=GRANGER_LAG)

    def trend(attr: str) -> tuple[float | None, float | None]:
        """Spearman ρ (permutation p) of bucket rank vs a per-bucket value, over defined buckets."""
        pairs = [(s.bucket, getattr(s, attr)) for s in stats if getattr(s, attr) is not None]
        return spearman_or_none([b for b, _ in pairs], [v for _, v in pairs], n_perm, seed)

    rho, p = trend("accuracy")
    lrho, lp = trend("mean_levenshtein")
    jrho, jp = trend("mean_jaccard")
    rrho, rp = trend("r_b") if k_used else (None, None)
    return PopularityScores(
        source=source,
        n_buckets=buckets.n,
        n_with_popularity=sum(len(v) for v in members.values()),
        buckets=stats,
        bucket_spearman=rho,
        bucket_spearman_p=p,
        granger_f=gf,
        granger_p=gp,
        levenshtein_spearman=lrho,
        levenshtein_spearman_p=lp,
        jaccard_spearman=jrho,
        jaccard_spearman_p=jp,
        top_k=top_k,
        top_k_used=k_used,
        rb_spearman=rrho,
        rb_spearman_p=rp,
        top_ids=ranked[:20],
    )
