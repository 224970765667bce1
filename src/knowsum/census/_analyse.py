"""From responses to a :class:`CensusRecord`: decode → verify → cluster → prevalence → estimate.

This is the part after sampling (KnowSum Algorithm 1, steps 2-5); :func:`analyse` takes plain
``(query index, text)`` pairs so it runs on any source of responses, and records the seconds each
stage took (``timings``) for the benchmark.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

import numpy as np
import scipy.sparse as sp

from knowsum.caveats import Caveat
from knowsum.census import _diversity as dv
from knowsum.census._config import CensusConfig, CountUnit
from knowsum.census._decode import DecodedItem, decode
from knowsum.census._estimate import curve, falling_curve, heldout_check, t_grid
from knowsum.census._horizon import horizon_resamples, too_small_horizon, trust_horizon
from knowsum.census._own_t import own_t_caveat, own_t_record
from knowsum.census._richness import richness_info, sample_of
from knowsum.census._tasks import Task
from knowsum.census._verify import KBVerifier, Verdict, Verifier, criterion_words
from knowsum.census._words import matched_words
from knowsum.census.record import (
    CensusRecord,
    Counts,
    DiversityInfo,
    ItemRecord,
    StopInfo,
    TopItem,
)
from knowsum.records import caveat_notes
from knowsum.stats import Prevalence, summarize
from knowsum.stats.predict_unseen import PredictionInterval
from knowsum.stats.summary import collect_warnings

__all__ = ["Analysis", "analyse", "count_flags", "prevalence_of", "verify_items"]


@dataclass
class Analysis:
    """The outcome of :func:`analyse`: the result record, and every item with its verdict.

    Items are kept as parallel lists (``decoded``, ``verdicts``, ``counted``) and turned into
    :class:`ItemRecord` rows only when iterated (:meth:`items`), as there may be millions.
    """

    result: CensusRecord
    decoded: list[DecodedItem]
    verdicts: list[Verdict]
    counted: list[bool]
    embeddings: np.ndarray[Any, Any] | None = None
    prevalence: Prevalence | None = None

    def write_jsonl(self, fh: IO[str]) -> int:
        """Write ``items.jsonl`` (same lines as ``item.to_json()`` for :meth:`items`); returns the count.

        The JSON of the repeated part (text, claimed ID, verdict) is built once per distinct
        combination, which makes writing millions of lines fast.
        """
        cache: dict[tuple[str, str | None, int], str] = {}
        n = 0
        for d, v, c in zip(self.decoded, self.verdicts, self.counted, strict=True):
            ck = (d.text, d.claimed_id, id(v))
            middle = cache.get(ck)
            if middle is None:
                full = ItemRecord(
                    0, 0, d.text, d.claimed_id, v.status, v.key, v.name, v.score, v.stage, v.claimed_ok, False
                ).to_json()
                middle = cache[ck] = full[full.index(', "text"') : full.rindex(', "counted"')]
            flag = "true" if c else "false"
            fh.write(f'{{"query": {d.query}, "position": {d.position}{middle}, "counted": {flag}}}\n')
            n += 1
        return n

    def items(self) -> Iterator[ItemRecord]:
        """Every decoded item with its verdict, in response order."""
        for d, v, c in zip(self.decoded, self.verdicts, self.counted, strict=True):
            yield ItemRecord(
                d.query,
                d.position,
                d.text,
                d.claimed_id,
                v.status,
                v.key,
                v.name,
                v.score,
                v.stage,
                v.claimed_ok,
                c,
            )


def verify_items(
    task: Task,
    verifier: Verifier,
    responses: Sequence[tuple[int, str]],
    decoded: Sequence[DecodedItem] | None = None,
) -> tuple[list[DecodedItem], list[Verdict], float, float]:
    """Decode every response (unless ``decoded`` gives the items already) and verify every item in
    one batch; returns the two stage times."""
    t0 = time.perf_counter()
    if decoded is None:
        items = [it for q, text in responses for it in decode(text, q, task.decoder, task.separator)]
    else:
        items = list(decoded)
    t1 = time.perf_counter()
    verdicts = verifier.verify([d.text for d in items], [d.claimed_id for d in items])
    return items, verdicts, t1 - t0, time.perf_counter() - t1


def count_flags(
    decoded: Sequence[DecodedItem], verdicts: Sequence[Verdict], count: CountUnit = "mention"
) -> list[bool]:
    """Which items are counted: every valid mention (``count="mention"``, the paper's App. B.3 rule:
    a DOID is incremented each time it is generated), or with ``count="incidence"`` only the first
    mention of a cluster within its response (items of one response are contiguous)."""
    count_duplicates = count == "mention"
    flags = [False] * len(decoded)
    current, seen = -1, set[str | None]()
    for i, (d, v) in enumerate(zip(decoded, verdicts, strict=True)):
        if v.status != "valid":
            continue
        if d.query != current:
            current, seen = d.query, set()
        if count_duplicates or v.key not in seen:
            flags[i] = True
            seen.add(v.key)
    return flags


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


def prevalence_of(keys: Sequence[str], rows: Sequence[int], n_queries: int) -> Prevalence:
    """Counts by cluster, with the query × cluster matrix over *all* ``n_queries`` responses
    (empty ones too, so held-out splits and the bootstrap resample every query that was asked)."""
    codes: dict[str, int] = {}
    cols = np.fromiter((codes.setdefault(k, len(codes)) for k in keys), dtype=np.int64, count=len(keys))
    matrix = sp.csr_matrix(
        (np.ones(len(keys), dtype=np.int64), (np.asarray(rows, dtype=np.int64), cols)),
        shape=(n_queries, len(codes)),
    )
    matrix.sum_duplicates()
    counts = np.bincount(cols, minlength=len(codes)).astype(np.int64)
    return Prevalence(counts, tuple(codes), matrix)


def _top_counts(counts: Counter[str], names: dict[str, str], n: int, total: int) -> list[TopItem]:
    denom = max(total, 1)
    return [
        TopItem(key=k, name=names.get(k, k), count=c, fraction=c / denom) for k, c in counts.most_common(n)
    ]


def _counts(verdicts: Sequence[Verdict], counted: int, responses: int, failed: int) -> Counts:
    by = Counter(v.status for v in verdicts)
    claimed = Counter(v.claimed_ok for v in verdicts if v.claimed_ok is not None)
    return Counts(
        responses=responses,
        failed_responses=failed,
        items=len(verdicts),
        valid=by["valid"],
        excluded=by["excluded"],
        unverified=by["unverified"],
        invalid=by["invalid"],
        counted=counted,
        claimed_ids=claimed[True] + claimed[False],
        claimed_agree=claimed[True],
    )


def _prediction_fields(pred: PredictionInterval | None) -> dict[str, Any]:
    """The record's prediction-interval fields (:mod:`knowsum.stats.predict_unseen`)."""
    if pred is None:
        return {}
    return {
        "prediction_interval": pred.unseen,
        "prediction_interval_total": pred.total,
        "prediction_reason": pred.reason,
        "prediction_method": pred.method,
    }


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
    decoded: Sequence[DecodedItem] | None = None,
) -> Analysis:
    """Run steps 2-5 on ``responses`` (``(query index, text)``) and build the result record.

    ``decoded`` gives the items directly (bring-your-own items, :mod:`knowsum.census._score`); the
    responses then only say which queries were asked and supply the example texts.
    """
    timings: dict[str, float] = {}
    decoded, verdicts, timings["decode"], timings["verify"] = verify_items(task, verifier, responses, decoded)
    t0 = time.perf_counter()
    embeddings, diversity = None, None
    if task.kind == "diversity":
        verdicts, embeddings, diversity = _diversity(cfg, decoded, verdicts)
    flags = count_flags(decoded, verdicts, cfg.count)
    row_of = {q: i for i, (q, _) in enumerate(responses)}
    picked = [i for i, f in enumerate(flags) if f]
    keys = [str(verdicts[i].key) for i in picked]
    prev = prevalence_of(keys, [row_of[decoded[i].query] for i in picked], len(responses)) if picked else None
    timings["cluster"] = time.perf_counter() - t0
    notes: list[str] = []
    caveats: list[Caveat] = []
    fields: dict[str, Any] = {"n_unseen": None, "n_unseen_raw": None, "n_total": None, "skr": None}
    fields["interval"] = None
    fields.update(k=None, k_source="none", k_errors={}, curve=[], heldout=[])
    if prev is None:
        notes.append("no verified item: nothing to estimate (N_seen = 0)")
        fields["horizon"] = too_small_horizon(cfg.estimator, cfg.t)
        timings.update(estimate=0.0, curve=0.0, heldout=0.0)
    else:
        t0 = time.perf_counter()
        settings = cfg.model_dump(include={"t", "k", "n_bootstrap", "level", "seed", "interval"})
        with collect_warnings() as caught:  # the run's estimator, k candidates and interval settings
            # the curve's t on the headline's resamples: drawn once, its band at t is the headline's
            grid = t_grid(cfg.t, estimator=cfg.estimator)
            summary = summarize(prev, cfg.estimator, **settings, candidates=cfg.k_candidates, curve_ts=grid)
        notes.extend(dict.fromkeys(caught))
        timings["estimate"] = time.perf_counter() - t0
        d = summary.to_dict()
        sel = summary.selection
        # an interval that cannot be a 95 % interval (every resample alike, a log-normal interval around
        # a clamped Û = 0, no singletons behind Û > 0) is not shown: "n/a: REASON" on every surface
        reason = summary.interval_reason
        caveats.extend(summary.caveats)
        fields.update(
            n_unseen=summary.n_unseen,
            n_unseen_raw=summary.n_unseen_raw,
            n_total=summary.n_total,
            skr=summary.skr,
            # a bootstrap that cannot vary gives [x, x]: no interval is shown, and the reason instead
            interval=None if reason else summary.interval,
            interval_total=None if reason else d["interval_total"],
            interval_skr=None if reason else d["interval_skr"],
            interval_reason=reason,
            **_prediction_fields(summary.prediction),
            k=summary.estimate.k,
            k_source=summary.k_source,
            k_errors={}
            if sel is None
            else {str(k): e for k, e in zip(sel.candidates, sel.nmse, strict=True)},
        )
        notes.extend(summary.notes)
        t0 = time.perf_counter()
        fields["curve"] = curve(  # the headline's resamples: its band at t is the headline interval
            prev,
            cfg.estimator,
            cfg.t,
            summary.estimate.k,
            cfg.n_bootstrap,
            cfg.level,
            cfg.seed,
            method=cfg.interval,
            boots=summary.curve or None,
        )
        timings["curve"] = time.perf_counter() - t0
        falls = falling_curve(fields["curve"], cfg.t)
        caveats.extend([falls] if falls is not None else [])
        t0 = time.perf_counter()
        fields["heldout"] = heldout_check(prev, cfg.estimator, summary.estimate.k, seed=cfg.seed)
        timings["heldout"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        fields["richness"] = richness_info(
            sample_of(prev, cfg.count), n_bootstrap=cfg.n_bootstrap, level=cfg.level, seed=cfg.seed
        )
        timings["richness"] = time.perf_counter() - t0
        notes.extend(fields["richness"].notes)
        caveats.extend(fields["richness"].caveats)
        t0 = time.perf_counter()
        fields["horizon"] = trust_horizon(
            prev,
            cfg.estimator,
            summary.estimate.k,
            cfg.t,
            seed=cfg.seed,
            resamples=horizon_resamples(cfg.n_bootstrap),
            unseen=summary.estimate.estimate,
        )
        timings["horizon"] = time.perf_counter() - t0
        if summary.own_t is not None:  # the caveat beside N̂_tot: the simulated error at the census's own t
            check = own_t_record(summary.own_t)
            fields["own_t_check"] = check
            caveats.append(own_t_caveat(check))
            timings["own_t"] = summary.own_t.seconds
        fields["own_t_reason"] = summary.own_t_reason
    n_obs = prev.n_observations if prev is not None else 0
    unique = {id(v): v for v in verdicts}.values()
    names = {str(v.key): v.name or "" for v in unique if v.key is not None}
    unverified = [str(v.key) for v in verdicts if v.status == "unverified"]
    words = criterion_words(task, cfg.criterion) if task.kind == "theorems" else ()
    per_word = Counter(w for key in set(keys) for w in matched_words(names.get(key, key), words))
    result = CensusRecord(
        task=task.name,
        task_kind=task.kind,
        prompt=task.prompt,
        model=model,
        backend=backend,
        kb_releases=verifier.kb_releases(),
        criterion=cfg.criterion,
        config=cfg.model_dump(mode="json"),
        counts=_counts(verdicts, len(picked), len(responses), failed),
        prevalence=sorted(prev.table().items()) if prev is not None else [],
        n_queries=len(responses),
        n_observations=n_obs,
        n_seen=prev.n_seen if prev is not None else 0,
        level=cfg.level,
        interval_method=cfg.interval,
        counting=cfg.count,
        t=cfg.t,
        estimator=cfg.estimator,
        top_items=_top_counts(Counter(keys), names, cfg.top, n_obs),
        concept_words={w: per_word[w] for w in words},
        kb_categories=(
            verifier.category_record()
            if task.kind == "diseases" and isinstance(verifier, KBVerifier)
            else None
        ),
        unverified_top=_top_counts(Counter(unverified), names, cfg.top, len(unverified)),
        examples=[text for _, text in responses[:5]],
        stop=stop,
        diversity=diversity,
        timings={k: round(v, 4) for k, v in timings.items()},
        notes=notes,
        caveats=caveat_notes(caveats),
        **fields,
    )
    return Analysis(result, list(decoded), verdicts, flags, embeddings, prev)
