"""From responses to a :class:`CensusResult`: decode → verify → cluster → prevalence → estimate.

This is the part after sampling (KnowSum Algorithm 1, steps 2-5); :func:`analyse` takes plain
``(query index, text)`` pairs so it runs on any source of responses, and records the seconds each
stage took (``timings``) for the benchmark.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import scipy.sparse as sp

from knowsum.census import _diversity as dv
from knowsum.census._config import CensusConfig
from knowsum.census._decode import DecodedItem, decode
from knowsum.census._estimate import curve, heldout_check
from knowsum.census._result import (
    CensusResult,
    Counts,
    DiversityInfo,
    ItemRecord,
    StopInfo,
    TopItem,
)
from knowsum.census._tasks import Task
from knowsum.census._verify import Verdict, Verifier
from knowsum.stats import Prevalence, StatsWarning, summarize

__all__ = ["Analysis", "analyse", "cluster_items", "verify_items"]

CURVE_RESAMPLES = 200
"""Bootstrap resamples per point of the Û(t) band (the headline interval uses ``n_bootstrap``)."""


@dataclass
class Analysis:
    """The outcome of :func:`analyse`: the result record, every item, and (diversity) embeddings."""

    result: CensusResult
    items: list[ItemRecord]
    embeddings: np.ndarray[Any, Any] | None = None
    prevalence: Prevalence | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def verify_items(
    task: Task, verifier: Verifier, responses: Sequence[tuple[int, str]]
) -> tuple[list[DecodedItem], list[Verdict], float, float]:
    """Decode every response and verify every item in one batch; returns the two stage times."""
    t0 = time.perf_counter()
    decoded = [it for q, text in responses for it in decode(text, q, task.decoder, task.separator)]
    t1 = time.perf_counter()
    verdicts = verifier.verify([d.text for d in decoded], [d.claimed_id for d in decoded])
    return decoded, verdicts, t1 - t0, time.perf_counter() - t1


def cluster_items(
    decoded: Sequence[DecodedItem], verdicts: Sequence[Verdict], count_duplicates: bool
) -> list[ItemRecord]:
    """Item records with ``counted`` set: valid, and (unless ``count_duplicates``) the first
    mention of its cluster in its response."""
    seen: set[tuple[int, str]] = set()
    out = []
    for d, v in zip(decoded, verdicts, strict=True):
        counted = False
        if v.status == "valid" and v.key is not None:
            pair = (d.query, v.key)
            counted = count_duplicates or pair not in seen
            seen.add(pair)
        out.append(
            ItemRecord(
                query=d.query,
                position=d.position,
                text=d.text,
                claimed_id=d.claimed_id,
                status=v.status,
                key=v.key,
                name=v.name,
                score=v.score,
                stage=v.stage,
                claimed_ok=v.claimed_ok,
                counted=counted,
            )
        )
    return out


def _diversity(
    cfg: CensusConfig, decoded: Sequence[DecodedItem], verdicts: list[Verdict]
) -> tuple[list[Verdict], np.ndarray[Any, Any], DiversityInfo]:
    idx = [i for i, v in enumerate(verdicts) if v.status == "valid"]
    vectors = dv.embed([decoded[i].text for i in idx])
    pooled = [dv.knn_distances(vectors, cfg.neighbours)]
    pooled += [dv.knn_distances(dv.load_embeddings(p), cfg.neighbours) for p in cfg.pool_with]
    cut = dv.threshold(pooled, cfg.quantile)
    labels = dv.cluster(vectors, cut)
    names: dict[int, str] = {}
    out = list(verdicts)
    for pos, i in enumerate(idx):
        label = int(labels[pos])
        names.setdefault(label, decoded[i].text)
        out[i] = Verdict("valid", f"C{label}", names[label][:120])
    info = DiversityInfo(
        embedding_model=dv.EMBEDDING_MODEL,
        quantile=cfg.quantile,
        neighbours=cfg.neighbours,
        threshold=cut,
        pooled_runs=[str(p) for p in cfg.pool_with],
        n_distances=int(sum(p.size for p in pooled)),
    )
    return out, vectors, info


def _prevalence(counted: Sequence[ItemRecord], queries: Sequence[int]) -> Prevalence:
    """Counts by cluster, with the query × cluster matrix over *all* responses (empty ones too,
    so held-out splits and the bootstrap resample every query that was asked)."""
    row_of = {q: i for i, q in enumerate(queries)}
    codes: dict[str, int] = {}
    cols = np.fromiter((codes.setdefault(str(it.key), len(codes)) for it in counted), dtype=np.int64)
    rows = np.fromiter((row_of[it.query] for it in counted), dtype=np.int64, count=len(counted))
    matrix = sp.csr_matrix(
        (np.ones(len(counted), dtype=np.int64), (rows, cols)), shape=(len(queries), len(codes))
    )
    matrix.sum_duplicates()
    counts = np.bincount(cols, minlength=len(codes)).astype(np.int64)
    return Prevalence(counts, tuple(codes), matrix)


def _top(items: Sequence[ItemRecord], status: str, n: int, total: int, counted_only: bool) -> list[TopItem]:
    counts: Counter[str] = Counter()
    names: dict[str, str] = {}
    for it in items:
        if it.status == status and it.key is not None and (it.counted or not counted_only):
            counts[it.key] += 1
            names.setdefault(it.key, it.name or it.text)
    denom = max(total, 1)
    return [TopItem(key=k, name=names[k], count=c, fraction=c / denom) for k, c in counts.most_common(n)]


def _counts(items: Sequence[ItemRecord], responses: int, failed: int) -> Counts:
    by = Counter(it.status for it in items)
    claimed = [it for it in items if it.claimed_ok is not None]
    return Counts(
        responses=responses,
        failed_responses=failed,
        items=len(items),
        valid=by["valid"],
        excluded=by["excluded"],
        unverified=by["unverified"],
        invalid=by["invalid"],
        counted=sum(it.counted for it in items),
        claimed_ids=len(claimed),
        claimed_agree=sum(bool(it.claimed_ok) for it in claimed),
    )


def analyse(
    cfg: CensusConfig,
    task: Task,
    verifier: Verifier,
    responses: Sequence[tuple[int, str]],
    *,
    model: str,
    backend: str,
    failed: int = 0,
    stop: StopInfo | None = None,
) -> Analysis:
    """Run steps 2-5 on ``responses`` (``(query index, text)``) and build the result record."""
    timings: dict[str, float] = {}
    decoded, verdicts, timings["decode"], timings["verify"] = verify_items(task, verifier, responses)
    t0 = time.perf_counter()
    embeddings, diversity = None, None
    if task.kind == "diversity":
        verdicts, embeddings, diversity = _diversity(cfg, decoded, verdicts)
    items = cluster_items(decoded, verdicts, cfg.count_duplicates)
    counted = [it for it in items if it.counted]
    prev = _prevalence(counted, [q for q, _ in responses]) if counted else None
    timings["cluster"] = time.perf_counter() - t0
    notes: list[str] = []
    fields: dict[str, Any] = {"n_unseen": None, "n_total": None, "skr": None, "interval": None}
    fields.update(k=None, k_source="none", k_errors={}, curve=[], heldout=[])
    if prev is None:
        notes.append("no verified item: nothing to estimate (N_seen = 0)")
        timings.update(estimate=0.0, curve=0.0, heldout=0.0)
    else:
        t0 = time.perf_counter()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", StatsWarning)
            summary = summarize(
                prev,
                cfg.estimator,
                cfg.t,
                cfg.k,
                cfg.n_bootstrap,
                cfg.level,
                cfg.seed,
                candidates=cfg.k_candidates,
            )
        notes.extend(dict.fromkeys(str(w.message) for w in caught if issubclass(w.category, StatsWarning)))
        timings["estimate"] = time.perf_counter() - t0
        d = summary.to_dict()
        sel = summary.selection
        fields.update(
            n_unseen=summary.n_unseen,
            n_total=summary.n_total,
            skr=summary.skr,
            interval=summary.interval,
            interval_total=d["interval_total"],
            interval_skr=d["interval_skr"],
            k=summary.estimate.k,
            k_source=summary.k_source,
            k_errors={}
            if sel is None
            else {str(k): e for k, e in zip(sel.candidates, sel.nmse, strict=True)},
        )
        notes.extend(summary.notes)
        t0 = time.perf_counter()
        resamples = min(cfg.n_bootstrap, CURVE_RESAMPLES)
        fields["curve"] = curve(
            prev, cfg.estimator, cfg.t, summary.estimate.k, resamples, cfg.level, cfg.seed
        )
        timings["curve"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        fields["heldout"] = heldout_check(prev, cfg.estimator, summary.estimate.k, seed=cfg.seed)
        timings["heldout"] = time.perf_counter() - t0
    n_obs = prev.n_observations if prev is not None else 0
    result = CensusResult(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        task=task.name,
        kind=task.kind,
        prompt=task.prompt,
        model=model,
        backend=backend,
        criterion=cfg.criterion,
        parameters=cfg.model_dump(mode="json"),
        counts=_counts(items, len(responses), failed),
        prevalence=sorted(prev.table().items()) if prev is not None else [],
        n_queries=len(responses),
        n_observations=n_obs,
        n_seen=prev.n_seen if prev is not None else 0,
        level=cfg.level,
        t=cfg.t,
        estimator=cfg.estimator,
        top_items=_top(items, "valid", cfg.top, n_obs, counted_only=True),
        unverified_top=_top(
            items, "unverified", cfg.top, max(1, sum(i.status == "unverified" for i in items)), False
        ),
        examples=[text for _, text in responses[:5]],
        stop=stop,
        diversity=diversity,
        timings={k: round(v, 4) for k, v in timings.items()},
        notes=notes,
        **fields,
    )
    return Analysis(result, items, embeddings, prev)
