"""Runs ranked at equal sample coverage next to their KnowSum ``N̂_tot(t)`` ranking
(``knowsum census compare --at-coverage``).

Both rankings are named: "rank N_tot(t)" is KnowSum's (the paper's Fig. 1, extrapolated to ``t``
times the queries); "rank at C" is iNEXT's ``estimateD`` comparison of richness where every run's
sample is equally complete. The change column marks a run that the two rank differently. Reads
census records only.
"""

from __future__ import annotations

from typing import Any

from knowsum.census._page_rank import ranks
from knowsum.census.record import CoverageRank, EqualCoverage
from knowsum.report import format_value, markdown_table, marks, text_table
from knowsum.report import html as h
from knowsum.stats.q0_prediction import Q0_FLOOR

__all__ = ["coverage_data", "coverage_headers", "coverage_html", "coverage_rows", "coverage_table"]


def coverage_headers(eq: EqualCoverage) -> list[str]:
    """The column names, with the common coverage and the KnowSum ``t`` named."""
    t = {format_value(r.t) for r in eq.rows}
    tt = t.pop() if len(t) == 1 else "t"
    return [
        "model",
        "task",
        "C (sample)",
        f"N_tot(t={tt})",
        "rank N_tot(t)",
        f"q0 at C={format_value(eq.coverage)}",
        f"{eq.level:.0%} band",
        f"{eq.level:.0%} prediction",
        "size m",
        "m from",
        "rank at C",
        "change",
    ]


def _ranked(eq: EqualCoverage) -> list[tuple[int, int, int]]:
    """``(index, rank by N̂_tot, rank at C)`` ordered by rank at C."""
    total = ranks([float(r.n_total) if r.n_total is not None else 0.0 for r in eq.rows])
    at_c = ranks([r.richness for r in eq.rows])
    return sorted(zip(range(len(eq.rows)), total, at_c, strict=True), key=lambda x: x[2])


def _change(by_total: int, at_c: int) -> str:
    return "=" if by_total == at_c else (f"↑{by_total - at_c}" if at_c < by_total else f"↓{at_c - by_total}")


def _prediction(r: CoverageRank) -> str:
    """The prediction interval of ``N_tot(m)``, or ``n/a: REASON`` (its first clause)."""
    if r.prediction_interval_total is not None:
        lo, hi = r.prediction_interval_total
        return f"[{format_value(lo)}, {format_value(hi)}]"
    if r.prediction_reason is None:
        return "–"  # a record written before prediction intervals
    return "n/a: " + r.prediction_reason.split(",")[0].split(":")[0]


def coverage_rows(eq: EqualCoverage) -> list[list[Any]]:
    """One row per run, ordered by rank at coverage C; ``change`` compares it with the N̂_tot rank."""
    out: list[list[Any]] = []
    for i, a, b in _ranked(eq):
        r = eq.rows[i]
        band = (
            "–"
            if r.lower is None or r.upper is None
            else f"[{format_value(r.lower)}, {format_value(r.upper)}]"
        )
        unit = "queries" if r.data == "incidence" else "obs."
        flags = marks(r.caveats) or ("beyond 2n" if r.beyond_double else "")
        how = f"{r.method} {flags}".strip()
        out.append(
            [
                r.model,
                r.task,
                r.coverage,
                r.n_total,
                a,
                r.richness,
                band,
                _prediction(r),
                f"{format_value(r.at_size)} {unit}",
                how,
                b,
                _change(a, b),
            ]
        )
    return out


def floor_note(eq: EqualCoverage) -> str | None:
    """Which runs' band was cut to the attainable range, with iNEXT's own band (``None``: none)."""
    cut = [
        f"{r.model} ({r.task}) [{format_value(r.band_inext[0])}, {format_value(r.band_inext[1])}]"
        for r in eq.rows
        if r.band_inext is not None
    ]
    if not cut:
        return None
    return (
        "band: cut to the attainable range where m ≥ n, at least N_seen (the extended sample holds the "
        f"items seen) and, counting mentions, at most N_seen + (m − n) (iNEXT's own band: {'; '.join(cut)})"
    )


def coverage_table(eq: EqualCoverage, markdown: bool = False) -> str:
    """The equal-coverage ranking as a terminal (or Markdown) table, with its heading line."""
    head = (
        f"ranked at equal sample coverage C = {format_value(eq.coverage)} ({eq.source}): q = 0 richness by "
        "coverage-based rarefaction/extrapolation (iNEXT estimateD), beside the KnowSum N_tot(t) ranking"
    )
    table = (markdown_table if markdown else text_table)(coverage_headers(eq), coverage_rows(eq))
    note = floor_note(eq)
    return f"{head}\n{table}" + ("" if note is None else f"\n{note}")


def coverage_data(eq: EqualCoverage) -> dict[str, Any]:
    """The equal-coverage ranking as one JSON-ready object (rows ordered by rank at C)."""
    rows = []
    for i, a, b in _ranked(eq):
        rows.append({**eq.rows[i].model_dump(mode="json"), "rank_total": a, "rank_coverage": b})
    return {
        "coverage": eq.coverage,
        "source": eq.source,
        "level": eq.level,
        "n_bootstrap": eq.n_bootstrap,
        "method": "iNEXT estimateD: q = 0 at equal coverage",
        "band_method": Q0_FLOOR,
        "rows": rows,
    }


def coverage_html(eq: EqualCoverage) -> h.Markup:
    """The page section of the equal-coverage ranking."""
    cells: list[list[Any]] = []
    for row in coverage_rows(eq):
        change = row[-1]
        cls = "up" if change.startswith("↑") else "down" if change.startswith("↓") else ""
        cells.append([*row[:-1], h.Markup(f'<span class="{cls}">{h.escape(change)}</span>')])
    intro = (
        f"Richness (q = 0) of each run at sample coverage C = {format_value(eq.coverage)} ({eq.source}), "
        "by coverage-based rarefaction or extrapolation (Chao & Jost 2012; Chao et al. 2014; iNEXT "
        "estimateD), next to the KnowSum ranking by N̂_tot(t). change = rank at C vs rank by N̂_tot(t)."
    )
    note = floor_note(eq)
    return h.section(
        "Ranking at equal coverage",
        h.paragraph(intro),
        h.table(coverage_headers(eq), cells),
        *([] if note is None else [h.paragraph(note)]),
    )
