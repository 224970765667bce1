"""Run a census end to end: sample (resumable) → analyse → write the run directory.

Sampling goes through :func:`knowsum.models.sample_sync` and the response store, keyed by model,
parameters, prompt and sample index: rerunning the same command asks only for what is missing,
and an interrupted run resumes where it stopped. With ``until_new_rate = EPS`` the census samples
in batches and stops once the estimator predicts fewer than ``EPS`` new verified items per further
query (``Û(b/Q)/b`` for the next batch of ``b`` queries after ``Q``; a direction the KnowSum
slides leave open), or when ``queries`` is reached.

Run directory: ``result.json`` (written last: its presence marks a finished run),
``items.jsonl``, ``plots/*.png``, ``report.html`` and, for diversity runs, ``embeddings.npy``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from knowsum._util import atomic_write
from knowsum.census._analyse import Analysis, analyse, count_flags, verify_items
from knowsum.census._config import CensusConfig
from knowsum.census._estimate import new_rate
from knowsum.census._result import CensusResult, StopInfo
from knowsum.census._tasks import Task, resolve_task
from knowsum.census._verify import Verifier, make_verifier
from knowsum.models import (
    Backend,
    GenerationParams,
    Response,
    ResponseStore,
    make_requests,
    open_backend,
    sample_sync,
)

__all__ = ["RunOutcome", "default_out", "open_for", "rewrite_result", "run_census", "write_run"]

Echo = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    """What :func:`run_census` produced: the analysis and where it was written."""

    analysis: Analysis
    out_dir: Path
    report: Path


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "run"


def default_out(cfg: CensusConfig, model_id: str) -> Path:
    """``census-runs/<task>-<model>`` under the current directory."""
    return (
        Path("census-runs")
        / f"{_slug(cfg.task)}-{_slug(Path(model_id).stem if '/' in model_id else model_id)}"
    )


def open_for(cfg: CensusConfig) -> Backend:
    """The backend of ``cfg``; HTTP options go only to an OpenAI-compatible endpoint."""
    if cfg.base_url or (cfg.model or "").startswith("openai:"):
        return open_backend(
            cfg.model,
            base_url=cfg.base_url,
            concurrency=cfg.concurrency,
            timeout=cfg.timeout,
            max_retries=cfg.retries,
            server_kind=cfg.server_kind,
        )
    return open_backend(cfg.model)


def write_run(analysis: Analysis, out_dir: Path) -> Path:
    """Write ``items.jsonl``, plots, ``report.html`` and finally ``result.json``; return the report path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "result.json").unlink(missing_ok=True)  # absent until this run is completely written
    with atomic_write(out_dir / "items.jsonl") as fh:
        analysis.write_jsonl(fh)
    if analysis.embeddings is not None:
        with atomic_write(out_dir / "embeddings.npy", "wb") as fh:
            np.save(fh, analysis.embeddings, allow_pickle=False)
    return rewrite_result(analysis.result, out_dir)


def rewrite_result(result: CensusResult, out_dir: Path) -> Path:
    """Write the plots, ``report.html`` and then ``result.json`` of a run (also to update an existing
    run, e.g. after :func:`knowsum.census._sensitivity.add_sensitivity`); returns the report path."""
    from knowsum.report.census import write_report

    report = write_report(result, out_dir)
    with atomic_write(out_dir / "result.json") as fh:
        fh.write(result.model_dump_json(indent=2) + "\n")
    return report


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
    cfg: CensusConfig,
    *,
    backend: Backend | None = None,
    progress: bool | None = None,
    echo: Echo | None = None,
) -> RunOutcome:
    """Run the census described by ``cfg`` and write its run directory.

    Args:
        cfg: The validated configuration.
        backend: A backend to use instead of opening ``cfg.model`` (tests, mock runs).
        progress: Show a progress bar (``None``: when stderr is a terminal).
        echo: Called with one line per notable step (the CLI prints them to stderr).

    Raises:
        UnknownNameError, ConfigError: bad task or options. KBNotInstalledError: the task's KB is
        missing (says the install command). ModelNotInstalledError, BackendError, StoreError.
    """
    say = echo or (lambda _m: None)
    task = resolve_task(cfg)
    verifier = make_verifier(task, cfg.criterion, cfg.cutoff)  # fail fast if the KB is missing
    own = backend is None
    be = backend if backend is not None else open_for(cfg)
    params = GenerationParams(
        temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=task.max_tokens, seed=cfg.seed
    )
    out_dir = cfg.out or default_out(cfg, be.model_id)
    stop = None
    try:
        with ResponseStore(cfg.store) as store:

            def draw(start: int, n: int) -> list[Response]:
                reqs = make_requests([task.prompt], params, n=n, start=start)
                return sample_sync(be, reqs, store=store, progress=progress, description=f"census {cfg.task}")

            say(f"census: {task.name} on {be.model_id}: {cfg.queries} queries × {task.answers} answers")
            if cfg.until_new_rate is not None:
                responses, stop = _adaptive(cfg, task, verifier, draw, say)
                say(f"census: {stop.message}")
            else:
                responses = draw(0, cfg.queries)
    finally:
        if own:
            import asyncio

            asyncio.run(be.aclose())
    pairs, failed = _texts(responses)
    analysis = analyse(
        cfg, task, verifier, pairs, model=be.model_id, backend=be.kind, failed=failed, stop=stop
    )
    report = write_run(analysis, out_dir)
    return RunOutcome(analysis, out_dir, report)
