"""Census tasks: prompt template + decoder + verifier + clustering key, built in or custom.

Built-in tasks (KnowSum §4, App. B):

========================  ==========================================================  ============
task                      verifier / cluster key                                      N_ans
========================  ==========================================================  ============
``diseases``              DOID names + synonyms, fuzzy 0.9 → DOID (strict: disease    50
                          of anatomical entity DOID:7; relaxed: any DOID disease)
``theorems``              theorem list KB → Wikidata ID (strict: name contains        20
                          "theorem"; relaxed: one of 12 concept words)
``ontology:KB``           any installed ontology → its ID (optional namespace)        20
``diversity``             none; embedding clusters (``:applications``,                 1
                          ``:dream-jobs``)
``custom``                from the config: prompt, decoder/separator, kb, criterion   config
========================  ==========================================================  ============
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from knowsum.census import _prompts as prompts
from knowsum.census._config import CensusConfig
from knowsum.census._words import WORD_FORMS
from knowsum.errors import ConfigError, UnknownNameError
from knowsum.models import GenerationParams, Request, make_requests

if TYPE_CHECKING:
    from knowsum.kb import Ontology

__all__ = ["BUILTIN_TASKS", "CONCEPT_WORDS", "Task", "TaskKind", "census_requests", "resolve_task"]

TaskKind = Literal["diseases", "theorems", "ontology", "diversity", "text"]

CONCEPT_WORDS: tuple[str, ...] = tuple(WORD_FORMS)
"""The 12 math-concept words of the relaxed theorem criterion (KnowSum §4.1, App. B.4), in the
paper's order; their accepted word forms are :data:`knowsum.census._words.WORD_FORMS`."""

BUILTIN_TASKS = ("diseases", "theorems", "ontology:KB", "diversity", "diversity:dream-jobs", "custom")


@dataclass(frozen=True, slots=True)
class Task:
    """A resolved census task.

    Attributes:
        name: Task name as given (``diseases``, ``ontology:go``…).
        kind: Which verifier and clustering apply.
        prompt: The rendered prompt (``{n}`` replaced by ``answers``).
        answers: Answers requested per query (``N_ans``).
        decoder: ``lines``, ``comma`` or ``whole``.
        separator: Custom item separator, or ``None``.
        kb: Knowledge base of the verifier, or ``None`` (diversity, unverified custom tasks).
        namespace: Keep only KB terms of this namespace (``None`` = all).
        name_words: Strict rule of custom tasks: the canonical name contains one of these words.
        max_tokens: Token budget per response.
        vocabulary: A plug-in task's verifier vocabulary (``None``: the ``kb`` is an installed one).
    """

    name: str
    kind: TaskKind
    prompt: str
    answers: int
    decoder: str
    separator: str | None
    kb: str | None
    namespace: str | None
    name_words: tuple[str, ...]
    max_tokens: int
    vocabulary: Callable[[], Ontology] | None = None


def _tokens(answers: int, per_answer: int) -> int:
    return min(8192, 48 + per_answer * answers)


def _diversity_prompt(variant: str) -> str:
    table = {"applications": prompts.LLM_APPLICATIONS_PROMPT, "dream-jobs": prompts.DREAM_JOBS_PROMPT}
    if variant not in table:
        raise UnknownNameError("diversity prompt", variant, list(table))
    return table[variant]


def _plugin_task(cfg: CensusConfig) -> Task:
    """A task an installed package registers (:class:`knowsum.census.CensusTask`), with the config's
    answers, prompt, decoder and max_tokens overrides."""
    from knowsum.census._plugins import broken_tasks, plugin_tasks

    found = plugin_tasks()
    spec = found.get(cfg.task)
    if spec is None:
        if (why := broken_tasks().get(cfg.task)) is not None:
            raise ConfigError(why)
        raise UnknownNameError("census task", cfg.task, [*BUILTIN_TASKS, *found])
    n = cfg.answers or spec.answers
    return Task(
        name=spec.name,
        kind="ontology",
        prompt=prompts.render(cfg.prompt or spec.prompt, n),
        answers=n,
        decoder=cfg.decoder or spec.decoder,
        separator=cfg.separator,
        kb=spec.name,
        namespace=cfg.namespace,
        name_words=tuple(w.lower() for w in (cfg.name_words or spec.name_words)),
        max_tokens=cfg.max_tokens or _tokens(n, spec.tokens_per_answer),
        vocabulary=spec.vocabulary,
    )


