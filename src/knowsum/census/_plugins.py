"""Census tasks from other packages: a :class:`CensusTask` registered under ``knowsum.census_tasks``.

A task is what KnowSum needs to count a kind of item (Li et al. 2025, Algorithm 1): the prompt that
asks for ``{n}`` items, how a reply splits into items (the decoder), the vocabulary that verifies an
item and names its cluster (an :class:`knowsum.kb.Ontology`, built in memory or loaded), and the
strict criterion's name words. A package registers one in its ``pyproject.toml``::

    [project.entry-points."knowsum.census_tasks"]
    elements = "knowsum_elements:ELEMENTS"

Then ``knowsum census run elements``, a budget's ``[census] tasks = ["elements"]`` and
``knowsum census tasks`` know it; knowsum's own files do not change (``docs/plugins.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from knowsum.errors import ConfigError

if TYPE_CHECKING:
    from knowsum.kb import Ontology

__all__ = ["CensusTask", "plugin_tasks"]


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


def plugin_tasks() -> dict[str, CensusTask]:
    """The census tasks installed packages register, by name.

    Raises:
        ConfigError: an entry does not load or is not a :class:`CensusTask`.
    """
    from knowsum.instrument import CENSUS_TASKS, installed

    out: dict[str, CensusTask] = {}
    for item in installed(CENSUS_TASKS):
        if not isinstance(item.obj, CensusTask):
            raise ConfigError(
                f"plug-in {item.name!r} ({CENSUS_TASKS}, package {item.package}: {item.target}) is not a "
                "knowsum.census.CensusTask"
            )
        out[item.name] = item.obj
    return out
