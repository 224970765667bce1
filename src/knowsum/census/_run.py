"""Run a census end to end: sample (resumable) → analyse → write the run directory.

Sampling goes through :func:`knowsum.models.sample_sync` and the response store, keyed by model,
parameters, prompt and sample index: rerunning the same command asks only for what is missing,
and an interrupted run resumes where it stopped. With ``until_new_rate = EPS`` the census samples
in batches and stops once the estimator predicts fewer than ``EPS`` new verified items per further
query (``Û(b/Q)/b`` for the next batch of ``b`` queries after ``Q``; a direction the KnowSum
slides leave open), or when ``queries`` is reached.

The caller opens the backend and the response store (and closes them); :func:`prepare_census`
resolves the task and loads its knowledge base first, so a bad task or a missing KB fails before
any model is opened.

Run directory (:func:`knowsum.records.write_run_dir`): ``items.jsonl`` and, for diversity runs,
``embeddings.npy``, then ``plots/*.png`` and ``report.html``, and ``result.json`` last (its
presence marks a finished run).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from knowsum.census._analyse import Analysis, analyse, count_flags, verify_items
from knowsum.census._config import CensusConfig
from knowsum.census._estimate import new_rate
from knowsum.census._tasks import Task, resolve_task
from knowsum.census._verify import Verifier, make_verifier
from knowsum.models import (
    Backend,
    GenerationParams,
    Response,
    ResponseStore,
    UsageMeter,
    make_requests,
    sample_sync,
)
from knowsum.records import REPORT_NAME, FileBody, Run, default_run_dir, write_run_dir
from knowsum.records.census import CensusResult, StopInfo

__all__ = [
    "CensusPlan",
    "CensusRun",
    "default_out",
    "prepare_census",
    "rewrite_result",
    "run_census",
    "write_run",
]

Echo = Callable[[str], None]


class CensusRun(Run[CensusResult]):
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
        UnknownNameError, ConfigError: bad task or options. KBNotInstalledError: the task's KB is
        missing (says the install command).
    """
    task = resolve_task(config)
    return CensusPlan(config, task, make_verifier(task, config.criterion, config.cutoff))


def default_out(config: CensusConfig, model_id: str) -> Path:
    """``census-runs/<task>-<model>`` under the current directory."""
    return default_run_dir("census", config.task, model_id)


def _pages(result: CensusResult) -> Callable[[Path], list[Path]]:
    def pages(out_dir: Path) -> list[Path]:
        from knowsum.report.census import write_census_report

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


def write_run(analysis: Analysis, out_dir: Path) -> CensusRun:
    """Write ``items.jsonl`` (and ``embeddings.npy``), the plots, ``report.html`` and last ``result.json``."""
    files: dict[str, FileBody] = {"items.jsonl": _items_file(analysis)}
    vectors = analysis.embeddings
    if vectors is not None:
        files["embeddings.npy"] = lambda fh: np.save(fh, vectors, allow_pickle=False)
    write_run_dir(out_dir, analysis.result, files, pages=_pages(analysis.result))
    return CensusRun(analysis.result, out_dir, out_dir / REPORT_NAME)


def rewrite_result(result: CensusResult, out_dir: Path) -> CensusRun:
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


def _adaptive(
    cfg: CensusConfig,
    task: Task,
    verifier: Verifier,
    draw: Callable[[int, int], list[Response]],
    echo: Echo,
) -> tuple[list[Response], StopInfo]:
    eps = float(cfg.until_new_rate or 0.0)
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
        n_ok = len(_texts(responses)[0])
        if not keys or n_ok == 0:
            rate = float("inf")
        else:
            from knowsum.stats import Prevalence

            rate = new_rate(Prevalence.from_items(keys), n_ok, batch, k)
        history.append((done, rate if np.isfinite(rate) else -1.0))
        echo(f"census: {done} queries, predicted new verified items per query: {rate:.3g}")
        if rate < eps:
            msg = f"stopped after {done} queries: predicted {rate:.3g} new items per query < {eps:g}"
            return responses, StopInfo(
                reason="rate", queries=done, threshold=eps, history=history, message=msg
            )
    msg = f"reached the maximum of {done} queries before the new-item rate fell below {eps:g}"
    return responses, StopInfo(
        reason="max-queries", queries=done, threshold=eps, history=history, message=msg
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

    Raises:
        UnknownNameError, ConfigError: bad task or options. KBNotInstalledError: the task's KB is
        missing (says the install command). BackendError, StoreError.
    """
    say = echo or (lambda _m: None)
    if plan is None:
        plan = prepare_census(config)
    elif plan.config != config:
        raise ValueError("run_census: the plan was prepared for another configuration")
    task, verifier = plan.task, plan.verifier
    params = GenerationParams(
        temperature=config.temperature, top_p=config.top_p, max_tokens=task.max_tokens, seed=config.seed
    )
    out_dir = out or default_out(config, backend.model_id)
    meter = UsageMeter(backend, store)

    def draw(start: int, n: int) -> list[Response]:
        reqs = make_requests([task.prompt], params, n=n, start=start)
        return sample_sync(
            meter.backend, reqs, store=store, progress=progress, description=f"census {config.task}"
        )

    say(f"census: {task.name} on {backend.model_id}: {config.queries} queries × {task.answers} answers")
    stop = None
    if config.until_new_rate is not None:
        responses, stop = _adaptive(config, task, verifier, draw, say)
        say(f"census: {stop.message}")
    else:
        responses = draw(0, config.queries)
    pairs, failed = _texts(responses)
    analysis = analyse(
        config, task, verifier, pairs, model=backend.model_id, backend=backend.kind, failed=failed, stop=stop
    )
    analysis.result.usage = meter.usage()
    return write_run(analysis, out_dir)
