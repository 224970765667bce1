"""Run a census end to end: sample (resumable) → analyse → write the run directory.

Sampling goes through :func:`knowsum.models.sample_sync` and the response store, keyed by model,
parameters, prompt and sample index: rerunning the same command asks only for what is missing,
and an interrupted run resumes where it stopped. With a stop rule the census samples in batches of
``b`` queries and stops after the first batch that meets it, or when ``queries`` is reached:

- ``until_new_rate = EPS``: the estimator predicts fewer than ``EPS`` new verified items per further
  query (``Û(b/Q)/b`` for the next batch after ``Q`` queries; a direction the KnowSum slides leave
  open);
- ``until_coverage = C``: the sample coverage reaches ``C``, ``Ĉ = 1 − f1/n · (n−1)f1/((n−1)f1 + 2f2)``
  (Chao & Jost 2012; ``Q1/U`` and ``T`` responses under incidence counting), the estimated share of
  the model's output that the items seen make up.

The caller opens the backend and the response store (and closes them); :func:`prepare_census`
resolves the task and loads its knowledge base first, so a bad task or a missing KB fails before
any model is opened.

Run directory (:func:`knowsum.records.write_run_dir`): ``items.jsonl`` and, for diversity runs,
``embeddings.npy``, then ``plots/*.png`` and ``report.html``, and ``result.json`` last (its
presence marks a finished run).
"""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from knowsum.census._analyse import Analysis, analyse, count_flags, verify_items
from knowsum.census._config import CensusConfig
from knowsum.census._estimate import new_rate
from knowsum.census._tasks import Task, census_requests, resolve_task
from knowsum.census._verify import Verifier, make_verifier
from knowsum.census.record import CensusRecord, StopInfo
from knowsum.errors import InputError, KnowsumError
from knowsum.models import (
    Backend,
    Response,
    ResponseStore,
    UsageMeter,
    failed_requests,
    sample_sync,
)
from knowsum.records import (
    REPORT_NAME,
    FileBody,
    Run,
    claim_run_dir,
    default_run_dir,
    load_record,
    write_run_dir,
)
from knowsum.stats import Abundance, Incidence, Prevalence, sample_coverage

__all__ = [
    "CensusPlan",
    "CensusRun",
    "census_identity",
    "default_out",
    "prepare_census",
    "rewrite_result",
    "run_census",
    "run_name",
    "write_run",
]

Echo = Callable[[str], None]


