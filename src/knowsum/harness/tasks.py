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

import hashlib
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
from knowsum.harness._figures import Figures, figures
from knowsum.harness._logs import META_KEY, REQUEST_KEY, finish_reason, replay
from knowsum.harness._replay import Answer, request_id
from knowsum.harness._spec import make_config, requests_of
from knowsum.instrument import instruments
from knowsum.models import Request

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
    except KnowsumError as exc:
        text = str(exc)
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


def _args(given: Mapping[str, Any]) -> dict[str, Any]:
    """A task function's arguments: its named ones and the rest (``**kwargs``), flattened."""
    named = {k: v for k, v in given.items() if k != "kwargs"}
    return {**named, **given.get("kwargs", {})}


@task
def census(
    task: str = "diseases",
    queries: int = 30,
    answers: int | None = None,
    criterion: str | None = None,
    count: str | None = None,
    temperature: float | None = None,
    top_p: float | None = None,
    seed: int | None = None,
    t: float | None = None,
    n_bootstrap: int | None = None,
    kb: str | None = None,
    prompt_variant: str | None = None,
    **kwargs: Any,
) -> Task:
    """A KnowSum census: how many distinct items of a kind the model knows, seen and unseen.

    Args:
        task: diseases, theorems, ontology:KB, diversity[:dream-jobs].
        queries: N_query, samples of the enumeration prompt (distinct ids and seeds).
        answers: N_ans per query (default: the task's).
        criterion: strict or relaxed (default relaxed).
        count: mention or incidence (default mention).
        temperature: Sampling temperature (paper and default: 1).
        top_p: Nucleus mass (paper and default: 1, off).
        seed: Run seed; each sample's seed derives from it.
        t: Extrapolation factor of N_tot(t) (paper and default: 100).
        n_bootstrap: Bootstrap resamples of the interval (default 1000).
        kb: Verifier KB of a custom task.
        prompt_variant: full or simple.
        **kwargs: Any other field of ``CensusConfig`` (``k``, ``level``, ``interval``, ``cutoff``…).
    """
    return _task("census", _args(locals()))


@task
def recall(
    kb: str = "go",
    per_bucket: int | None = None,
    select: str | None = None,
    sample: int | None = None,
    n_buckets: int | None = None,
    invariance: list[str] | None = None,
    temperature: float | None = None,
    seed: int | None = None,
    n_perm: int | None = None,
    **kwargs: Any,
) -> Task:
    """Ontology-ID recall (Bombieri et al.): the model gets a concept's label and names its ID.

    Args:
        kb: The installed KB to probe (go, doid, hpo, uberon, icd10, mesh, mondo…).
        per_bucket: K concepts per popularity bucket (select stratified).
        select: all, sample or stratified (default all; stratified with per_bucket).
        sample: Sample size of select=sample.
        n_buckets: Popularity buckets (paper and default: 50).
        invariance: PI methods to ask too (pi1, pi2, pi3).
        temperature: Temperature of the main run (paper and default: 0).
        seed: Seed of the selection, permutations and sampling.
        n_perm: Permutations per Spearman test.
        **kwargs: Any other field of ``RecallConfig``.
    """
    return _task("recall", _args(locals()))


@task
def genebench(
    per_type: int | None = None,
    tasks: list[str] | None = None,
    genes: int | None = None,
    permutations: str | None = None,
    paper_size: bool | None = None,
    temperature: float | None = None,
    seed: int | None = None,
    lenient: bool | None = None,
    n_perm: int | None = None,
    **kwargs: Any,
) -> Task:
    """SciHorizon-GENE: questions built from curated gene records, every cyclic rotation of the options.

    Args:
        per_type: Questions per task and stratum (default 2).
        tasks: Question tasks to build (default all).
        genes: Draw the questions from this many random genes.
        permutations: cyclic (every rotation, the paper's) or none.
        paper_size: Build the paper's numbers of questions.
        temperature: Sampling temperature (paper and default: 0).
        seed: Seed of building, sampling and permutation tests.
        lenient: Lenient reply checking (default strict, App. B).
        n_perm: Permutations of the attention Spearman test.
        **kwargs: Any other field of ``GenebenchConfig``.
    """
    return _task("genebench", _args(locals()))


_OWN = ("census", "recall", "genebench")


def _plug_in_task(name: str) -> None:
    """Register ``knowsum/<name>`` for a plug-in instrument: its task arguments are its Config's fields."""

    def make(**kwargs: Any) -> Task:
        return _task(name, kwargs)

    make.__name__ = make.__qualname__ = name
    make.__doc__ = f"The {name} instrument (a knowsum plug-in) as an inspect task."
    task(name=name)(make)


def register_plug_ins() -> list[str]:
    """Register ``knowsum/<name>`` for every plug-in instrument installed (done when this module is
    imported); returns their names. A plug-in that fails to load is reported (a warning naming it
    and why) and knowsum's own tasks stay usable."""
    try:
        names = [n for n in instruments() if n not in _OWN]
    except KnowsumError as exc:
        logging.getLogger(__name__).warning("knowsum: plug-in instruments not registered as tasks: %s", exc)
        return []
    for name in names:
        _plug_in_task(name)
    return names


register_plug_ins()
