"""The figures of a knowsum task inside inspect: its pool of replies, metrics and epochs reducer.

A task's metrics (groups ``knowsum`` and ``caveats``) read every reply the scorer kept, each epoch's
among them (the reducer ``knowsum/draws`` keeps them all), and compute the instrument's figures with
the functions ``knowsum <instrument> score --inspect-log`` uses on the log
(:func:`~knowsum.harness._logs.gather`, :func:`~knowsum.harness._logs.replay`), so the two agree. A
pool is made from the task's arguments (instrument, configuration fields that differ from the
defaults) on first use, so ``inspect score`` makes it from the log alone.

Replies that cannot be scored (part of the requests, or epochs, for an instrument whose figures need
one whole run) keep the figures' names, each ``NaN``, beside the caveat that says why: every log of
one task has the same metric names. The names are those of the instrument's own run of the whole
task on an empty reply to each request, found once per pool.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, ScoreReducer, Value, metric, score_reducer
from pydantic import BaseModel

from knowsum.errors import KnowsumError
from knowsum.harness._figures import Figures, caveat_metrics, figures
from knowsum.harness._logs import REQUEST_KEY, Draw, gather, replay
from knowsum.harness._replay import Answer, request_id
from knowsum.harness._spec import make_config, requests_of
from knowsum.instrument import ReplyItems, get_instrument
from knowsum.models import Request

__all__ = ["Pool", "keep_draws", "pool", "pooled_caveats", "pooled_figures", "request_args"]

_REDUCED = (
    "no figures: the epochs of a sample were reduced to one score that keeps no reply (another "
    "--epochs-reducer): leave the task's reducer (knowsum/draws), which keeps every epoch's reply"
)


@dataclass
class Pool:
    """One task's instrument, configuration and the figures of its replies (the last pool asked)."""

    instrument: str
    config: BaseModel
    itemize: ReplyItems | None = None
    draws: str | None = None
    seeded: dict[int, dict[int, dict[str, Any]]] = field(default_factory=dict)
    done: dict[str, Figures] = field(default_factory=dict)
    names: dict[str, float] | None = None

    def undefined(self) -> dict[str, float]:
        """Every figure of a whole run of this task, each ``NaN`` (module docstring): the instrument's
        run on an empty reply to each request, made once (none when even that run fails)."""
        if self.names is None:
            empty = {request_id(r): Answer("") for r in requests_of(self.instrument, self.config)}
            try:
                run = replay(self.instrument, self.config, empty, model="inspect", source="inspect eval")
                self.names = dict.fromkeys(figures(run.record)[0], math.nan)
            except (KnowsumError, ValueError):  # stats refuse with a ValueError
                self.names = {}
        return dict(self.names)

    def generate_args(self, sample_index: int, epoch: int) -> dict[str, Any]:
        """Epoch ``e`` of sample index ``i`` of an instrument whose epochs are draws (``draws``: the
        field ``Q`` counting them): the request of index ``i + (e−1)·Q``
        (:func:`~knowsum.harness._logs.gather`), its own seed included."""
        assert self.draws is not None
        queries = int(getattr(self.config, self.draws))
        if epoch not in self.seeded:
            drawn = self.config.model_copy(update={self.draws: queries * epoch})
            self.seeded[epoch] = {
                r.sample_index: request_args(r) for r in requests_of(self.instrument, drawn)
            }
        return self.seeded[epoch][sample_index + (epoch - 1) * queries]

    def compute(self, scores: Sequence[SampleScore]) -> Figures:
        """The figures of every reply of ``scores`` (each epoch's among them), as the read-back
        computes them; when the replies cannot be scored, every figure ``NaN`` and why."""
        draws: list[Draw] = []
        for s in scores:
            meta = s.sample_metadata or {}
            kept = (s.score.metadata or {}).get("draws") or [
                {"answer": s.score.answer, **(s.score.metadata or {})}
            ]
            for d in kept:
                if d.get("answer") is None:
                    return self.undefined(), [("epochs", _REDUCED)]
                answer = Answer(str(d["answer"]), str(d.get("finish_reason", "stop")))
                index, epoch = int(meta.get("sample_index", 0)), int(d.get("epoch", 1))
                draws.append(Draw(index, str(meta[REQUEST_KEY]), epoch, answer))
        try:
            config, answers = gather(self.instrument, self.config, draws)
            key = hashlib.sha256(
                json.dumps(sorted((k, a.text, a.finish_reason) for k, a in answers.items())).encode()
            ).hexdigest()
            if key not in self.done:
                run = replay(self.instrument, config, answers, model="inspect", source="inspect eval")
                self.done = {key: figures(run.record)}  # the last pool only: metrics ask for it again
        except KnowsumError as exc:
            return self.undefined(), [("epochs" if "epochs" in str(exc) else "partial", str(exc))]
        return self.done[key]


POOLS: dict[str, Pool] = {}


def pool(instrument: str, config: Mapping[str, Any]) -> Pool:
    """The pool of a task (made on first use: ``inspect score`` makes it from the log's arguments)."""
    key = hashlib.sha256(json.dumps([instrument, config], sort_keys=True).encode()).hexdigest()[:16]
    if key not in POOLS:
        made, inst = make_config(instrument, config), get_instrument(instrument)
        POOLS[key] = Pool(instrument, made, inst.reply_items(made), inst.draws)
    return POOLS[key]


@metric(name="knowsum")
def pooled_figures(instrument: str, config: dict[str, Any]) -> Metric:
    """The instrument's figures over every reply (group ``knowsum``; ``NaN``: undefined)."""

    def compute(scores: list[SampleScore]) -> Value:
        return dict(pool(instrument, config).compute(scores)[0])

    return compute


@metric(name="caveats")
def pooled_caveats(instrument: str, config: dict[str, Any]) -> Metric:
    """The caveats of those figures: ``caveat_<code>`` = 1 or 0 for every code (group ``caveats``)."""

    def compute(scores: list[SampleScore]) -> Value:
        return dict(caveat_metrics(pool(instrument, config).compute(scores)[1]))

    return compute


@score_reducer(name="knowsum/draws")
def keep_draws() -> ScoreReducer:
    """Every epoch's reply kept (``metadata["draws"]``): each is a draw of the run, none averaged
    away; the value is the mean of the epochs' values."""

    def reduce(scores: list[Score]) -> Score:
        values = [float(s.as_float()) for s in scores]
        draws = [{"answer": s.answer, **(s.metadata or {})} for s in scores]
        for d in draws:
            d.pop("items", None)  # kept in each epoch's own score
        return Score(
            value=sum(values) / len(values),
            answer=scores[0].answer,
            explanation="\n".join(s.explanation or "" for s in scores),
            metadata={"draws": draws},
        )

    return reduce


def request_args(request: Request) -> dict[str, Any]:
    p = request.params
    args: dict[str, Any] = {"temperature": p.temperature, "top_p": p.top_p, "max_tokens": p.max_tokens}
    if request.seed is not None:
        args["seed"] = request.seed
    if p.stop:
        args["stop_seqs"] = list(p.stop)
    return args
