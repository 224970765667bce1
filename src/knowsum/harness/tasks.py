"""knowsum's instruments as inspect_ai tasks: ``inspect eval knowsum/census`` (and ``recall``, ``genebench``).

Registered through the ``inspect_ai`` entry point of knowsum's ``pyproject.toml`` (``pip install
'knowsum[inspect]'``)::

    inspect eval knowsum/census -T task=diseases -T queries=300 --model openai/gpt-4o-mini
    inspect eval knowsum/recall -T kb=go -T per_bucket=20 --model ollama/llama3.2
    inspect eval knowsum/genebench -T per_type=2 --model mockllm/model

Each task is its instrument's own requests (:func:`knowsum.harness.requests_of`), one sample
per request: a census is its enumeration prompt repeated with distinct ids (sample indexes, each
with its own derived seed: distinct draws, not epochs, which reducers would collapse before the
metrics run). Every sample is generated with its request's parameters (temperature, ``top_p``,
token budget, seed). The scorer keeps each reply (``Score.answer``) and, for a census, the items it
decodes and verifies against the task's knowledge base (``Score.metadata["items"]``); the metrics pool
every reply through the instrument's own run (:class:`~knowsum.harness.ReplayBackend`), so the
figures are those ``knowsum census score --inspect-log LOG`` writes into a run directory. Metric
group ``knowsum`` holds the figures (:mod:`knowsum.harness._figures`), group ``caveats`` the caveats
that go with them (each a metric named by the caveat's text).

Task arguments are the fields of the instrument's configuration (``CensusConfig``, ``RecallConfig``,
``GenebenchConfig``); a bad one (unknown task, KB not installed, ``queries=0``) fails with one line
before any model is asked.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai import Task, task
from inspect_ai._util.error import PrerequisiteError  # printed by inspect as its message alone
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from knowsum import __version__
from knowsum.census import CensusConfig, decode, prepare_census
from knowsum.errors import KnowsumError
from knowsum.genebench import GenebenchConfig
from knowsum.harness._figures import Figures, figures
from knowsum.harness._logs import META_KEY, REQUEST_KEY, finish_reason, replay
from knowsum.harness._replay import Answer, request_id
from knowsum.harness._spec import as_task_args, make_config, requests_of
from knowsum.harness.tokenizer import use_tokenizer
from knowsum.instrument import broken_instruments, get_instrument, instruments
from knowsum.models import Request
from knowsum.recall import RecallConfig

__all__ = ["census", "genebench", "instrument_task", "recall", "register_plug_ins"]

_GENERATE_KEY = "knowsum_generate"


_REDUCED = (
    "no figures: the epochs of a sample gave different replies, which inspect reduced to none; run "
    "with epochs=1 (each request is a sample of its own, a census query included)"
)


@dataclass
class _Pool:
    """What the metrics of one task pool: its instrument, configuration and request ids."""

    instrument: str
    config: BaseModel
    expected: frozenset[str]
    done: dict[str, Figures] = field(default_factory=dict)

    def compute(self, scores: Sequence[SampleScore]) -> Figures | None:
        """The figures of the replies so far, once every request has one (``None`` before); none,
        and why, when epochs reduced differing replies of a sample to no reply."""
        answers: dict[str, Answer] = {}
        for s in scores:
            rid = (s.sample_metadata or {}).get(REQUEST_KEY)
            if rid is None:
                continue
            if s.score.answer is None:
                return {}, [_REDUCED]
            meta = s.score.metadata or {}
            answers[rid] = Answer(s.score.answer, str(meta.get("finish_reason", "stop")))
        if not self.expected <= answers.keys():
            return None
        key = hashlib.sha256(
            json.dumps(sorted((k, a.text, a.finish_reason) for k, a in answers.items())).encode()
        ).hexdigest()
        if key not in self.done:
            record = replay(
                self.instrument, self.config, answers, model="inspect", source="inspect eval"
            ).result
            self.done = {key: figures(record)}  # the last pool only: metrics are asked for it again
        return self.done[key]


_POOLS: dict[str, _Pool] = {}


def _pool_id(instrument: str, config: BaseModel) -> str:
    text = json.dumps([instrument, config.model_dump(mode="json")], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@metric(name="knowsum")
def pooled_figures(pool: str) -> Metric:
    """The instrument's figures over every reply (group ``knowsum``; module docstring)."""

    def compute(scores: list[SampleScore]) -> Value:
        got = _POOLS[pool].compute(scores)
        return {} if got is None else dict(got[0])

    return compute


