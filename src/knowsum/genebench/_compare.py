"""Runs side by side in the paper's layout: Table 2 (knowledge types + overall), Tables 5–6 (cells).

With ``published``, the paper's own Table 2 rows (:mod:`._published`) join Table 2 as reference rows
marked ``[paper]``; they are scores of the authors' question set and models, not of this run's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knowsum.genebench._published import PUBLISHED, PUBLISHED_SOURCE
from knowsum.genebench._result import GenebenchResult
from knowsum.genebench._schema import KNOWLEDGE

__all__ = ["KNOWLEDGE_TITLES", "PAPER_MARK", "PERSPECTIVES", "compare_tables", "perspective_scores"]

#: Table 2 column titles.
KNOWLEDGE_TITLES: dict[str, str] = {
    "full name": "Gene Full Name",
    "synonyms": "Synonyms",
    "chromosome": "Chromosome Location",
    "gene_type": "Gene Type",
    "designation": "Related Proteins",
    "expression": "Expression Pattern",
    "go_annotation": "Gene Ontology",
    "summary": "Functional Summary",
}
#: The four perspectives (§3.4) as the cells averaged for the radar of Fig. 9.
PERSPECTIVES: dict[str, tuple[str, ...]] = {
    "research attention": ("Q1/loc", "Q1/non-loc", "Q3-A/loc", "Q3-A/non-loc", "Q4/loc", "Q4/non-loc"),
    "hallucination resistance": ("Q2-A/no-answer", "Q3-B/no-answer"),
    "knowledge completeness": ("Q2-B", "Q5", "Q6"),
    "literature influence": ("Q7/no_ref", "Q7/with_ref", "Q8/no_ref", "Q8/with_ref"),
}


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def _pm(mean: float | None, std: float | None) -> str:
    if mean is None:
        return "-"
    return _pct(mean) if std is None else f"{_pct(mean)} ± {_pct(std)}"


def perspective_scores(result: GenebenchResult) -> dict[str, float | None]:
    """Mean of the cells of each perspective (``None`` when none was asked)."""
    by_key = {c.key: c.mean for c in result.scores.cells}
    out: dict[str, float | None] = {}
    for name, keys in PERSPECTIVES.items():
        vals = [v for k in keys if (v := by_key.get(k)) is not None]
        out[name] = sum(vals) / len(vals) if vals else None
    return out


#: Prefix of a published reference row's model name.
PAPER_MARK = "[paper] "


def compare_tables(
    results: Sequence[GenebenchResult], *, published: bool = False
) -> list[tuple[str, list[str], list[list[Any]]]]:
    """``(title, headers, rows)`` tables: Table 2, the cells of Tables 5–6, and the perspectives.

    Args:
        results: The runs.
        published: Add the paper's Table 2 rows to Table 2 (marked ``[paper]``), by overall.
    """
    order = sorted(results, key=lambda r: -(r.scores.overall or 0.0))
    t2_headers = ["model", *(KNOWLEDGE_TITLES[k] for k in KNOWLEDGE), "Overall"]
    ranked: list[tuple[float, list[Any]]] = [
        (
            r.scores.overall or 0.0,
            [r.model, *(_pct(r.scores.knowledge.get(k)) for k in KNOWLEDGE), _pct(r.scores.overall)],
        )
        for r in order
    ]
    if published:
        ranked += [
            (p.overall, [PAPER_MARK + p.model, *(_pct(p.knowledge[k]) for k in KNOWLEDGE), _pct(p.overall)])
            for p in PUBLISHED
        ]
    t2 = [row for _, row in sorted(ranked, key=lambda x: -x[0])]
    t2_title = "Overall results (Table 2; %, equal mean of the knowledge types)"
    if published:
        t2_title += f"; [paper] rows: {PUBLISHED_SOURCE}, the authors' question set"
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
    persp = [[name, *(_pct(perspective_scores(r)[name]) for r in order)] for name in PERSPECTIVES]
    models = [r.model for r in order]
    return [
        (t2_title, t2_headers, t2),
        ("Cells (Tables 5–6; %, mean ± std over cyclic rotations)", ["cell", *models], cells),
        ("Perspectives (Fig. 9; %, mean of their cells)", ["perspective", *models], persp),
    ]
