"""knowsum's instruments as inspect_ai tasks: ``inspect eval knowsum/<instrument>``.

Registered through the ``inspect_ai`` entry point of knowsum's ``pyproject.toml`` (``pip install
'knowsum[inspect]'``)::

    inspect eval knowsum/census -T task=diseases -T queries=300 --model openai/gpt-4o-mini
    inspect eval knowsum/recall -T kb=go -T per_bucket=20 --model ollama/llama3.2
    inspect eval knowsum/genebench -T per_type=2 --model mockllm/model

Each task is its instrument's own requests (:func:`knowsum.harness.requests_of`), one sample
per request (an enumeration prompt asked Q times is Q samples with distinct ids, each with its own
derived seed). Every sample is generated with its request's parameters (temperature, ``top_p``,
token budget, seed) by the solver ``knowsum/generate``; with ``--epochs E``, for an instrument
whose epochs are draws (``Instrument.draws``), epoch ``e`` of sample index ``i`` is the request of
index ``i + (e−1)·Q`` (its own seed), and the reducer ``knowsum/draws`` keeps every epoch's reply,
so the epochs are draws of a run of ``Q·E`` draws. The scorer ``knowsum/score`` keeps each reply
(``Score.answer``) and, for an instrument that decodes items (``Instrument.reply_items``), the
items it verifies against the knowledge base (``Score.metadata["items"]``, named in
``Score.explanation``); the metrics pool every reply through the instrument's own run
(:class:`~knowsum.harness.ReplayBackend`), so the figures are those ``knowsum score INSTRUMENT
--inspect-log LOG`` writes into a run directory, a log with part of the requests included
(:mod:`knowsum.harness._logs`). Metric group ``knowsum`` holds the figures
(:mod:`knowsum.harness._figures`: the same names for every run of a task, ``NaN`` when undefined),
group ``caveats`` a metric ``caveat_<code>`` = 1 or 0 per caveat code.

Task arguments are the fields of the instrument's configuration (its ``Config``), filled with its
``task_defaults()``; a bad one (unknown task, KB not installed, ``queries=0``) fails with one line
before any model is asked.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai._eval.task.constants import TASK_ALL_PARAMS_ATTR  # the task arguments the header shows
from inspect_ai._util.error import PrerequisiteError  # printed by inspect as its message alone
from inspect_ai._util.registry import RegistryType, _registry, registry_info, registry_key
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser
from inspect_ai.scorer import (
    Score,
    Scorer,
    Target,
    scorer,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel

from knowsum import __version__
from knowsum.errors import KnowsumError
from knowsum.harness._logs import META_KEY, REQUEST_KEY, finish_reason
from knowsum.harness._pool import POOLS, keep_draws, pool, pooled_caveats, pooled_figures, request_args
from knowsum.harness._replay import request_id
from knowsum.harness._spec import as_task_args, make_config, requests_of
from knowsum.harness.tokenizer import use_tokenizer
from knowsum.instrument import INSTRUMENTS, broken_instruments, get_instrument, installed, instruments
from knowsum.models import Request

__all__ = ["TASKS", "instrument_task", "register_plug_ins"]

_GENERATE_KEY = "knowsum_generate"


def _explanation(instrument: str, items: list[dict[str, Any]] | None, text: str) -> str:
    if items is None:
        reply = " ".join(text.split())
        cut = f"{reply[:200]}{'…' if len(reply) > 200 else ''}"
        return f"reply: {cut} (scored with every reply by knowsum/{instrument}'s run: the metrics)"
    valid = [f"{it['key']} {it['name']}" for it in items if it["status"] == "valid"]
    shown = "; ".join(valid[:20]) + ("; …" if len(valid) > 20 else "")
    return f"{len(valid)} of {len(items)} items verified" + (f": {shown}" if valid else "")


def _log_name(obj: object, kind: RegistryType) -> None:
    """Find ``obj`` by the name inspect writes into a log, ``knowsum/<name>``, too: inspect records
    a scorer without its package prefix, so ``knowsum/score`` is registered as
    ``knowsum/knowsum/score`` (whose log name is ``knowsum/score``) and this makes ``inspect score``,
    which loads knowsum's entry point for the prefix ``knowsum/``, find it under the name it reads."""
    name = registry_info(obj).name
    if name.startswith("knowsum/knowsum/"):
        _registry.setdefault(registry_key(kind, name.removeprefix("knowsum/")), obj)


@scorer(metrics=[], name="knowsum/score")  # inspect prefixes the package: _log_name
def knowsum_scorer(instrument: str, config: dict[str, Any]) -> Scorer:
    """Keep each reply and how it ended, and the items it names verified against the KB.

    The value is the number of valid items (an instrument with ``reply_items``) or 1 (an answered
    request); the explanation names the verified items or repeats the reply. ``config``: the task's
    configuration (its fields that differ from the defaults), so ``inspect score`` makes the same scorer.
    """
    itemize = pool(instrument, config).itemize

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        meta: dict[str, Any] = {"finish_reason": finish_reason(state.output.stop_reason)}
        meta["epoch"] = state.epoch
        items = None if itemize is None else itemize(text, int(state.metadata.get("sample_index", 0)))
        value = 1 if items is None else sum(1 for it in items if it["status"] == "valid")
        if items is not None:
            meta["items"] = items
        why = _explanation(instrument, items, text)
        return Score(value=value, answer=text, explanation=why, metadata=meta)

    return score


