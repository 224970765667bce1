"""Census tasks from other packages: a :class:`CensusTask` registered under ``knowsum.census_tasks``.

A task is what KnowSum needs to count a kind of item (Li et al. 2025, Algorithm 1): the prompt that
asks for ``{n}`` items, how a reply splits into items (the decoder), the vocabulary that verifies an
item and names its cluster (an :class:`knowsum.kb.Ontology`, built in memory or loaded), and the
strict criterion's name words. A package registers one in its ``pyproject.toml``::

    [project.entry-points."knowsum.census_tasks"]
    compounds = "knowsum_chem:COMPOUNDS"

Then ``knowsum census run compounds``, a budget's ``[census] tasks = ["compounds"]`` and
``knowsum census tasks`` know it; knowsum's own files do not change (``docs/plugins.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from knowsum.kb import Ontology

__all__ = ["CensusTask", "TaskInfo", "plugin_tasks", "task_catalogue"]


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


def task_catalogue() -> list[TaskInfo]:
    """Every census task: the built-in ones, then each installed package's.

    Raises:
        ConfigError: a plug-in does not load or is not a :class:`CensusTask`.
    """
    from knowsum import __version__
    from knowsum.census._tasks import BUILTIN_TASKS
    from knowsum.instrument import CENSUS_TASKS, installed

    out = [TaskInfo(t, "knowsum", __version__, BUILTIN_DESCRIPTIONS.get(t, "")) for t in BUILTIN_TASKS]
    tasks = plugin_tasks()
    return out + [
        TaskInfo(i.name, i.package, i.version, tasks[i.name].description) for i in installed(CENSUS_TASKS)
    ]


def plugin_tasks() -> dict[str, CensusTask]:
    """The census tasks installed packages register, by name.

    Raises:
        ConfigError: an entry does not load or is not a :class:`CensusTask`.
    """
    from knowsum.instrument import CENSUS_TASKS, plugins

    return plugins(CENSUS_TASKS, CensusTask, "knowsum.census.CensusTask")
