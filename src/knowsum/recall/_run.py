"""Run the recall probe end to end: select concepts, ask the model, judge, score, invariance.

Data flow::

    config ─► universe (+ popularity buckets) ─► selection ─► prompts (§4.2)
           ─► models.sample_sync (store: resumable) ─► extract ID ─► judge ─► summarize
           ─► PI-1/2/3 (optional) ─► RecallRecord + PredictionRecords
           ─► run directory (predictions.jsonl, plots/, report.html, result.json last)
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from knowsum.errors import ConfigError, SourceError
from knowsum.kb import Ontology, load_ontology
from knowsum.models import Backend, GenerationParams, Request, ResponseStore, UsageMeter, sample_texts
from knowsum.recall._concepts import Concept, LabelIndex, select, universe, with_buckets
from knowsum.recall._config import RecallConfig
from knowsum.recall._extract import IdExtractor
from knowsum.recall._invariance import invariance_requests, summarize_invariance
from knowsum.recall._outputs import RecallRun, default_out, write_run
from knowsum.recall._paper import Study
from knowsum.recall._popularity import (
    Buckets,
    coverage_note,
    known_popularity,
    load_popularity_source,
    resolve_source,
)
from knowsum.recall._score import Judge, Scoring, score
from knowsum.recall._templates import completion_prefix, render_prompt
from knowsum.recall.record import InvarianceSummary, PredictionRecord, RecallRecord
from knowsum.records import claim_run_dir

__all__ = ["ask", "prepare", "probe", "recall_requests", "run_identity", "run_recall"]


def recall_requests(config: RecallConfig, concepts: Sequence[Concept]) -> list[Request]:
    """One request per concept: its label in the KB's prompt (Bombieri et al. §4.1), at the config's
    temperature, token budget and seed — what :func:`run_recall` asks first."""
    params = GenerationParams(temperature=config.temperature, max_tokens=config.tokens, seed=config.seed)
    return [
        Request(prompt=render_prompt(config.kb, c.label, config.api, template=config.template), params=params)
        for c in concepts
    ]


def prepare(
    config: RecallConfig, ontology: Ontology
) -> tuple[list[Concept], Buckets | None, str, dict[str, str]]:
    """The concepts to probe, the popularity buckets of the universe, the popularity source name,
    and the universe's ID → label (the study of the paper's rules).

    Raises:
        ConfigError: a popularity source that covers none of the eligible concepts
            (:func:`~knowsum.recall._popularity.known_popularity`).
    """
    plain = universe(config.kb, ontology)
    source = resolve_source(config.kb, config.popularity)
    try:
        pop = load_popularity_source(config.kb, source, {c.id for c in plain})
    except SourceError:
        if config.popularity != "auto":
            raise
        source, pop = "none", None  # "auto" without a web table (a broken install): no popularity analysis
    buckets = None
    if pop is not None:
        buckets = Buckets.build(
            known_popularity(config.kb, source, pop, (c.id for c in plain)), config.n_buckets
        )
    concepts = with_buckets(plain, buckets)
    chosen = select(concepts, config.select, n=config.sample, per_bucket=config.per_bucket, seed=config.seed)
    return chosen, buckets, source, {c.id: c.label for c in plain}


def ask(
    backend: Backend,
    requests: Sequence[Request],
    store: ResponseStore | None,
    progress: bool | None,
    description: str,
) -> list[str]:
    """Texts answering ``requests`` (same order); stored answers are reused.

    Raises:
        BackendError: some requests failed for good (they are retried by the next run).
    """
    return sample_texts(backend, requests, store, progress, description)


def run_recall(
    config: RecallConfig,
    backend: Backend,
    *,
    store: ResponseStore | None,
    out: Path | None = None,
    progress: bool | None = None,
    overwrite: bool = False,
) -> RecallRun:
    """Probe ``backend`` on ``config.kb``, score it and write the run directory.

    Args:
        config: The run configuration.
        backend: The model (its ``api`` must match ``config.api`` for local/OpenAI backends).
        store: Response store; a rerun with the same store asks only what is missing (``None``:
            no store, every answer is asked).
        out: Run directory (default ``recall-runs/<kb>-<model>`` under the current directory):
            ``predictions.jsonl``, ``plots/*.png``, ``report.html``, ``result.json`` (last).
        progress: Progress bars on stderr (``None``: when stderr is a terminal).
        overwrite: Empty ``out`` first when it holds another run (else such a run is refused
            before anything is asked: :func:`knowsum.records.claim_run_dir`).

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set.
        KBNotInstalledError: the KB is not installed.
        ConfigError: invalid combination (PI-3 with a custom template, popularity problems…).
        BackendError: requests that failed for good (nothing is written).
    """
    identity = run_identity(config, backend.model_id)
    out_dir = claim_run_dir(
        out or default_out(config.kb, backend.model_id), "recall", identity, overwrite=overwrite
    )
    meter = UsageMeter(backend, store)
    result, records = probe(config, meter.backend, store=store, progress=progress)
    result = result.model_copy(update={"usage": meter.usage()})
    return write_run(out_dir, result.model_copy(update={"identity": identity}), records)


def run_identity(config: RecallConfig, model_id: str) -> dict[str, str]:
    """What makes a recall run of ``config`` on ``model_id`` another run (``RecallRecord.IDENTITY``):
    the KB, the prompt and sampling, the selection, the popularity buckets and the judging rule."""
    selection = {
        "all": "all",
        "sample": f"sample {config.sample}",
        "stratified": f"{config.per_bucket} per bucket",
    }
    return RecallRecord.identity_from(
        config.kb, model_id, config, selection=selection[config.select], polysemy=config.use_polysemy
    )


def probe(
    config: RecallConfig,
    backend: Backend,
    *,
    store: ResponseStore | None,
    progress: bool | None = None,
) -> tuple[RecallRecord, list[PredictionRecord]]:
    """The record and the judged predictions of a run, nothing written (see :func:`run_recall`)."""
    if "pi3" in config.invariance and config.template is not None:
        raise ConfigError("PI-3 translates the shipped prompts; it cannot be combined with a custom template")
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ontology = load_ontology(config.kb)
    extractor = IdExtractor(config.kb)
    concepts, buckets, source, study_labels = prepare(config, ontology)
    if not concepts:
        raise ConfigError(f"no {config.kb} concept selected")
    index = LabelIndex.of(ontology) if config.use_polysemy else None
    judge = Judge(ontology)
    study = Study.of(config.kb, judge.names, study_labels)
    timings["prepare"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    asked = recall_requests(config, concepts)
    prompts = [q.prompt or "" for q in asked]
    texts = ask(backend, asked, store, progress, "recall")
    timings["generate"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    prefix = completion_prefix(config.kb) if config.api == "completions" else ""

    def accepted(c: Concept) -> frozenset[str]:
        return index.ids(c.label) if index is not None else frozenset()

    records = [
        judge(c, text, extractor.extract(text, prefix), accepted(c), prompt)
        for c, text, prompt in zip(concepts, texts, prompts, strict=True)
    ]
    scores = score(
        records, buckets, study, Scoring(source, config.top_k, config.n_perm, config.seed, ontology.resolve)
    )
    timings["score"] = time.perf_counter() - t0

    summaries: list[InvarianceSummary] = []
    answers_by_method: dict[str, list[list[str | None]]] = {}
    for method in config.invariance:
        t0 = time.perf_counter()
        variants, per_concept = invariance_requests(config, method, concepts)
        flat = [r for reqs in per_concept for r in reqs]
        got = ask(backend, flat, store, progress, f"recall {method}")
        m = len(variants)
        answers = [
            [extractor.extract(t, prefix) for t in got[i * m : (i + 1) * m]] for i in range(len(concepts))
        ]
        correct = [
            [a is not None and (a == c.id or a in accepted(c)) for a in ans]
            for c, ans in zip(concepts, answers, strict=True)
        ]
        answers_by_method[method] = answers
        summaries.append(
            summarize_invariance(
                method, variants, concepts, answers, correct, n_perm=config.n_perm, seed=config.seed
            )
        )
        timings[method] = time.perf_counter() - t0
    if answers_by_method:
        records = [
            r.model_copy(update={"answers": {m: a[i] for m, a in answers_by_method.items()}})
            for i, r in enumerate(records)
        ]
    release = ontology.meta.get("release", "")
    covered = sum(c.bucket is not None for c in concepts)
    note = coverage_note(source, covered, len(concepts), "probed") if buckets is not None else None
    result = RecallRecord(
        kb=config.kb,
        kb_release=release,
        kb_releases={config.kb: release},
        model=backend.model_id,
        backend=backend.kind,
        api=config.api,
        config={**config.model_dump(mode="json"), "polysemy": config.use_polysemy},  # the effective rule
        scores=scores,
        invariance=summaries,
        timings=timings,
        notes=[note] if note else [],
    )
    return result, records