@metric(name="caveats")
def pooled_caveats(pool: str) -> Metric:
    """The caveats of those figures, each a metric named by its text with the value 1."""

    def compute(scores: list[SampleScore]) -> Value:
        got = _POOLS[pool].compute(scores)
        return {} if got is None else dict.fromkeys(got[1], 1.0)

    return compute


Itemizer = Callable[[str, int], list[dict[str, Any]]]


def _census_items(config: CensusConfig) -> Itemizer:
    """Decode a reply into items and verify each against the task's knowledge base."""
    plan = prepare_census(config)

    def items(text: str, index: int) -> list[dict[str, Any]]:
        decoded = decode(text, index, plan.task.decoder, plan.task.separator)
        verdicts = plan.verifier.verify([d.text for d in decoded], [d.claimed_id for d in decoded])
        return [
            {"text": d.text, "status": v.status, "key": v.key, "name": v.name}
            for d, v in zip(decoded, verdicts, strict=True)
        ]

    return items


@scorer(metrics=[])
def knowsum_scorer(itemize: Itemizer | None = None) -> Scorer:
    """Keep each reply and how it ended; for a census, its items verified against the KB.

    The value is the number of valid items (census) or 1 (an answered request).
    """

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        meta: dict[str, Any] = {"finish_reason": finish_reason(state.output.stop_reason)}
        value = 1
        if itemize is not None:
            items = itemize(text, int(state.metadata.get("sample_index", 0)))
            meta["items"] = items
            value = sum(1 for it in items if it["status"] == "valid")
        return Score(value=value, answer=text, metadata=meta)

    return score


@solver
def knowsum_generate() -> Solver:
    """Generate each sample with its own request's parameters (temperature, top_p, budget, seed)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, **state.metadata[_GENERATE_KEY])

    return solve


def _input(request: Request) -> str | list[ChatMessage]:
    if request.prompt is not None:
        return request.prompt
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[role](content=content) for role, content in request.messages or ()]


def _generate_args(request: Request) -> dict[str, Any]:
    p = request.params
    args: dict[str, Any] = {"temperature": p.temperature, "top_p": p.top_p, "max_tokens": p.max_tokens}
    if request.seed is not None:
        args["seed"] = request.seed
    if p.stop:
        args["stop_seqs"] = list(p.stop)
    return args


def _samples(requests: Sequence[Request]) -> list[Sample]:
    out: list[Sample] = []
    seen: set[str] = set()
    for req in requests:
        rid = request_id(req)
        if rid in seen:  # the same request twice (one label probed twice) is asked once, like the store
            continue
        seen.add(rid)
        meta = {REQUEST_KEY: rid, "sample_index": req.sample_index, _GENERATE_KEY: _generate_args(req)}
        out.append(Sample(id=len(out) + 1, input=_input(req), metadata=meta))
    return out


def instrument_task(instrument: str, **args: Any) -> Task:
    """The inspect task of any registered instrument: ``args`` are fields of its configuration.

    ``knowsum/census``, ``knowsum/recall``, ``knowsum/genebench`` and each plug-in's ``knowsum/<name>``
    are this function with their instrument's name.

    Raises:
        PrerequisiteError: an unknown instrument or a bad argument (inspect prints the one line).
    """
    return _task(instrument, args)


def _task(instrument: str, args: Mapping[str, Any]) -> Task:
    try:
        config = make_config(instrument, args)
        requests = requests_of(instrument, config)
        itemize = _census_items(config) if isinstance(config, CensusConfig) else None
    except KnowsumError as exc:  # an option named as on the command line is named as -T NAME= here
        text = str(exc)
        with contextlib.suppress(KnowsumError):
            text = as_task_args(text, get_instrument(instrument).Config)
        raise PrerequisiteError(
            text if text.startswith("knowsum/") else f"knowsum/{instrument}: {text}"
        ) from None
    samples = _samples(requests)
    pool = _pool_id(instrument, config)
    _POOLS[pool] = _Pool(
        instrument, config, frozenset(str(s.metadata[REQUEST_KEY]) for s in samples if s.metadata)
    )
    meta = {"instrument": instrument, "config": config.model_dump(mode="json"), "version": __version__}
    return Task(
        dataset=MemoryDataset(samples, name=f"knowsum-{instrument}"),
        solver=knowsum_generate(),
        scorer=knowsum_scorer(itemize),
        metrics=[pooled_figures(pool), pooled_caveats(pool)],
        metadata={META_KEY: meta},
    )


def _optional(annotation: Any) -> Any:
    """``annotation | None``: a task argument left unset is ``None`` (the instrument's default)."""
    return Any if annotation is None else annotation | None


def _signature(config: type[BaseModel], defaults: Mapping[str, Any]) -> inspect.Signature:
    """A task function's signature: each field of ``config`` a keyword argument (``None``: the
    instrument's default), then ``**kwargs`` so that an unknown name reaches the configuration, which
    refuses it in one line (inspect would only warn and drop it)."""
    keyword = inspect.Parameter.KEYWORD_ONLY
    named = [
        inspect.Parameter(n, keyword, default=defaults.get(n), annotation=_optional(f.annotation))
        for n, f in config.model_fields.items()
    ]
    rest = inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD, annotation=Any)
    return inspect.Signature([*named, rest], return_annotation=Task)


