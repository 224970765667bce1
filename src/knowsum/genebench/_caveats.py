"""The caveats of a genebench result that its cells and records call for (beside :mod:`._aggregate`'s
``summary-input-cut`` and ``type-partial``).

Each is a typed :class:`~knowsum.records.Caveat` kept in ``GenebenchRecord.caveats``, so every surface
— the terminal summary, ``--json``, the report page, ``genebench compare`` (the run's row is marked)
and the profile card — renders it from the record:

=====================  ==================================================================================
``go-not-scored``      GO questions whose gold maps to no GO term: no reference set, so they are left out
                       of their cell and counted (CAFA scores annotated proteins only; beyond App. D)
``go-gold-unmapped``   gold GO descriptions no GO term maps to: left out of the reference, so recall is
                       over the mapped ones only
``options-mixed``      a cell whose choice questions have different option counts: mean per question,
                       no std over rotations (:func:`._aggregate._per_rotation`)
``unanswered``         instances a prediction file left unanswered, scored as wrong (``--allow-missing``)
=====================  ==================================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from knowsum.genebench._score import UNANSWERED
from knowsum.genebench.record import GenebenchScores, InstanceRecord
from knowsum.records import Caveat

__all__ = [
    "GO_GOLD_UNMAPPED",
    "GO_NOT_SCORED",
    "OPTIONS_MIXED",
    "UNANSWERED_KIND",
    "result_caveats",
]

GO_NOT_SCORED = "go-not-scored"
GO_GOLD_UNMAPPED = "go-gold-unmapped"
OPTIONS_MIXED = "options-mixed"
UNANSWERED_KIND = "unanswered"


def _go(scores: GenebenchScores, release: str) -> list[Caveat]:
    cells = [c for c in scores.cells if c.metric == "CAFA macro F1"]
    return [
        c
        for c in (
            _counted(
                cells,
                "not_scored",
                GO_NOT_SCORED,
                "GO not scored",
                lambda n, where: (
                    f"{n} GO question(s) whose gold maps to no GO term of GO {release} ({where}) have no "
                    "reference set, so no precision or recall; they are left out of the Gene Ontology "
                    "cells (CAFA scores annotated proteins only), not scored 1 or 0"
                ),
            ),
            _counted(
                cells,
                "gold_unmapped",
                GO_GOLD_UNMAPPED,
                "gold GO unmapped",
                lambda n, where: (
                    f"{n} gold GO description(s) map to no term of GO {release} ({where}); they are left "
                    "out of the reference, so recall and F1 are over the mapped gold terms only (install "
                    "the GO release the questions were made with)"
                ),
            ),
        )
        if c is not None
    ]


def _counted(
    cells: list[Any], key: str, kind: str, what: str, why: Callable[[int, str], str]
) -> Caveat | None:
    """The caveat ``N WHAT`` of the count ``key`` the GO cells keep (``None`` when every count is 0)."""
    counts = {c.key: int(c.extra.get(key) or 0) for c in cells}
    n = sum(counts.values())
    if not n:
        return None
    where = ", ".join(f"{k} {v}" for k, v in counts.items() if v)
    message = f"{n} {what}: {why(n, where)}"
    return Caveat(kind=kind, mark=f"{n} {what}", message=message, figure="knowledge/go_annotation")


def _mixed(scores: GenebenchScores) -> list[Caveat]:
    keys = [c for c in scores.cells if c.extra.get("options_mixed")]
    return [
        Caveat(
            kind=OPTIONS_MIXED,
            mark=f"{c.key} mixed option counts",
            message=(
                f"{c.key} mixed option counts: {c.label} holds choice questions with different "
                "numbers of options, so they were asked in different rotations; its score is the mean over "
                "questions of each question's mean over its own rotations (eq. 1 per question), with no "
                "std over rotations"
            ),
            figure=f"knowledge/{c.knowledge}",
        )
        for c in keys
    ]


def _unanswered(records: Sequence[InstanceRecord]) -> list[Caveat]:
    n = sum(1 for r in records if (r.format_error or "").startswith(UNANSWERED))
    if not n:
        return []
    return [
        Caveat(
            kind=UNANSWERED_KIND,
            mark=f"{n} unanswered",
            message=(
                f"{n} unanswered: {n} of {len(records)} instances had no prediction and are scored as wrong "
                "(--allow-missing); a low cell may be unanswered questions, not wrong answers"
            ),
        )
    ]


def result_caveats(
    records: Sequence[InstanceRecord], scores: GenebenchScores, go_release: str = ""
) -> list[Caveat]:
    """Every caveat of this module that ``records`` and their ``scores`` call for (module docstring)."""
    return [
        *_go(scores, go_release or "installed"),
        *_mixed(scores),
        *_unanswered(records),
    ]