_log_name(knowsum_scorer, "scorer")


@solver(name="generate")  # knowsum/generate
def knowsum_generate(instrument: str, config: dict[str, Any]) -> Solver:
    """Generate each sample with its own request's parameters (temperature, top_p, budget, seed); the
    later epochs of an instrument whose epochs are draws with those of the draw they are
    (``Pool.generate_args``)."""
    drawn = pool(instrument, config)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        args = state.metadata[_GENERATE_KEY]
        if state.epoch > 1 and drawn.draws is not None:
            args = drawn.generate_args(int(state.metadata["sample_index"]), state.epoch)
        return await generate(state, **args)

    return solve


def _input(request: Request) -> str | list[ChatMessage]:
    if request.prompt is not None:
        return request.prompt
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[role](content=content) for role, content in request.messages or ()]


def _samples(requests: Sequence[Request]) -> list[Sample]:
    out: list[Sample] = []
    seen: set[str] = set()
    for req in requests:
        rid = request_id(req)
        if rid in seen:  # the same request twice (one label probed twice) is asked once, like the store
            continue
        seen.add(rid)
        meta = {REQUEST_KEY: rid, "sample_index": req.sample_index, _GENERATE_KEY: request_args(req)}
        out.append(Sample(id=len(out) + 1, input=_input(req), metadata=meta))
    return out


class _Task(Task):
    """A task whose log header leaves out the task arguments left unset (``None``)."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == TASK_ALL_PARAMS_ATTR and isinstance(value, dict):
            value = {k: v for k, v in value.items() if v is not None}
        super().__setattr__(name, value)


def instrument_task(instrument: str, **args: Any) -> Task:
    """The inspect task of any registered instrument: ``args`` are fields of its configuration.

    Each instrument's ``knowsum/<name>``, knowsum's own and every plug-in's, is this function with
    that instrument's name.

    Raises:
        PrerequisiteError: an unknown instrument or a bad argument (inspect prints the one line).
    """
    return _task(instrument, args)


def _task(instrument: str, args: Mapping[str, Any]) -> Task:
    POOLS.clear()  # one task at a time: a pool holds its KB's verifier
    try:
        config = make_config(instrument, args)
        requests = requests_of(instrument, config)
        given = config.model_dump(mode="json", exclude_defaults=True)
        pool(instrument, given)  # an item verifier: its KB loads here
    except KnowsumError as exc:  # an option named as on the command line is named as -T NAME= here
        text = str(exc)
        with contextlib.suppress(KnowsumError):
            text = as_task_args(text, get_instrument(instrument).Config)
        raise PrerequisiteError(
            text if text.startswith("knowsum/") else f"knowsum/{instrument}: {text}"
        ) from None
    samples = _samples(requests)
    if not samples:  # inspect would stop on an empty dataset, naming none of the arguments
        raise PrerequisiteError(
            f"knowsum/{instrument}: these task arguments ask no request (a part left out for want of "
            "its input, e.g. a question type without its -T FILE argument?): nothing to evaluate"
        )
    meta = {"instrument": instrument, "config": config.model_dump(mode="json"), "version": __version__}
    return _Task(
        dataset=MemoryDataset(samples, name=f"knowsum-{instrument}"),
        solver=knowsum_generate(instrument, given),
        scorer=knowsum_scorer(instrument, given),
        metrics=[pooled_figures(instrument, given), pooled_caveats(instrument, given)],
        epochs=Epochs(1, keep_draws()),
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


TASKS: dict[str, Callable[..., Task]] = {}
"""The task function of each registered instrument by name (``knowsum/<name>``); also this module's
attributes (``from knowsum.harness.tasks import <name>``)."""


def register_plug_ins() -> list[str]:
    """Register ``knowsum/<name>`` for every installed instrument, knowsum's own and plug-ins alike
    (done when this module is imported); returns the plug-ins' names. A plug-in that fails to load is
    reported (a warning naming it and why) and the other tasks stay usable.

    Each task's arguments are its instrument's configuration fields, filled with its
    ``task_defaults()``, and inspect shows its ``task_summary``."""
    own = {i.name for i in installed(INSTRUMENTS) if i.package == "knowsum"}
    for line in broken_instruments().values():  # left out: the others stay usable
        logging.getLogger(__name__).warning("knowsum: not registered as a task: %s", line)
    every = instruments()
    for name, inst in every.items():
        summary = inst.task_summary or f"{inst.title} (the {name} instrument, a knowsum plug-in)."
        TASKS[name] = _task_function(name, inst.Config, summary, inst.task_defaults())
    return [n for n in every if n not in own]


def __getattr__(name: str) -> Callable[..., Task]:
    """An instrument's task function as an attribute of this module (:data:`TASKS`)."""
    if name in TASKS:
        return TASKS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


register_plug_ins()
use_tokenizer()  # offline token counts for inspect (knowsum.harness.tokenizer); a user's setting is kept