def _docstring(name: str, summary: str, config: type[BaseModel]) -> str:
    """The task's docstring (inspect shows it): ``summary``, then each argument with its description."""
    args = "".join(f"\n    {n}: {(f.description or n).rstrip('.')}." for n, f in config.model_fields.items())
    return (
        f"{summary}\n\n``inspect eval knowsum/{name} -T NAME=VALUE``: each task argument is a field of "
        f"``{config.__name__}``; one left unset takes the instrument's default.\n\nArgs:{args}\n"
    )


def _task_function(
    name: str, config: type[BaseModel], summary: str, defaults: Mapping[str, Any] | None = None
) -> Callable[..., Task]:
    """Register ``knowsum/<name>``, the task of instrument ``name``: its arguments are the fields of
    ``config`` (its configuration), ``defaults`` those the task fills when not given."""
    fill = dict(defaults or {})

    def make(**kwargs: Any) -> Task:
        return _task(name, {**fill, **kwargs})

    make.__name__ = make.__qualname__ = name
    make.__doc__ = _docstring(name, summary, config)
    make.__signature__ = _signature(config, fill)  # type: ignore[attr-defined]  # read by inspect.signature
    return task(name=name)(make)


census = _task_function(
    "census",
    CensusConfig,
    "A KnowSum census: how many distinct items of a kind the model knows, seen and unseen.",
    {"task": "diseases"},
)
"""``knowsum/census``: a KnowSum census, its enumeration prompt ``queries`` times (distinct ids and
seeds); task arguments are the fields of :class:`~knowsum.census.CensusConfig` (``task`` defaults to
diseases)."""

recall = _task_function(
    "recall",
    RecallConfig,
    "Ontology-ID recall (Bombieri et al.): the model gets a concept's label and names its ID.",
    {"kb": "go"},
)
"""``knowsum/recall``: ontology-ID recall; task arguments are the fields of
:class:`~knowsum.recall.RecallConfig` (``kb`` defaults to go; ``per_bucket`` alone selects stratified)."""

genebench = _task_function(
    "genebench",
    GenebenchConfig,
    "SciHorizon-GENE: questions built from curated gene records, every cyclic rotation of the options.",
)
"""``knowsum/genebench``: SciHorizon-GENE, every cyclic rotation of each question's options; task
arguments are the fields of :class:`~knowsum.genebench.GenebenchConfig`."""

_OWN = ("census", "recall", "genebench")


def register_plug_ins() -> list[str]:
    """Register ``knowsum/<name>`` for every plug-in instrument installed (done when this module is
    imported); returns their names. A plug-in that fails to load is reported (a warning naming it
    and why) and knowsum's own tasks stay usable."""
    found = {n: i for n, i in instruments().items() if n not in _OWN}
    for line in broken_instruments().values():  # left out: the others stay usable
        logging.getLogger(__name__).warning("knowsum: not registered as a task: %s", line)
    for name, inst in found.items():
        _task_function(name, inst.Config, f"{inst.title} (the {name} instrument, a knowsum plug-in).")
    return list(found)


register_plug_ins()
use_tokenizer()  # offline token counts for inspect (knowsum.harness.tokenizer); a user's setting is kept
