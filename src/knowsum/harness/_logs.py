"""Inspect logs read back: an ``inspect eval knowsum/…`` run becomes an ordinary knowsum run directory.

``knowsum score INSTRUMENT --inspect-log LOG.eval`` (and each instrument's own ``score``) reads the
log's task (its ``knowsum`` metadata: instrument and configuration) and every sample's reply, and
runs the instrument's own entry point on a :class:`~knowsum.harness.ReplayBackend` serving those
replies: the run directory holds the full report, and ``compare``, ``overlap``, ``--at-coverage``,
``--published`` and ``knowsum profile`` read it like any other. The metrics of the log were computed
by :func:`replay` on the same replies, so both give the same figures.

A log may hold part of the task's requests (``inspect eval --limit``, ``--sample-id``, an
interrupted run, samples that failed): an instrument whose run scores the draws it got
(``Instrument.draws``: the field counting them, such as a number of queries) is then the run of the
replies it holds, with the caveat ``partial`` ("k of N requests"); an instrument that scores only
whole runs (``draws`` unset) refuses it in one line. With ``--epochs E`` every epoch's reply of
the former is a draw of its own (:func:`gather`: epoch ``e`` of sample index ``i`` is the request of index
``i + (e−1)·Q``, seed included, of the run with ``Q·E`` draws); the others refuse epochs. The log's
metrics are computed by the same functions, so a log and its read-back agree.

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

from knowsum.errors import InputError, InputFileError, NotInstalledError
from knowsum.harness._replay import Answer, ReplayBackend, request_id
from knowsum.harness._spec import make_config, requests_of, run_instrument
from knowsum.instrument import get_instrument
from knowsum.models import ResponseStore
from knowsum.records import Caveat, Record, Run, default_run_dir, write_run_dir

__all__ = [
    "META_KEY",
    "REQUEST_KEY",
    "Draw",
    "LogRun",
    "finish_reason",
    "gather",
    "read_log",
    "replay",
    "run_from_log",
]

META_KEY = "knowsum"
"""The task metadata key of a knowsum task: ``{"instrument", "config", "version"}``."""
REQUEST_KEY = "knowsum_request"
"""The sample metadata key holding the sample's :func:`~knowsum.harness.request_id`."""


def finish_reason(stop_reason: str) -> str:
    """knowsum's finish reason of an inspect ``stop_reason``: ``max_tokens`` is ``length``."""
    return "length" if stop_reason in ("max_tokens", "model_length") else "stop"


_WHOLE_RUNS_ONLY = "scores whole runs only"


def _draws(instrument: str) -> str | None:
    """The field counting an instrument's draws when its run scores the replies it got, however many
    (``Instrument.draws``, such as a number of queries); ``None``: it scores whole runs only."""
    return get_instrument(instrument).draws


@dataclass(frozen=True, slots=True)
class Draw:
    """One reply of a log (or of a running eval): which sample, which epoch, what came back.

    Attributes:
        sample_index: knowsum's sample index of the sample's request.
        request: The sample's request id (:func:`~knowsum.harness.request_id`).
        epoch: inspect's epoch (1, 2, …).
        answer: The reply, or ``None`` when the sample failed (counted as missing).
    """

    sample_index: int
    request: str
    epoch: int
    answer: Answer | None


def gather(instrument: str, config: BaseModel, draws: list[Draw]) -> tuple[BaseModel, dict[str, Answer]]:
    """The configuration a run on ``draws`` scores and its answers by request id.

    One epoch: the task's configuration, each reply under its sample's request id. ``E`` epochs of an
    instrument with ``draws``: its run of ``Q·E`` draws, epoch ``e`` of sample index ``i``
    answering the request of index ``i + (e−1)·Q`` (the solver sent that request's seed), so every
    epoch is a draw of its own.

    Raises:
        InputError: epochs of an instrument without ``draws`` (one line: what to run instead).
    """
    epochs = max((d.epoch for d in draws), default=1)
    if epochs == 1:
        return config, {d.request: d.answer for d in draws if d.answer is not None}
    field = _draws(instrument)
    queries = None if field is None else getattr(config, field, None)
    if field is None or not isinstance(queries, int):
        raise InputError(
            f"knowsum/{instrument} asks each request once and scores one reply per request, so "
            f"--epochs {epochs} has no meaning for it: run it with one epoch (the default)"
        )
    drawn = config.model_copy(update={field: queries * epochs})
    by_index = {r.sample_index: request_id(r) for r in requests_of(instrument, drawn)}
    return drawn, {
        by_index[d.sample_index + (d.epoch - 1) * queries]: d.answer for d in draws if d.answer is not None
    }


