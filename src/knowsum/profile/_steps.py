"""A budget turned into instrument runs (:class:`Step`) and the exact requests each will send.

Each step is an ordinary run of one instrument, written to ``OUT/<step name>``:

- census: one run per task and criterion, ``census-<task>-<criterion>``; the criteria of a task
  share their responses (the prompt and sampling do not depend on the criterion), so the second
  criterion asks the model nothing;
- recall: ``recall-<kb>`` on a popularity-stratified sample (K concepts per bucket; a random
  sample of K × buckets concepts for a KB without a popularity table, ICD-10) or on every label,
  and ``recall-<kb>-invariance`` with PI-1/2/3 on ``invariance_per_bucket`` concepts per bucket
  (its temperature-0 answers are the main run's when the concepts overlap);
- genebench: ``genebench-balanced`` (``per_type`` questions per stratum) or ``genebench-paper``.

:func:`step_requests` rebuilds the requests exactly as the instrument's entry point does (same
prompts, parameters and sample indices, hence the same store keys), so a plan can count what is
stored and what is still to ask.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

from knowsum.census import CensusConfig, resolve_task
from knowsum.genebench import (
    QUESTION_TYPES,
    GenebenchConfig,
    build_from_kb,
    instances_of,
    messages,
    token_budgets,
)
from knowsum.kb import POPULARITY_FILES, Ontology, load_ontology
from knowsum.models import GenerationParams, Request, make_requests
from knowsum.profile._budget import Budget
from knowsum.recall import RecallConfig, invariance_requests, prepare, render_prompt

__all__ = ["Instrument", "Step", "plan_steps", "step_requests"]

Instrument = Literal["census", "recall", "genebench"]
Config = CensusConfig | RecallConfig | GenebenchConfig


@dataclass(frozen=True, slots=True)
class Step:
    """One instrument run of a profile: which instrument, its folder name and its configuration."""

    instrument: Instrument
    name: str
    config: Config
    label: str


def _census(budget: Budget) -> Iterator[Step]:
    b = budget.census
    if b is None:
        return
    for task in b.tasks:
        for criterion in b.criteria:
            cfg = CensusConfig(
                task=task,
                queries=b.queries_of(task),
                answers=b.answers_of(task),
                n_bootstrap=b.n_bootstrap,
                criterion=criterion,
                seed=b.seed,
            )
            yield Step("census", f"census-{task}-{criterion}", cfg, f"census {task} ({criterion})")


def _selection(kb: str, per_bucket: int, n_buckets: int) -> dict[str, Any]:
    """K concepts per popularity bucket where the KB has a popularity table; elsewhere (ICD-10) a
    random sample of the same size, K × buckets (no buckets, so no popularity ρ)."""
    if kb in POPULARITY_FILES:
        return {"select": "stratified", "per_bucket": per_bucket}
    return {"select": "sample", "sample": per_bucket * n_buckets}


def _recall(budget: Budget) -> Iterator[Step]:
    b = budget.recall
    if b is None:
        return
    common = {"n_buckets": b.n_buckets, "n_perm": b.n_perm, "seed": b.seed}
    for kb in b.kbs:
        if b.select == "all":
            cfg = RecallConfig(kb=kb, select="all", **common)
        else:
            cfg = RecallConfig(kb=kb, **_selection(kb, b.per_bucket, b.n_buckets), **common)
        yield Step("recall", f"recall-{kb}", cfg, f"recall {kb}")
        if b.invariance and kb in b.invariance_kbs:
            sel = _selection(kb, b.invariance_per_bucket, b.n_buckets)
            inv = RecallConfig(kb=kb, invariance=b.invariance, **sel, **common)
            yield Step("recall", f"recall-{kb}-invariance", inv, f"recall {kb} invariance")


def _genebench(budget: Budget) -> Iterator[Step]:
    b = budget.genebench
    if b is None:
        return
    cfg = GenebenchConfig(
        per_type=b.per_type,
        paper_size=b.paper_size,
        permutations=b.permutations,
        n_perm=b.n_perm,
        seed=b.seed,
        expression=b.expression,
        summaries=b.summaries,
        abstracts=b.abstracts,
    )
    name = "genebench-paper" if b.paper_size else "genebench-balanced"
    yield Step("genebench", name, cfg, name.replace("-", " "))


def plan_steps(budget: Budget) -> list[Step]:
    """The instrument runs of ``budget``, census then recall then genebench.

    Raises:
        ConfigError: an instrument refuses a setting (the message names it).
    """
    return [*_census(budget), *_recall(budget), *_genebench(budget)]


def _census_requests(cfg: CensusConfig) -> list[Request]:
    task = resolve_task(cfg)
    params = GenerationParams(
        temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=task.max_tokens, seed=cfg.seed
    )
    return make_requests([task.prompt], params, n=cfg.queries)


def _recall_requests(cfg: RecallConfig, ontologies: dict[str, Ontology]) -> list[Request]:
    if cfg.kb not in ontologies:
        ontologies[cfg.kb] = load_ontology(cfg.kb)
    concepts = prepare(cfg, ontologies[cfg.kb])[0]
    params = GenerationParams(temperature=cfg.temperature, max_tokens=cfg.tokens, seed=cfg.seed)
    out = [
        Request(prompt=render_prompt(cfg.kb, c.label, cfg.api, template=cfg.template), params=params)
        for c in concepts
    ]
    for method in cfg.invariance:
        out += [r for reqs in invariance_requests(cfg, method, concepts)[1] for r in reqs]
    return out


def _genebench_requests(cfg: GenebenchConfig) -> list[Request]:
    questions, _ = build_from_kb(cfg)
    pairs = instances_of(questions, cfg.permutations)
    budgets = {t: cfg.tokens(t, token_budgets(questions)) for t in QUESTION_TYPES}
    return [
        Request(
            messages=messages(q, r or 0),
            params=GenerationParams(
                temperature=cfg.temperature, top_p=1.0, max_tokens=budgets[q.question_type], seed=cfg.seed
            ),
        )
        for q, r in pairs
    ]


def step_requests(step: Step, ontologies: dict[str, Ontology] | None = None) -> list[Request]:
    """The requests ``step``'s run sends, as its entry point builds them (loads the step's KB).

    Args:
        step: The step.
        ontologies: KB name → loaded ontology, shared between the steps of one plan (filled here).

    Raises:
        KBNotInstalledError: the step's knowledge base is not installed (says the install command).
    """
    cfg = step.config
    if isinstance(cfg, CensusConfig):
        return _census_requests(cfg)
    if isinstance(cfg, RecallConfig):
        return _recall_requests(cfg, {} if ontologies is None else ontologies)
    return _genebench_requests(cfg)
