"""The disease KB's category distribution beside the paper's (KnowSum Fig. 10 right).

Reads the ``kb_categories`` record of a disease census only: the installed Disease
Ontology's terms per top-level category — one category per term, by the rule the strict criterion
uses — as shares of all terms, next to the one bar of the paper's Fig. 10 its text gives
(anatomical disease, 6,036 of 11,872).
"""

from __future__ import annotations

import math
from typing import Any

from knowsum.census.record import KBCategories
from knowsum.report import plots as p

__all__ = ["category_plot"]


def category_plot(info: KBCategories) -> tuple[Any, str]:
    """``(figure, caption)``: shares of the KB's categories, installed vs paper."""
    names = list(info.counts)
    ours = [100.0 * info.counts[n] / max(info.total, 1) for n in names]
    paper_total = info.paper.get("total", 0)
    theirs = [
        100.0 * info.paper[n] / paper_total if n in info.paper and paper_total else math.nan for n in names
    ]
    fig = p.grouped_bars(
        names,
        {
            f"installed {info.kb} ({info.rule} rule, {info.total:,} terms)": ours,
            f"paper Fig. 10 ({paper_total:,} diseases)": theirs,
        },
        title="Disease categories (strict criterion keeps one)",
        ylabel="% of terms",
    )
    strict = info.counts.get(info.strict, 0)
    paper_strict = info.paper.get(info.strict)
    paper_part = (
        f" vs {paper_strict:,} of {paper_total:,} ({100 * paper_strict / paper_total:.0f} %) in the paper"
        if paper_strict and paper_total
        else ""
    )
    caption = (
        f"Top-level categories of the installed {info.kb}, one per term ({info.rule} rule): "
        f"{info.strict} {strict:,} of {info.total:,} ({100 * strict / max(info.total, 1):.0f} %)"
        f"{paper_part}. The paper's other bars are not in its text (KnowSum Fig. 10 right)."
    )
    return fig, caption
