"""Runs side by side in the paper's layout: Table 2 (knowledge types + overall), Tables 5–6 (cells).

With ``published``, the paper's own Table 2 rows (:mod:`._published`) join Table 2 as reference rows
marked ``GPT-5 · SciHorizon-GENE Table 2`` (:func:`knowsum.records.published_label`); they are scores
of the authors' question set and models, not of this run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knowsum.genebench._published import PAPER as TABLE2_PAPER
from knowsum.genebench._published import PUBLISHED, PUBLISHED_SOURCE, TABLE, printed
from knowsum.genebench._schema import KNOWLEDGE
from knowsum.genebench.record import KNOWLEDGE_TITLES, PERSPECTIVES, GenebenchRecord
from knowsum.records import by_model, published_label
from knowsum.report import marked

__all__ = [
    "KNOWLEDGE_TITLES",
    "PAPER",
    "PERSPECTIVES",
    "compare_numbers",
    "compare_tables",
    "paper_label",
    "perspective_scores",
]

#: How a published row names its source (:func:`knowsum.records.published_label`).
PAPER = (TABLE2_PAPER, TABLE)


def paper_label(model: str) -> str:
    """The name of a published Table 2 row: ``GPT-5 · SciHorizon-GENE Table 2``."""
    return published_label(model, *PAPER)


def _table2() -> list[tuple[str, float, dict[str, float | None]]]:
    """The paper's Table 2 from its rows: ``(printed model, overall, knowledge type → value)``."""
    return [
        (printed(model), vals["overall"], {k: vals.get(f"knowledge/{k}") for k in KNOWLEDGE})
        for model, vals in by_model(PUBLISHED).items()
    ]


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def _pm(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "-"
    return _pct(mean) if std is None else f"{_pct(mean)} ± {_pct(std)}"


def perspective_scores(result: GenebenchRecord) -> dict[str, float | None]:
    """Mean of the cells of each perspective (``None`` when none was asked)."""
    return result.perspective_means()


def compare_tables(
    results: Sequence[GenebenchRecord], *, published: bool = False
) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, headers, rows)`` tables: Table 2, the cells of Tables 5–6, and the perspectives.

    Args:
        results: The runs.
        published: Add the paper's Table 2 rows to Table 2 (marked :func:`paper_label`), by overall.
    """
    order = sorted(results, key=lambda r: -(r.scores.overall or 0.0))
    t2_headers = ["model", *(KNOWLEDGE_TITLES[k] for k in KNOWLEDGE), "Overall"]
    ranked: list[tuple[float, list[Any]]] = [
        (
            r.scores.overall or 0.0,
            [
                marked(r.model, r.caveats),
                *(_pct(r.scores.knowledge.get(k)) for k in KNOWLEDGE),
                _pct(r.scores.overall),
            ],
        )
        for r in order
    ]
    if published:
        ranked += [
            (overall, [paper_label(model), *(_pct(know[k]) for k in KNOWLEDGE), _pct(overall)])
            for model, overall, know in _table2()
        ]
    t2 = [row for _, row in sorted(ranked, key=lambda x: -x[0])]
    t2_title = "Overall results (Table 2; %, equal mean of the knowledge types)"
    if published:
        t2_title += f"; {' '.join(PAPER)} rows: {PUBLISHED_SOURCE}, the authors' question set"
    keys: list[str] = []
    labels: dict[str, str] = {}
    for r in order:
        for c in r.scores.cells:
            if c.key not in labels:
                keys.append(c.key)
                labels[c.key] = c.label
    cells = [
        [
            labels[k],
            *(
                _pm(*next(((c.mean, c.std) for c in r.scores.cells if c.key == k), (None, None)))
                for r in order
            ),
        ]
        for k in keys
    ]
    persp = [[name, *(_pct(perspective_scores(r).get(name)) for r in order)] for name in PERSPECTIVES]
    models = [marked(r.model, r.caveats) for r in order]
    return [
        (t2_title, t2_headers, t2),
        ("Cells (Tables 5–6; %, mean ± std over cyclic rotations)", ["cell", *models], cells),
        ("Perspectives (Fig. 9; %, mean of their cells)", ["perspective", *models], persp),
    ]


def compare_numbers(results: Sequence[GenebenchRecord], *, published: bool = False) -> dict[str, Any]:
    """The numbers of :func:`compare_tables` as one JSON-ready object (fractions, ``None``: not asked).

    ``runs``: per run the model, overall, knowledge types, perspectives and cell means;
    ``published`` (with ``published``): the paper's Table 2 rows, named by :func:`paper_label`.
    """
    out: dict[str, Any] = {
        "runs": [
            {
                "model": r.model,
                "overall": r.scores.overall,
                "knowledge": dict(r.scores.knowledge),
                "perspectives": perspective_scores(r),
                "cells": {c.key: c.mean for c in r.scores.cells},
            }
            for r in results
        ]
    }
    if published:
        out["published"] = [
            {"model": paper_label(model), "overall": overall, "knowledge": know}
            for model, overall, know in _table2()
        ]
        out["published_source"] = PUBLISHED_SOURCE
    return out
