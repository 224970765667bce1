"""Census tasks from other packages: a :class:`CensusTask` registered under ``knowsum.census_tasks``.

A task is what KnowSum needs to count a kind of item (Li et al. 2025, Algorithm 1): the prompt that
asks for ``{n}`` items, how a reply splits into items (the decoder), the vocabulary that verifies an
item and names its cluster (an :class:`knowsum.kb.Ontology`, built in memory or loaded), and the
strict criterion's name words. A package registers one in its ``pyproject.toml``::

    [project.entry-points."knowsum.census_tasks"]
    compounds = "knowsum_chem:COMPOUNDS"

Then ``knowsum census run compounds``, a budget's ``[census] tasks = ["compounds"]`` and
``knowsum census tasks`` know it; knowsum's own files do not change (``docs/plugins.md``). Its fields
are checked when it is made and when it is registered (:func:`check_task`); a task that fails the
check, fails to load or shadows a built-in is left out and named by :func:`broken_tasks`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from knowsum.errors import ConfigError

if TYPE_CHECKING:
    from knowsum.kb import Ontology

__all__ = [
    "CENSUS_TASKS",
    "DECODERS",
    "CensusTask",
    "TaskInfo",
    "broken_tasks",
    "check_task",
    "plugin_tasks",
    "task_catalogue",
]


@dataclass(frozen=True, slots=True)
class CensusTask:
    """A census task a package adds (module docstring).

    Attributes:
        name: The task's name (``census run NAME``); must be the entry point's name.
        description: One line for ``knowsum census tasks``.
        prompt: The prompt, with ``{n}`` for the number of items asked per query.
        vocabulary: Builds the verifier's vocabulary: an ontology whose term names and synonyms are
            matched (exact → normalized → fuzzy) and whose IDs are the cluster keys. Called once per run.
        answers: ``N_ans``, items asked per query.
        decoder: ``lines``, ``comma`` or ``whole`` (how a reply splits into items).
        tokens_per_answer: The token budget per item (``max_tokens = 48 + answers × this``).
        name_words: Under the strict criterion, a matched term's name must contain one of these.
    """

    name: str
    description: str
    prompt: str
    vocabulary: Callable[[], Ontology]
    answers: int = 20
    decoder: Literal["lines", "comma", "whole"] = "lines"
    tokens_per_answer: int = 14
    name_words: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        """Refuse a field a census could not run with, in one line naming it (:func:`check_task`)."""
        check_task(self)


DECODERS = ("lines", "comma", "whole")
"""How a reply may be split into items (:attr:`CensusTask.decoder`)."""


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def check_task(task: CensusTask) -> None:
    """Refuse a census task that would run wrong: a name that is not a text or shadows a built-in
    task, a prompt without ``{n}``, an unknown decoder, ``answers`` or ``tokens_per_answer`` not a
    whole number >= 1, a vocabulary that cannot be called, or name words that are not texts.

    Raises:
        ConfigError: one line naming the field and what to give.
    """
    from knowsum.census._tasks import BUILTIN_TASKS

    name = task.name
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"census task name {name!r}: give a non-empty text")
    if name in BUILTIN_TASKS or name.startswith(("ontology:", "diversity:")):
        raise ConfigError(f"census task {name!r} shadows knowsum's built-in task of that name: rename it")
    problems = {
        "description": isinstance(task.description, str),
        "prompt": isinstance(task.prompt, str) and "{n}" in task.prompt,
        "decoder": task.decoder in DECODERS,
        "answers": _count(task.answers),
        "tokens_per_answer": _count(task.tokens_per_answer),
        "vocabulary": callable(task.vocabulary),
        "name_words": isinstance(task.name_words, tuple) and all(isinstance(w, str) for w in task.name_words),
    }
    wanted = {
        "description": "a text",
        "prompt": "a text with {n} for the number of items asked",
        "decoder": f"one of {', '.join(DECODERS)}",
        "answers": "a whole number >= 1",
        "tokens_per_answer": "a whole number >= 1",
        "vocabulary": "a function returning an Ontology",
        "name_words": "a tuple of texts",
    }
    bad = next((field for field, ok in problems.items() if not ok), None)
    if bad is not None:
        raise ConfigError(f"census task {name!r}: invalid {bad}={getattr(task, bad)!r}: give {wanted[bad]}")


BUILTIN_DESCRIPTIONS = {
    "diseases": "human diseases, verified against the Disease Ontology (KnowSum §4.1)",
    "theorems": "mathematical theorems, verified against the theorem list (KnowSum §4.1)",
    "ontology:KB": "the terms of any installed ontology (knowsum kb list)",
    "diversity": "open-ended LLM applications, clustered by sentence embeddings (KnowSum §4.3)",
    "diversity:dream-jobs": "open-ended dream jobs, clustered by sentence embeddings",
    "custom": "a prompt, decoder and KB of one's own, from a census TOML (docs/census.md)",
}
"""One line per built-in task (``knowsum census tasks``)."""


@dataclass(frozen=True, slots=True)
class TaskInfo:
    """A census task as ``knowsum census tasks`` lists it: name, the package it comes from, what it counts."""

    name: str
    package: str
    version: str
    description: str


CENSUS_TASKS = "knowsum.census_tasks"
"""The entry-point group of census tasks (each entry a :class:`CensusTask`, named as the task)."""


def task_catalogue() -> tuple[list[TaskInfo], list[str]]:
    """Every usable census task — the built-in ones, then each installed package's — and one line per
    plug-in task that cannot be used (its package and why: :func:`broken_tasks`)."""
    from knowsum import __version__
    from knowsum.census._tasks import BUILTIN_TASKS
    from knowsum.instrument import installed

    out = [TaskInfo(t, "knowsum", __version__, BUILTIN_DESCRIPTIONS.get(t, "")) for t in BUILTIN_TASKS]
    tasks = plugin_tasks()
    out += [
        TaskInfo(i.name, i.package, i.version, tasks[i.name].description)
        for i in installed(CENSUS_TASKS)
        if i.name in tasks and tasks[i.name] is i.obj
    ]
    return out, list(broken_tasks().values())


def plugin_tasks() -> dict[str, CensusTask]:
    """The usable census tasks installed packages register, by name (a broken one is left out:
    :func:`broken_tasks`)."""
    from knowsum.instrument import plugins

    return plugins(CENSUS_TASKS, CensusTask, "knowsum.census.CensusTask", check_task)


def broken_tasks() -> dict[str, str]:
    """The plug-in census tasks that cannot be used, by name: one line each (package and why)."""
    from knowsum.instrument import broken

    return broken(CENSUS_TASKS, CensusTask, "knowsum.census.CensusTask", check_task)
