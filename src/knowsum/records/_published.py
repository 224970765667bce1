"""One value a paper published for a model: the one row type of every instrument's papers.

Every paper's table knowsum carries (KnowSum Table 1, Bombieri et al. Tables 1 and 3 and §6.3,
SciHorizon-GENE Table 2) is read into :class:`PublishedRow` values, one per (model, measure): the
instrument's ``published``, the card's points (``profile.json``) and the rows a ``compare
--published`` places beside the runs. Every surface marks one the same way (:func:`published_label`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from pydantic import ConfigDict
from pydantic.dataclasses import dataclass

__all__ = ["PublishedRow", "by_model", "published_label", "split_label"]


def published_label(model: str, paper: str, table: str) -> str:
    """How every table, figure and page marks a published row: ``GPT-4 · Bombieri et al. Table 1``.

    Args:
        model: The model as the paper names it.
        paper: The paper, short (``KnowSum``, ``Bombieri et al.``, ``SciHorizon-GENE``).
        table: Where in the paper (``Table 1``, ``Table 3(a)``); ``""``: the paper only.
    """
    return f"{model} · {paper} {table}".rstrip()


_WHERE = re.compile(r"^(?P<paper>.+?) (?P<table>(?:Table|Figure|Fig\.|§)\S*(?: .*)?)$")
"""``PAPER TABLE`` of a label: the table starts at its first ``Table``, ``Figure``, ``Fig.`` or ``§``."""


def split_label(label: str, model: str) -> tuple[str, str]:
    """``(paper, table)`` of a :func:`published_label` of ``model`` (a record that stored the label
    only); a label with no table word is all paper, so :func:`published_label` gives it back as it was.
    """
    rest = label.removeprefix(f"{model} · ")
    found = _WHERE.match(rest)
    return (found["paper"], found["table"]) if found else (rest, "")


@dataclass(frozen=True, config=ConfigDict(extra="forbid"))
class PublishedRow:
    """One value a paper published for a model, on one measure.

    Attributes:
        model: The model as the paper names it.
        paper: The paper, short (``KnowSum``, ``Bombieri et al.``, ``SciHorizon-GENE``).
        table: Where in the paper (``Table 1``, ``§6.3``).
        measure: The instrument's measure key it sits beside (``diseases/relaxed/n_total``).
        value: The published value (a fraction where the paper printed a percentage).
    """

    model: str
    paper: str
    table: str
    measure: str
    value: float

    @property
    def label(self) -> str:
        """How every surface marks it: ``GPT-4 · Bombieri et al. Table 1`` (:func:`published_label`)."""
        return published_label(self.model, self.paper, self.table)


def by_model(rows: Iterable[PublishedRow]) -> dict[str, dict[str, float]]:
    """A paper's table back from its rows: model → measure → value, in the rows' order."""
    out: dict[str, dict[str, float]] = {}
    for row in rows:
        out.setdefault(row.model, {})[row.measure] = row.value
    return out
