"""Inspect logs read back: an ``inspect eval knowsum/…`` run becomes an ordinary knowsum run directory.

``knowsum census score --inspect-log LOG.eval`` (and ``recall score``, ``genebench score``) reads the
log's task (its ``knowsum`` metadata: instrument and configuration) and every sample's reply, and
runs the instrument's own entry point on a :class:`~knowsum.harness.ReplayBackend` serving those
replies: the run directory holds the full report, and ``compare``, ``overlap``, ``--at-coverage``,
``--published`` and ``knowsum profile`` read it like any other. The metrics of the log were computed
by :func:`replay` on the same replies, so both give the same figures.

The log is read with inspect_ai's own reader (``pip install 'knowsum[inspect]'``), imported only here.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from knowsum.errors import InputFileError, NotInstalledError
from knowsum.harness._replay import Answer, ReplayBackend, request_id
from knowsum.harness._spec import make_config, requests_of, run_instrument
from knowsum.models import ResponseStore
from knowsum.records import Record, Run

__all__ = ["META_KEY", "REQUEST_KEY", "LogRun", "finish_reason", "read_log", "replay", "run_from_log"]

META_KEY = "knowsum"
"""The task metadata key of a knowsum task: ``{"instrument", "config", "version"}``."""
REQUEST_KEY = "knowsum_request"
"""The sample metadata key holding the sample's :func:`~knowsum.harness.request_id`."""


def finish_reason(stop_reason: str) -> str:
    """knowsum's finish reason of an inspect ``stop_reason``: ``max_tokens`` is ``length``."""
    return "length" if stop_reason in ("max_tokens", "model_length") else "stop"


@dataclass(frozen=True, slots=True)
class LogRun:
    """What a knowsum task's inspect log holds.

    Attributes:
        path: The log file.
        instrument: ``census``, ``recall`` or ``genebench``.
        config: The instrument's configuration the task ran with.
        model: The model as inspect named it (``openai-api/llama/smollm2``).
        answers: request id → reply.
        metrics: The log's figures and caveats: metric name → value (``{}`` when it has none).
    """

    path: Path
    instrument: str
    config: BaseModel
    model: str
    answers: dict[str, Answer]
    metrics: dict[str, float]


def _inspect_log(path: Path) -> Any:
    try:
        from inspect_ai.log import read_eval_log
    except ImportError:
        raise NotInstalledError(
            "reading an inspect log needs inspect_ai: pip install 'knowsum[inspect]'"
        ) from None
    if not path.exists():
        raise InputFileError(path, "no such file; check the path (the log `inspect eval` wrote)")
    try:
        return read_eval_log(str(path))
    except Exception:  # inspect's reader raises zip, JSON, decoding and validation errors alike
        raise InputFileError(
            path, "not an inspect log (an .eval archive or a .json log): give the file `inspect eval` wrote"
        ) from None


def _answer(sample: Any) -> Answer:
    if sample.error is not None:
        return Answer("", "error", f"inspect: {sample.error.message}")
    return Answer(sample.output.completion, finish_reason(sample.output.stop_reason))


def _metrics(log: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for score in log.results.scores if log.results is not None else []:
        for name, m in score.metrics.items():
            out[name] = m.value
    return out


def read_log(path: str | Path, instrument: str) -> LogRun:
    """Read the inspect log of a ``knowsum/<instrument>`` task.

    Raises:
        NotInstalledError: inspect_ai is not installed.
        InputFileError: not an inspect log, not a knowsum task's, another instrument's, a run that
            did not finish, a sample without its request id, a request answered more than once
            (``--epochs``), or a task's request it does not answer (``--limit``): each says what
            to do. Every reply of the log is read back, or the log is refused: none is dropped.
    """
    path = Path(path)
    log = _inspect_log(path)
    meta = (log.eval.metadata or {}).get(META_KEY)
    if not isinstance(meta, dict) or "instrument" not in meta:
        raise InputFileError(
            path,
            f"the log of task {log.eval.task!r}, not of a knowsum task: "
            f"run `inspect eval knowsum/{instrument}`",
        )
    if meta["instrument"] != instrument:
        raise InputFileError(
            path,
            f"a knowsum/{meta['instrument']} log: "
            f"read it with `knowsum {meta['instrument']} score --inspect-log`",
        )
    if log.status != "success":
        raise InputFileError(
            path,
            f"the inspect run did not finish (status {log.status}): rerun or retry it (`inspect eval-retry`)",
        )
    answers: dict[str, Answer] = {}
    for sample in log.samples or []:
        rid = (sample.metadata or {}).get(REQUEST_KEY)
        if not isinstance(rid, str):
            raise InputFileError(path, f"sample {sample.id} has no {REQUEST_KEY} in its metadata")
        if rid in answers:  # --epochs N: N replies to one request, of which a run could use only one
            raise InputFileError(
                path,
                f"sample {sample.id} is answered more than once (epoch {getattr(sample, 'epoch', '?')}: "
                "inspect eval --epochs): knowsum reads one reply per request and drops none; for more "
                f"samples ask for them as the task's own (-T queries=N), with one epoch",
            )
        answers[rid] = _answer(sample)
    config = make_config(instrument, meta.get("config") or {})
    wanted = {request_id(r) for r in requests_of(instrument, config)}
    if not wanted <= answers.keys():  # --limit N: the replay would score only what was asked
        raise InputFileError(
            path,
            f"the log answers {len(wanted & answers.keys())} of the task's {len(wanted)} requests (cut by "
            "inspect eval --limit?): the run would be scored on part of its queries; rerun the task "
            "without --limit, or ask for fewer queries with its own arguments (-T queries=N)",
        )
    return LogRun(path, instrument, config, str(log.eval.model), answers, _metrics(log))


def replay(
    instrument: str,
    config: BaseModel,
    answers: Mapping[str, Answer],
    *,
    model: str,
    source: str,
    out: Path | None = None,
    overwrite: bool = False,
) -> Run[Record]:
    """``instrument``'s own run on ``answers``, written to ``out`` (``None``: a temporary folder,
    removed before this returns, so only the record is left to read).

    The answers go through a temporary response store, never the user's. Called from a running event
    loop (a harness metric), the run goes to a worker thread: knowsum's sampling starts its own loop.

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set.
        BackendError: a request ``answers`` does not answer.
    """
    backend = ReplayBackend(answers, model_id=model, source=source)

    def run() -> Run[Record]:
        with tempfile.TemporaryDirectory(prefix="knowsum-replay-") as tmp:
            where = out if out is not None else Path(tmp) / "run"
            with ResponseStore(Path(tmp) / "replay.sqlite") as store:
                return run_instrument(
                    instrument, config, backend, store=store, out=where, overwrite=overwrite
                )

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return run()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


def run_from_log(
    path: str | Path, instrument: str, *, out: Path | None = None, overwrite: bool = False
) -> tuple[Run[Record], LogRun]:
    """Turn the inspect log at ``path`` into an ordinary run directory of ``instrument``.

    Args:
        path: The ``.eval`` (or ``.json``) log of ``inspect eval knowsum/<instrument>``.
        instrument: The instrument the caller reads (``census`` for ``census score``).
        out: The run directory (default: the instrument's, named after the log's model).
        overwrite: Empty ``out`` first when it holds another run.

    Raises:
        What :func:`read_log` raises (a log lacking replies to some of the task's requests among
        it); InputError: ``out`` holds another run.
    """
    log = read_log(path, instrument)
    done = replay(
        instrument,
        log.config,
        log.answers,
        model=log.model,
        source=str(log.path),
        out=out,
        overwrite=overwrite,
    )
    return done, log