def resolve_task(cfg: CensusConfig) -> Task:
    """Resolve ``cfg.task`` (and the config's prompt/decoder/kb overrides) to a :class:`Task`.

    Raises:
        UnknownNameError: an unknown task or KB name (lists the known ones).
        ConfigError: a custom task without a prompt, or ``ontology:`` without a KB.
    """
    name, _, arg = cfg.task.partition(":")
    simple = cfg.prompt_variant == "simple"
    if simple and (name not in ("diseases", "theorems") or arg):
        raise ConfigError(
            f"prompt_variant 'simple' exists for diseases and theorems only (App. B.2), not {cfg.task!r}"
        )
    if name == "diseases":
        n = cfg.answers or 50
        kind: TaskKind = "diseases"
        template = prompts.DISEASES_SIMPLE_PROMPT if simple else prompts.DISEASES_PROMPT
        decoder, kb, per = "lines", "doid", 22
    elif name == "theorems":
        n = cfg.answers or 20
        template = prompts.THEOREMS_SIMPLE_PROMPT if simple else prompts.THEOREMS_PROMPT
        kind, decoder, kb, per = "theorems", "comma", "theorems", 10
    elif name == "ontology":
        from knowsum.kb import KB_NAMES, KBS

        if not arg:
            raise ConfigError("task 'ontology:KB' needs a knowledge base, e.g. ontology:go")
        if arg not in KB_NAMES or KBS[arg].is_genes:
            raise UnknownNameError("ontology", arg, [k for k in KB_NAMES if not KBS[k].is_genes])
        n = cfg.answers or 20
        subject, source = prompts.ontology_subject(arg, KBS[arg].description)
        template = prompts.render(prompts.ONTOLOGY_PROMPT, n, subject=subject, source=source)
        kind, decoder, kb, per = "ontology", "lines", arg, 14
    elif name == "diversity":
        n = cfg.answers or 1
        template = _diversity_prompt(arg or "applications")
        kind, decoder, kb, per = "diversity", "whole", None, 80
    elif name == "custom" and not arg:
        if not cfg.prompt:
            raise ConfigError("task 'custom' needs prompt = \"...\" in the config (use {n} for the count)")
        n = cfg.answers or 20
        template, decoder, kb, per = cfg.prompt, cfg.decoder or "lines", cfg.kb, 14
        kind = "ontology" if kb else "text"
        if kb is not None:
            from knowsum.kb import KB_NAMES

            if kb not in KB_NAMES:
                raise UnknownNameError("knowledge base", kb, list(KB_NAMES))
    else:
        return _plugin_task(cfg)
    if cfg.prompt and name != "custom":
        template = cfg.prompt
    if cfg.decoder and name != "custom":
        decoder = cfg.decoder
    if name == "diversity" and n != 1:
        per = per * n
    return Task(
        name=cfg.task,
        kind=kind,
        prompt=prompts.render(template, n),
        answers=n,
        decoder=decoder,
        separator=cfg.separator,
        kb=kb,
        namespace=cfg.namespace,
        name_words=tuple(w.lower() for w in cfg.name_words),
        max_tokens=cfg.max_tokens or _tokens(n, per),
    )


def census_requests(
    config: CensusConfig, task: Task, *, start: int = 0, n: int | None = None
) -> list[Request]:
    """The census's requests: draws ``start … start+n−1`` (default all ``config.queries``) of the
    task's one prompt — what :func:`run_census` sends and what a profile's plan counts."""
    params = GenerationParams(
        temperature=config.temperature, top_p=config.top_p, max_tokens=task.max_tokens, seed=config.seed
    )
    return make_requests([task.prompt], params, n=config.queries if n is None else n, start=start)