def _partial(instrument: str, config: BaseModel, answers: Mapping[str, Answer]) -> Caveat | None:
    """The ``partial`` caveat of answers to part of the requests (``None``: all answered).

    Raises:
        InputError: replies to requests the instrument does not make now (a log of another version
            of the task), or part of the requests of an instrument that scores only whole runs (one
            line saying so)."""
    wanted = {request_id(r) for r in requests_of(instrument, config)}
    stale = answers.keys() - wanted
    if stale:  # replies to requests this version does not make: none of them can be scored
        raise InputError(
            f"{len(stale)} of the log's {len(answers)} replies answer requests that knowsum/{instrument} "
            "does not make now (its prompt, data or settings changed since the eval: another knowsum or "
            f"plug-in version); run `inspect eval knowsum/{instrument}` again with this version"
        )
    k, n = len(wanted & answers.keys()), len(wanted)
    if k == n:
        return None
    if _draws(instrument) is None:
        raise InputError(
            f"the log answers {k} of the task's {n} requests (inspect eval --limit or --sample-id, an "
            f"interrupted run, failed samples): knowsum/{instrument} {_WHOLE_RUNS_ONLY}; run every "
            "sample (inspect eval-retry completes an interrupted log)"
        )
    return Caveat(
        kind="partial",
        mark="partial log",
        message=f"partial log: {k} of {n} requests answered (inspect eval --limit or --sample-id, an "
        f"interrupted run, failed samples): the figures are those of the {k} replies",
    )


@dataclass(frozen=True, slots=True)
class LogRun:
    """What a knowsum task's inspect log holds.

    Attributes:
        path: The log file.
        instrument: The registered instrument's name (a built-in or a plug-in).
        config: The instrument's configuration the task ran with.
        model: The model as inspect named it (``openai-api/llama/smollm2``).
        answers: request id → reply (of ``config``: with epochs, the run of every epoch's draw).
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


def _answer(sample: Any) -> Answer | None:
    if sample.error is not None:  # a failed sample is a missing reply (as the log's metrics count it)
        return None
    return Answer(sample.output.completion, finish_reason(sample.output.stop_reason))


def _metrics(log: Any) -> dict[str, float]:
    out: dict[str, float] = {}
    for score in log.results.scores if log.results is not None else []:
        for name, m in score.metrics.items():
            out[name] = m.value
    return out


def read_log(path: str | Path, instrument: str) -> LogRun:
    """Read the inspect log of a ``knowsum/<instrument>`` task (module docstring: part of the
    requests, epochs).

    Raises:
        NotInstalledError: inspect_ai is not installed.
        InputFileError: not an inspect log, not a knowsum task's, another instrument's, a sample
            without its request id, part of the requests or epochs of an instrument that cannot
            score them: each says what to do.
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
            f"read it with `knowsum score {meta['instrument']} --inspect-log`",
        )
    draws: list[Draw] = []
    for sample in log.samples or []:
        rid = (sample.metadata or {}).get(REQUEST_KEY)
        if not isinstance(rid, str):
            raise InputFileError(path, f"sample {sample.id} has no {REQUEST_KEY} in its metadata")
        index = int((sample.metadata or {}).get("sample_index", 0))
        draws.append(Draw(index, rid, int(getattr(sample, "epoch", 1) or 1), _answer(sample)))
    try:
        config, answers = gather(instrument, make_config(instrument, meta.get("config") or {}), draws)
        _partial(instrument, config, answers)
    except InputError as exc:
        raise InputFileError(path, str(exc)) from None
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

    Answers to part of the requests: with ``draws``, the run of those (its record gets the caveat
    ``partial``, "k of N requests"); another instrument refuses them.

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set, or only part of the
            requests is answered for an instrument that scores whole runs only.
        BackendError: what the instrument's run raises.
    """
    partial = _partial(instrument, config, answers)
    backend = ReplayBackend(answers, model_id=model, source=source)

    def run() -> Run[Record]:
        with tempfile.TemporaryDirectory(prefix="knowsum-replay-") as tmp:
            where = out if out is not None else Path(tmp) / "run"
            with ResponseStore(Path(tmp) / "replay.sqlite") as store:
                done = run_instrument(
                    instrument, config, backend, store=store, out=where, overwrite=overwrite
                )
            if partial is not None:  # said on every surface that reads the record
                done.record.caveats.append(partial)
                write_run_dir(done.out_dir, done.record, fresh=False)  # result.json: --json, compare…
            return done

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
        instrument: The instrument the caller reads (its registry name).
        out: The run directory (default ``<instrument>-runs/score-<log stem>`` in the current
            folder, as ``knowsum score`` and each instrument's ``score --inspect-log`` name it).
        overwrite: Empty ``out`` first when it holds another run.

    Raises:
        NotInstalledError: inspect_ai is not installed (as :func:`read_log`).
        InputFileError: the log cannot be read back (as :func:`read_log`).
        InputError: ``out`` holds another run.
    """
    log = read_log(path, instrument)
    where = out if out is not None else default_run_dir(instrument, f"score-{Path(path).stem}")
    done = replay(
        instrument,
        log.config,
        log.answers,
        model=log.model,
        source=str(log.path),
        out=where,
        overwrite=overwrite,
    )
    return done, log
