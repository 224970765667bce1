"""The one caveat type: what makes a figure say less than it seems, from the estimator to every page.

A :class:`Caveat` carries a kind (a stable name: :class:`CaveatKind` for the statistics layer's
kinds, any short name for an instrument's own), the short mark every surface prints beside the figure
(:data:`CAVEAT_MARKS` for the statistics kinds), a sentence saying why and what to do, and the figure
it qualifies. The estimators (``knowsum.stats``) return them; an instrument keeps them in its record
(``Record.caveats``, ``Measure.caveats``) as they are; every table, page, card, ``--json`` and inspect
log prints them from there, never re-deriving one. Records written before this type was shared
(``CaveatNote`` objects of the same four fields) load unchanged.

When each statistics kind is raised is documented in :mod:`knowsum.stats.caveats`. This module
imports no other knowsum package, so that the statistics layer (which imports nothing else of
knowsum) and the record layer can both hold the same type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CAVEAT_MARKS", "NOTE", "Caveat", "CaveatKind", "as_notes", "unique_caveats"]


class CaveatKind(StrEnum):
    """What a caveat is about (the value is its stable name in records and ``--json``)."""

    TINY_SAMPLE = "tiny-sample"
    NO_SINGLETONS = "no-singletons"
    ALL_SINGLETONS = "all-singletons"
    CLAMPED = "clamped"
    CAPPED = "capped"
    INTERVAL_NA = "interval-na"
    BEYOND_RANGE = "beyond-range"
    BEYOND_2N = "beyond-2n"
    HILL_ORDER = "hill-order"
    SHARED_ABOVE_OWN = "shared-above-own"
    HORIZON = "beyond-horizon"
    OWN_T = "own-t-error"


CAVEAT_MARKS: Mapping[CaveatKind, str] = MappingProxyType(
    {
        CaveatKind.TINY_SAMPLE: "tiny sample",
        CaveatKind.NO_SINGLETONS: "no singletons",
        CaveatKind.ALL_SINGLETONS: "all singletons",
        CaveatKind.CLAMPED: "Û clamped at 0",
        CaveatKind.CAPPED: "Û capped at t·n",
        CaveatKind.INTERVAL_NA: "interval n/a",
        CaveatKind.BEYOND_RANGE: "beyond supported range",
        CaveatKind.BEYOND_2N: "beyond 2n",
        CaveatKind.HILL_ORDER: "Hill numbers out of order",
        CaveatKind.SHARED_ABOVE_OWN: "shared above own richness",
        CaveatKind.HORIZON: "beyond back-tested horizon",
        CaveatKind.OWN_T: "simulated error at own t",
    }
)
"""The short mark every surface prints for each kind (one per kind)."""

NOTE = "note"
"""The kind of a note on how a figure compares (a smaller budget than the paper's, another release
of the knowledge base): said beside a comparison, never marked on the value (:func:`as_notes`)."""


class Caveat(BaseModel):
    """One reason a figure says less than it seems.

    ``Caveat(CaveatKind.CLAMPED, "Û clamped at 0: …", "Û(t)")`` takes the mark of a statistics kind from
    :data:`CAVEAT_MARKS`; an instrument's own kind names its mark: ``Caveat(kind="odd-replies",
    mark="odd replies", message="…")``. The kind is stored as a plain string (its stable name).

    Attributes:
        kind: What it is about (the stable name: ``tiny-sample``, ``clamped``, an instrument's own…).
        mark: The short mark printed beside the figure (``tiny sample``, ``beyond 2n``…).
        message: Why, and what to do (one or two sentences, starting with the mark).
        figure: The figure it qualifies (``Û(t)``, ``interval``, ``q=2``, ``at size 1e+09``…), or
            ``""`` for the whole result.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: str = Field(
        description="stable name of the kind (knowsum.caveats.CaveatKind): tiny-sample, clamped…"
    )
    mark: str = Field(description="the short mark printed beside the figure: 'tiny sample', 'beyond 2n'…")
    message: str = Field(description="why, and what to do")
    figure: str = Field("", description="the figure it qualifies ('' = the whole result)")

    def __init__(self, kind: str, message: str, figure: str = "", *, mark: str | None = None) -> None:
        """Build a caveat; ``mark`` defaults to the mark of a :class:`CaveatKind`.

        Raises:
            ValueError: ``kind`` is not a :class:`CaveatKind` and no ``mark`` is given.
        """
        if mark is None:
            if kind not in CAVEAT_MARKS:
                raise ValueError(
                    f"caveat kind {kind!r} has no standard mark: pass mark='…' (the short text pages print)"
                )
            mark = CAVEAT_MARKS[CaveatKind(kind)]
        super().__init__(kind=str(kind), mark=mark, message=message, figure=figure)

    @classmethod
    def of(cls, caveat: Any, figure: str | None = None) -> Caveat:
        """The caveat with the fields of ``caveat`` (a caveat, or anything with the attributes ``kind``,
        ``mark``, ``message`` and ``figure``, read by name); ``figure`` overrides the figure it names.

        Raises:
            pydantic.ValidationError: ``caveat`` lacks one of those fields (a programming error).
        """
        same = cls.model_validate(caveat, from_attributes=True)
        return same if figure is None else same.model_copy(update={"figure": figure})


def unique_caveats(*groups: Iterable[Any] | None) -> list[Caveat]:
    """Every caveat of ``groups`` (iterables of caveats, or of objects with their fields), each
    ``(kind, message)`` once, in order of first appearance."""
    out: dict[tuple[str, str], Caveat] = {}
    for group in groups:
        for caveat in group or ():
            found = Caveat.of(caveat)
            out.setdefault((found.kind, found.message), found)
    return list(out.values())


def as_notes(items: Iterable[str | Any]) -> list[Caveat]:
    """``items`` as caveats: a sentence becomes a :data:`NOTE` (mark ``note``); a caveat, or an object
    with its fields, is kept (:meth:`Caveat.of`)."""
    return [Caveat(NOTE, item, mark=NOTE) if isinstance(item, str) else Caveat.of(item) for item in items]
