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
from knowsum.stats.caveats import caveat_dicts

__all__ = [
    "KNOWLEDGE_TITLES",
    "PAPER",
    "PAPER_PROTOCOL",
    "PERSPECTIVES",
    "SUMMARY_NOT_PAPER",
    "compare_numbers",
    "compare_tables",
    "paper_differences",
    "paper_label",
    "perspective_scores",
    "ranked",
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


#: How the paper asked and read its answers (§4.2, App. B): what a run beside its rows should share.
PAPER_PROTOCOL = {"reply rule": "strict", "rotations": "cyclic"}


SUMMARY_NOT_PAPER = (
    "summary score from other models (BERTScore on all-MiniLM-L6-v2, perplexity under SmolLM2-135M, not "
    "the paper's): its Functional Summary and the overall that includes it are not comparable"
)
"""The note on a run with a summary score set beside the paper's values (docs: *What differs*)."""


def paper_differences(result: GenebenchRecord) -> list[str]:
    """How ``result`` was measured differently from the paper's Table 2 rows: ``reply rule lenient vs
    strict`` / ``rotations none vs cyclic`` (:data:`PAPER_PROTOCOL`; a run without choice questions has
    no rotation mode to differ) and, with a summary score, :data:`SUMMARY_NOT_PAPER`. Empty: as the paper.
    """
    on = result.comparable_on()
    out = [f"{k} {on[k]} vs {v}" for k, v in PAPER_PROTOCOL.items() if k in on and on[k] != v]
    if any(c.metric == "summary score" and c.mean is not None for c in result.scores.cells):
        out.append(SUMMARY_NOT_PAPER)
    return out


def ranked(
    results: Sequence[GenebenchRecord], folders: Sequence[object] | None = None
) -> list[tuple[str, GenebenchRecord]]:
    """``(name, run)`` by overall, best first (ties keep the given order): the one order of every table,
    ``--json`` and the page. A run is named by :attr:`GenebenchRecord.name` (the model, or its prediction
    file); runs that would share a name are told apart by their folder (``folders``, else their number).
    """
    names = [r.name for r in results]
    where = [str(f) for f in folders] if folders is not None else [f"#{i + 1}" for i in range(len(results))]
    named = [
        (f"{n} ({where[i]})" if names.count(n) > 1 else n, r)
        for i, (n, r) in enumerate(zip(names, results, strict=True))
    ]
    return sorted(named, key=lambda x: -(x[1].scores.overall or 0.0))


def compare_tables(
    results: Sequence[GenebenchRecord],
    *,
    published: bool = False,
    folders: Sequence[object] | None = None,
) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, headers, rows)`` tables: Table 2, the cells of Tables 5–6, and the perspectives.

    Args:
        results: The runs.
        published: Add the paper's Table 2 rows to Table 2 (marked :func:`paper_label`), by overall.
        folders: The runs' folders, naming runs that would share a name (:func:`ranked`).
    """
    named = ranked(results, folders)
    order = [r for _, r in named]
    t2_headers = ["model", *(KNOWLEDGE_TITLES[k] for k in KNOWLEDGE), "Overall"]
    rows: list[tuple[float, list[Any]]] = [
        (
            r.scores.overall or 0.0,
            [
                marked(name, r.caveats),
                *(_pct(r.scores.knowledge.get(k)) for k in KNOWLEDGE),
                _pct(r.scores.overall),
            ],
        )
        for name, r in named
    ]
    if published:
        rows += [
            (overall, [paper_label(model), *(_pct(know[k]) for k in KNOWLEDGE), _pct(overall)])
            for model, overall, know in _table2()
        ]
    t2 = [row for _, row in sorted(rows, key=lambda x: -x[0])]
    t2_title = "Overall results (Table 2; %, equal mean of the knowledge types)"
    if published:
        t2_title += f"; {' '.join(PAPER)} rows: {PUBLISHED_SOURCE}, the authors' question set"
        unlike = [f"{name}: {'; '.join(d)}" for name, r in named if (d := paper_differences(r))]
        if unlike:
            t2_title += f"; not measured as the paper — {' | '.join(unlike)}"
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
    models = [marked(name, r.caveats) for name, r in named]
    modes = {m for r in order if (m := r.rotations()) is not None}
    how = {
        "cyclic": "mean ± std over cyclic rotations",
        "none": "options in the given order: one value, no std",
    }
    spread = how[next(iter(modes))] if len(modes) == 1 else "; ".join(f"{m}: {how[m]}" for m in sorted(modes))
    return [
        (t2_title, t2_headers, t2),
        (f"Cells (Tables 5–6; %, {spread or 'no rotations'})", ["cell", *models], cells),
        ("Perspectives (Fig. 9; %, mean of their cells)", ["perspective", *models], persp),
    ]


def compare_numbers(
    results: Sequence[GenebenchRecord], *, published: bool = False, folders: Sequence[object] | None = None
) -> dict[str, Any]:
    """The numbers of :func:`compare_tables` as one JSON-ready object (fractions, ``None``: not asked),
    runs in the tables' order (:func:`ranked`).

    ``runs``: per run its name (as the tables print it), the model, the reply rule and rotation mode,
    overall, knowledge types, perspectives, cell means and the run's caveats;
    ``published`` (with ``published``): the paper's Table 2 rows, named by :func:`paper_label`.
    """
    out: dict[str, Any] = {
        "runs": [
            {
                "name": name,
                "model": r.model,
                "reply_rule": r.scores.reply_rule,
                "rotations": r.rotations(),
                "overall": r.scores.overall,
                "knowledge": dict(r.scores.knowledge),
                "perspectives": perspective_scores(r),
                "cells": {c.key: c.mean for c in r.scores.cells},
                "caveats": caveat_dicts(r.caveats),
                **({"not_as_paper": paper_differences(r)} if published else {}),
            }
            for name, r in ranked(results, folders)
        ]
    }
    if published:
        out["published"] = [
            {"model": paper_label(model), "overall": overall, "knowledge": know}
            for model, overall, know in _table2()
        ]
        out["published_source"] = PUBLISHED_SOURCE
    return out
