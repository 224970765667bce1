"""The genebench report: the paper's Figs. 4–9 as PNGs and a self-contained ``report.html``.

SciHorizon-GENE (Huang et al.). Plots (under ``plots/``, written only when the run holds their data):

- ``attention_loc.png`` — accuracy on LOC (low attention) vs other genes for Q1, Q3-A, Q4, with the
  std over rotations as error bars (Fig. 4);
- ``attention_curve.png`` — accuracy per PubMed-count bucket with Spearman ρ and its p-value;
- ``hallucination.png`` — "no right answer" accuracy, synonyms vs chromosome location (Fig. 5);
- ``completeness.png`` — macro precision, recall, F1 of Q2-B, Q5, Q6 (Fig. 6);
- ``go_abstracts.png`` / ``summary_abstracts.png`` — per-instance GO and summary scores without vs
  with abstracts as box plots (Figs. 7–8).

:func:`write_genebench_compare` adds the radar of the four perspectives (Fig. 9) to the comparison
tables; :func:`summary_text`, :func:`result_numbers`, :func:`compare_text`, :func:`coverage_text` and
:func:`build_text` are the terminal and JSON views the CLI prints.

This module reads the run records of :mod:`knowsum.genebench.record` only (the Table 2 titles and
the perspectives come from the record) and never imports the instrument. Model replies are passed
to the HTML helpers as plain text, so they are always escaped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from knowsum.genebench import _page_plots as gp
from knowsum.genebench import _page_sections as sec
from knowsum.genebench._page_text import (
    build_text,
    compare_text,
    coverage_text,
    result_numbers,
    summary_text,
)
from knowsum.genebench.record import GenebenchRecord, InstanceRecord
from knowsum.records import PLOTS_DIR, REPORT_NAME
from knowsum.report import caveat_section
from knowsum.report import html as h
from knowsum.report import plots as plots

__all__ = [
    "PLOT_FILES",
    "Table",
    "build_text",
    "compare_html",
    "compare_text",
    "coverage_text",
    "genebench_page",
    "result_numbers",
    "summary_text",
    "write_genebench_compare",
    "write_genebench_report",
]

Table = tuple[str, list[str], list[list[Any]]]
"""A comparison table: ``(title, headers, rows)``, cells formatted as text."""

PLOT_FILES = {
    "attention_loc": "attention_loc.png",
    "attention_curve": "attention_curve.png",
    "hallucination": "hallucination.png",
    "completeness": "completeness.png",
    "go_abstracts": "go_abstracts.png",
    "summary_abstracts": "summary_abstracts.png",
}


def _figures(result: GenebenchRecord, records: Sequence[InstanceRecord]) -> dict[str, tuple[Any, str]]:
    built = {
        "attention_loc": gp.loc_bars(result),
        "attention_curve": gp.attention_curve(result),
        "hallucination": gp.hallucination_scatter(result),
        "completeness": gp.completeness_bars(result),
        "go_abstracts": gp.go_boxes(records),
        "summary_abstracts": gp.summary_boxes(records),
    }
    return {name: fc for name, fc in built.items() if fc is not None}


def genebench_page(
    result: GenebenchRecord, records: Sequence[InstanceRecord], images: Mapping[str, tuple[bytes, str]]
) -> str:
    """The HTML document of a genebench run (``images``: plot name → (PNG bytes, caption))."""
    imgs = {k: h.figure_png(png, alt=cap, caption=cap, name=k) for k, (png, cap) in images.items()}
    s = result.scores
    methods = s.methods
    parts: list[h.Markup] = [sec.key_numbers(result), caveat_section(result.caveats)]
    parts += [sec.table2(result), sec.cells_table(result)]
    if "attention_loc" in imgs or "attention_curve" in imgs or s.attention is not None:
        parts.append(sec.attention(result, imgs))
    if any(c.key.startswith(("Q2-A/", "Q3-B/")) for c in s.cells):
        parts.append(sec.hallucination(result, imgs))
    if "completeness" in imgs or s.pearson:
        parts.append(sec.completeness(result, imgs))
    if s.go:
        parts.append(
            sec.literature(
                "Gene Ontology with / without abstracts (paper Fig. 7)",
                s.go,
                methods,
                sec.GO_IMPL,
                imgs.get("go_abstracts"),
                "go",
            )
        )
    if s.summary:
        parts.append(
            sec.literature(
                "Functional summaries with / without abstracts (paper Fig. 8)",
                s.summary,
                methods,
                sec.SUMMARY_IMPL,
                imgs.get("summary_abstracts"),
                "summary",
            )
        )
    parts += [sec.format_errors(result, records), sec.examples(records)]
    if methods:
        parts.append(h.section("Methods", h.table(["metric", "implementation"], list(methods.items()))))
    parts.append(h.section("Configuration", h.code_block(json.dumps(result.config, indent=1))))
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items())
    return h.page(
        f"knowsum genebench — {result.model}",
        *parts,
        subtitle=f"questions {result.questions_file} (sha256 {result.questions_sha256[:12]}) · "
        f"{result.created}",
        footer="SciHorizon-GENE (Huang et al.)" + (f" · timings: {timing}" if timing else ""),
    )


def write_genebench_report(
    out_dir: Path, result: GenebenchRecord, records: Sequence[InstanceRecord]
) -> list[Path]:
    """Write the plots (``plots/*.png``) and ``report.html`` into ``out_dir``; return the written paths.

    Args:
        out_dir: Run directory (created if missing).
        result: The run record.
        records: The scored instances (the lines of ``predictions.jsonl``).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    images: dict[str, tuple[bytes, str]] = {}
    figures = _figures(result, records)
    if figures:
        (out_dir / PLOTS_DIR).mkdir(exist_ok=True)
    for name, (fig, caption) in figures.items():
        path = out_dir / PLOTS_DIR / PLOT_FILES[name]
        images[name] = (plots.save(fig, path), caption)
        written.append(path)
    written.append(h.write_page(out_dir / REPORT_NAME, genebench_page(result, records, images)))
    return written


def compare_html(
    results: Sequence[GenebenchRecord], tables: Sequence[Table], names: Sequence[str] | None = None
) -> str:
    """Runs side by side: the radar of the four perspectives (Fig. 9) and the comparison tables.

    Args:
        results: The runs' records.
        tables: ``(title, headers, rows)`` tables (``knowsum.genebench.compare_tables``); the first
            column is text, the others are numbers formatted as text.
        names: The runs' names as the tables print them (``knowsum.genebench._compare.ranked``).
    """
    parts: list[h.Markup] = []
    if results:
        fig = gp.perspective_radar(results, names)
        cap = "Mean of the cells of each perspective (%); a perspective not asked leaves a gap."
        parts.append(
            h.section("Perspectives (paper Fig. 9)", h.figure(fig, alt=cap, caption=cap, name="radar"))
        )
    for title, headers, rows in tables:
        numeric = [False] + [True] * (len(headers) - 1)
        parts.append(h.section(title, h.table(headers, rows, numeric=numeric)))
    return h.page(
        "genebench comparison", *parts, subtitle=f"{len(results)} runs · SciHorizon-GENE (Huang et al.)"
    )


def write_genebench_compare(
    path: Path,
    results: Sequence[GenebenchRecord],
    tables: Sequence[Table],
    names: Sequence[str] | None = None,
) -> Path:
    """Write :func:`compare_html` (a page of several runs) to ``path``; return it."""
    return h.write_page(path, compare_html(results, tables, names))