class CensusRun(Run[CensusRecord]):
    """What a census wrote: its record, its run directory and its page."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class CensusPlan:
    """A census ready to sample (:func:`prepare_census`): its config, task and loaded verifier."""

    config: CensusConfig
    task: Task
    verifier: Verifier


def prepare_census(config: CensusConfig) -> CensusPlan:
    """Resolve the task and load its knowledge base, before any model is opened.

    Raises:
        UnknownNameError: an unknown task.
        ConfigError: bad options.
        KBNotInstalledError: the task's KB is missing (the message says the install command).
    """
    task = resolve_task(config)
    return CensusPlan(config, task, make_verifier(task, config.criterion, config.cutoff))


def run_name(config: CensusConfig, what: str) -> str:
    """``what`` followed by the settings that distinguish it from the default census of ``what``:
    ``diseases``, ``diseases-strict``, ``diseases-strict-incidence``, ``diseases-simple`` (prompt)."""
    marks = [
        config.criterion if config.criterion != "relaxed" else "",
        config.count if config.count != "mention" else "",
        config.prompt_variant if config.prompt_variant != "full" else "",
    ]
    return "-".join([what, *(m for m in marks if m)])


def default_out(config: CensusConfig, model_id: str) -> Path:
    """``census-runs/<task>[-<criterion>][-<count>][-simple]-<model>`` under the current directory: the plain
    ``census-runs/<task>-<model>`` for the default criterion (relaxed) and counting (mention)."""
    return default_run_dir("census", run_name(config, config.task), model_id)


def census_identity(config: CensusConfig, task: Task, model: str) -> dict[str, str]:
    """The identity of a census (:attr:`CensusRecord.IDENTITY`) of ``task`` by ``model``: a run
    directory holding a census with another identity is not written over
    (:func:`knowsum.records.claim_run_dir`). Each setting is the config's, but what the task
    resolves (its prompt, ``N_ans`` and token budget) as the task sends it."""
    return CensusRecord.identity_from(
        task.name, model, config, prompt=task.prompt, answers=task.answers, max_tokens=task.max_tokens
    )


def _pages(result: CensusRecord) -> Callable[[Path], list[Path]]:
    def pages(out_dir: Path) -> list[Path]:
        from knowsum.census.page import write_census_report

        return write_census_report(out_dir, result)

    return pages


def _items_file(analysis: Analysis) -> Callable[[IO[Any]], None]:
    def write(fh: IO[Any]) -> None:
        text = io.TextIOWrapper(fh, encoding="utf-8", newline="\n")
        try:
            analysis.write_jsonl(text)
            text.flush()
        finally:
            text.detach()

    return write


def write_run(analysis: Analysis, out_dir: Path, identity: dict[str, str] | None = None) -> CensusRun:
    """Write ``items.jsonl`` (and ``embeddings.npy``), the plots, ``report.html`` and last ``result.json``
    (with ``identity``, when given, recorded in it)."""
    if identity is not None:
        analysis.result.identity = identity
    files: dict[str, FileBody] = {"items.jsonl": _items_file(analysis)}
    vectors = analysis.embeddings
    if vectors is not None:
        files["embeddings.npy"] = lambda fh: np.save(fh, vectors, allow_pickle=False)
    write_run_dir(out_dir, analysis.result, files, pages=_pages(analysis.result))
    return CensusRun(analysis.result, out_dir, out_dir / REPORT_NAME)


def rewrite_result(result: CensusRecord, out_dir: Path) -> CensusRun:
    """Rewrite the plots, ``report.html`` and ``result.json`` of a finished run (a study added to it)."""
    write_run_dir(out_dir, result, pages=_pages(result), fresh=False)
    return CensusRun(result, out_dir, out_dir / REPORT_NAME)


def _texts(responses: Iterable[Response]) -> tuple[list[tuple[int, str]], int]:
    ok, failed = [], 0
    for r in responses:
        if r.ok:
            ok.append((r.request.sample_index, r.text))
        else:
            failed += 1
    ok.sort()
    return ok, failed


def _stop_value(cfg: CensusConfig, keys: list[str], n_ok: int, batch: int, k: int | None) -> float | None:
    """The stop rule's statistic on the sample so far: the sample coverage ``Ĉ`` (``until_coverage``)
    or the predicted new items per further query (``until_new_rate``); ``None`` before any item."""
    if not keys or n_ok == 0:
        return None
    counts = list(Counter(keys).values())
    if cfg.until_coverage is not None:  # a cluster counted once per response under incidence counting
        data = (
            Incidence.from_frequencies(counts, n_ok)
            if cfg.count == "incidence"
            else Abundance.from_counts(counts)
        )
        return sample_coverage(data).coverage
    return new_rate(Prevalence.from_counts(counts), n_ok, batch, k)


def _adaptive(
    cfg: CensusConfig,
    task: Task,
    verifier: Verifier,
    draw: Callable[[int, int], list[Response]],
    echo: Echo,
) -> tuple[list[Response], StopInfo]:
    by_coverage = cfg.until_coverage is not None
    threshold = float((cfg.until_coverage if by_coverage else cfg.until_new_rate) or 0.0)
    what = "sample coverage" if by_coverage else "predicted new verified items per query"
    batch = cfg.batch_queries or max(5, cfg.queries // 10)
    k = cfg.k if isinstance(cfg.k, int) else 8
    responses: list[Response] = []
    keys: list[str] = []
    history: list[tuple[int, float]] = []
    done = 0
    while done < cfg.queries:
        size = min(batch, cfg.queries - done)
        new = draw(done, size)
        responses.extend(new)
        done += size
        pairs, _ = _texts(new)
        decoded, verdicts, _, _ = verify_items(task, verifier, pairs)
        flags = count_flags(decoded, verdicts, cfg.count)
        keys.extend(str(v.key) for v, f in zip(verdicts, flags, strict=True) if f)
        value = _stop_value(cfg, keys, len(_texts(responses)[0]), batch, k)
        history.append((done, -1.0 if value is None else value))
        if value is None:
            rule = "the sample coverage" if by_coverage else "a new-item rate"
            echo(
                f"census: {done} queries, no verified item yet: nothing to estimate {rule} from, sampling on"
            )
            continue
        echo(f"census: {done} queries, {what}: {value:.3g}")
        if (value >= threshold) if by_coverage else (value < threshold):
            sign = ">=" if by_coverage else "<"
            msg = f"stopped after {done} queries: {what} {value:.3g} {sign} {threshold:g}"
            return responses, StopInfo(
                reason="coverage" if by_coverage else "rate",
                rule="coverage" if by_coverage else "new-rate",
                queries=done,
                threshold=threshold,
                history=history,
                message=msg,
            )
    goal = "the sample coverage reached" if by_coverage else "the new-item rate fell below"
    msg = f"reached the maximum of {done} queries before {goal} {threshold:g}"
    return responses, StopInfo(
        reason="max-queries",
        rule="coverage" if by_coverage else "new-rate",
        queries=done,
        threshold=threshold,
        history=history,
        message=msg,
    )


def run_census(
    config: CensusConfig,
    backend: Backend,
    *,
    store: ResponseStore,
    out: Path | None = None,
    progress: bool | None = None,
    echo: Echo | None = None,
    plan: CensusPlan | None = None,
    overwrite: bool = False,
) -> CensusRun:
    """Run the census ``config`` describes on ``backend`` and write its run directory.

    Args:
        config: The validated method settings.
        backend: The model that answers (the caller opens and closes it).
        store: The response store: what it holds is not asked again.
        out: The run directory (default :func:`default_out`).
        progress: Show a progress bar (``None``: when stderr is a terminal).
        echo: Called with one line per notable step (the CLI prints them to stderr).
        plan: ``prepare_census(config)``, when the caller checked the task and KB before opening
            the backend (the KB is then not loaded twice).
        overwrite: Empty ``out`` first when it holds another run (without it such a folder is
            refused before anything is asked: :func:`knowsum.records.claim_run_dir`).

    Raises:
        InputError: ``out`` holds another run (a census of another task, model or settings, or
            another instrument's) and ``overwrite`` is not set.
        UnknownNameError: an unknown task.
        ConfigError: bad options.
        KBNotInstalledError: the task's KB is missing (the message says the install command).
        BackendError: the model cannot be asked, or some queries failed for good (no figure is
            computed from part of the queries: the run folder is left unfinished, and the rerun
            asks only the failed ones).
        StoreError: the response store cannot be read or written.
    """
    say = echo or (lambda _m: None)
    if plan is None:
        plan = prepare_census(config)
    elif plan.config != config:
        raise ValueError("run_census: the plan was prepared for another configuration")
    task, verifier = plan.task, plan.verifier
    identity = census_identity(config, task, backend.model_id)
    out_dir = claim_run_dir(
        out or default_out(config, backend.model_id), "census", identity, overwrite=overwrite
    )
    if not overwrite:
        _no_fewer_queries(out_dir, config)
    meter = UsageMeter(backend, store)

    def draw(start: int, n: int) -> list[Response]:
        reqs = census_requests(config, task, start=start, n=n)
        got = sample_sync(
            meter.backend, reqs, store=store, progress=progress, description=f"census {config.task}"
        )
        failed_requests(backend, sum(not r.ok for r in got), len(reqs))  # no figure from part of them
        return got

    say(f"census: {task.name} on {backend.model_id}: {config.queries} queries × {task.answers} answers")
    stop = None
    if config.until_new_rate is not None or config.until_coverage is not None:
        responses, stop = _adaptive(config, task, verifier, draw, say)
        say(f"census: {stop.message}")
    else:
        responses = draw(0, config.queries)
    pairs, failed = _texts(responses)
    analysis = analyse(
        config, task, verifier, pairs, model=backend.model_id, backend=backend.kind, failed=failed, stop=stop
    )
    analysis.result.usage = meter.usage()
    return write_run(analysis, out_dir, identity)


def _no_fewer_queries(out_dir: Path, config: CensusConfig) -> None:
    """Refuse to rewrite ``out_dir``'s census of more queries with one of fewer (the same run
    otherwise: ``queries`` is not part of its identity, so that a larger ``--queries`` extends it).

    Raises:
        InputError: the folder's census holds more queries than ``config`` asks (a stop rule's
            ``--queries`` is a cap, not a size: such a run is never refused here).
    """
    if config.until_new_rate is not None or config.until_coverage is not None:
        return
    try:
        held = load_record(out_dir, CensusRecord).n_queries
    except KnowsumError:
        return  # no census record here yet (claim_run_dir judged whatever else the folder holds)
    if held > config.queries:
        raise InputError(
            f"{out_dir} holds a census of {held:,} queries; --queries {config.queries:,} would replace it "
            f"with a smaller one: give --queries {held:,} or more to resume or extend it, another --out, "
            "or --overwrite to replace it"
        )
