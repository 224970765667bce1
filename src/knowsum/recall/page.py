"""The recall report: the paper's Figs. 2–4 (:mod:`knowsum.recall._page_plots`) and ``report.html``.

Reads the records of a recall run only (:mod:`knowsum.recall.record`: the :class:`RecallRecord`
and the :class:`PredictionRecord` lines) and never imports the instrument. Model answers are
passed to the HTML helpers as plain text, so they are always escaped. The terminal views of a run
(``--json`` object, summary, compare tables) are here too, re-exported from
:mod:`knowsum.recall._page_text`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from knowsum.recall._page_plots import PLOT_FILES, recall_figures
from knowsum.recall._page_text import (
    INVARIANCE_HEADERS,
    invariance_rows,
    recall_compare_text,
    recall_json,
    recall_summary,
    rule_rows,
)
from knowsum.recall.record import READING_NOTES, PopularityScores, PredictionRecord, RecallRecord
from knowsum.records import PLOTS_DIR, REPORT_NAME
from knowsum.report import caveat_section
from knowsum.report import html as h
from knowsum.report import plots as plots

__all__ = [
    "PLOT_FILES",
    "recall_compare_text",
    "recall_json",
    "recall_page",
    "recall_summary",
    "write_recall_report",
]


def _summary(result: RecallRecord) -> h.Markup:
    s = result.scores
    paper = s.paper
    tiles = h.key_numbers(
        [
            ("accuracy", s.accuracy, f"{s.n_correct} of {s.n}"),
            ("unique answers (paper rules)", None if paper is None else paper.unique_answers, ""),
            ("% invented (paper rules)", None if paper is None else paper.invented_pct, ""),
            (
                "% wrong due to invented (paper rules)",
                None if paper is None else paper.wrong_due_to_invented_pct,
                "",
            ),
        ]
    )
    rows = [
        ["answers without an ID", s.n_no_id],
        ["wrong predictions (incl. no ID)", s.n_wrong],
        ["predictions with an invented ID (knowsum rules)", s.n_invented],
        ["distinct invented IDs (knowsum rules)", s.n_invented_unique],
    ]
    note = (
        f"{paper.note}. Paper-rule Table 2 means: {paper.averaging} "
        f"({'mean over buckets of the per-bucket means' if paper.averaging == 'buckets' else 'pooled'}); "
        f"existence over the {paper.existence} ({paper.n_study:,} IDs)."
        if paper is not None
        else "This record predates the paper-rule figures (result version 1)."
    )
    return h.section(
        "Memorization (RQ1, paper Tables 1–3)",
        tiles,
        h.table(["measure", "paper rules", "knowsum rules"], rule_rows(s), numeric=[False, True, True]),
        h.paragraph(note),
        h.table(["measure", "value"], rows),
    )


def _popularity(pop: PopularityScores, imgs: Mapping[str, h.Markup], why_no_rb: str) -> h.Markup:
    stats = [
        [
            "Spearman ρ mean popularity vs accuracy (permutation p)",
            pop.bucket_spearman,
            pop.bucket_spearman_p,
        ],
        ["Granger F popularity → accuracy, lag 3 (parametric p)", pop.granger_f, pop.granger_p],
        ["Granger F popularity → accuracy, lag 3 (permutation p)", pop.granger_f, pop.granger_perm_p],
        [
            "Spearman ρ mean popularity vs mean Levenshtein (paper rules)",
            pop.levenshtein_spearman,
            pop.levenshtein_spearman_p,
        ],
        [
            "Spearman ρ mean popularity vs mean Jaccard (paper rules)",
            pop.jaccard_spearman,
            pop.jaccard_spearman_p,
        ],
        [
            "Spearman ρ mean popularity vs mean Levenshtein (knowsum rules)",
            pop.knowsum_levenshtein_spearman,
            pop.knowsum_levenshtein_spearman_p,
        ],
        [
            "Spearman ρ mean popularity vs mean Jaccard (knowsum rules)",
            pop.knowsum_jaccard_spearman,
            pop.knowsum_jaccard_spearman_p,
        ],
        ["Spearman ρ bucket vs R_B", pop.rb_spearman, pop.rb_spearman_p],
    ]
    buckets = [
        [
            b.bucket,
            b.lo,
            b.hi,
            b.n_universe,
            b.n,
            b.accuracy,
            b.mean_levenshtein,
            b.mean_jaccard,
            b.paper_mean_levenshtein,
            b.paper_mean_jaccard,
            b.n_top_k,
            b.r_b,
        ]
        for b in pop.buckets
    ]
    top = [[i, times, bucket] for i, times, bucket in pop.top_ids]
    return h.section(
        "Popularity (RQ2, paper §5)",
        h.paragraph(
            f"Source: {pop.source}; {pop.n_with_popularity} probed concepts with a popularity value, "
            f"{pop.n_buckets} buckets of consecutive distinct values (floor(D / buckets) each, "
            "the last bucket also the remainder)."
        ),
        h.table(["statistic", "value", "p-value"], stats, numeric=[False, True, True]),
        imgs.get("accuracy", h.Markup("")),
        imgs.get("rb", h.Markup(""))
        if pop.top_k_used
        else h.paragraph(f"R_B (paper Fig. 3) is not defined: {why_no_rb}."),
        h.table(
            [
                "bucket",
                "from",
                "to",
                "N_B",
                "probed",
                "accuracy",
                "Levenshtein (knowsum)",
                "Jaccard (knowsum)",
                "Levenshtein (paper)",
                "Jaccard (paper)",
                "n_B",
                "R_B",
            ],
            buckets,
            numeric=[True] * 12,
            caption="Per-bucket statistics",
        ),
        h.table(["repeated wrong ID", "times", "bucket"], top, caption="Most repeated wrong IDs")
        if top
        else h.Markup(""),
    )


def _invariance(result: RecallRecord, imgs: Mapping[str, h.Markup]) -> h.Markup:
    readings = [r for r in READING_NOTES if any(s.reading == r for s in result.invariance)]
    sources = {s.method: (s.source, s.per_bucket) for s in result.invariance if s.source}
    where = (
        "Answers read from "
        + "; ".join(f"PI-{m[-1]}: {src}" for m, (src, _) in sources.items())
        + f" (concepts: the rows of {result.config.get('predictions', 'the predictions file')}, "
        f"K = {next(iter(sources.values()))[1]} per bucket in row order)."
        if sources
        else "Answers asked by this run; buckets are the popularity buckets."
    )
    return h.section(
        "Prediction invariance (RQ3, paper §6)",
        h.paragraph(where),
        h.table(
            list(INVARIANCE_HEADERS),
            invariance_rows(result),
            numeric=[False] + [True] * (len(INVARIANCE_HEADERS) - 1),
            caption="Spearman ρ of AvPI vs accuracy over buckets (permutation p), per reading (paper §6.3)",
        ),
        *(h.paragraph(READING_NOTES[r]) for r in readings),
        imgs.get("invariance", h.Markup("")),
        imgs.get("invariance_knowsum", h.Markup("")),
    )


def _examples(records: Sequence[PredictionRecord], limit: int = 40) -> h.Markup:
    shown = [r for r in records if not r.correct][:limit] + [r for r in records if r.correct][: limit // 4]
    rows = [[r.id, r.label, r.text, r.predicted, r.status, r.predicted_label] for r in shown]
    return h.section(
        "Example answers",
        h.table(["gold ID", "label", "model answer", "extracted", "status", "label of predicted ID"], rows),
    )


def recall_page(
    result: RecallRecord, records: Sequence[PredictionRecord], images: Mapping[str, bytes]
) -> str:
    """The HTML document of a recall run (``images``: plot name → PNG bytes)."""
    imgs = {k: h.figure_png(v, alt=k, name=k) for k, v in images.items()}
    parts: list[h.Markup] = [_summary(result), caveat_section(result.caveats)]
    if result.scores.popularity is not None:
        parts.append(_popularity(result.scores.popularity, imgs, result.scores.why_no_rb()))
    if result.invariance:
        parts.append(_invariance(result, imgs))
    parts.append(_examples(records))
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in result.timings.items() if not math.isnan(v))
    release = result.kb_releases.get(result.kb) or result.kb_release or "?"
    return h.page(
        f"knowsum recall — {result.model} on {result.kb}",
        *parts,
        h.section("Configuration", h.code_block(json.dumps(result.config, indent=1))),
        subtitle=f"KB release {release} · {result.api} prompts · {result.created}",
        footer=f"Bombieri et al., “Do LLMs Dream of Ontologies?” · timings: {timing}",
    )


def write_recall_report(
    out_dir: Path, result: RecallRecord, records: Sequence[PredictionRecord]
) -> list[Path]:
    """Write the plots (``plots/*.png``) and ``report.html`` into ``out_dir``; return the written paths."""
    written: list[Path] = []
    images: dict[str, bytes] = {}
    for name, fig in recall_figures(result).items():
        path = out_dir / PLOTS_DIR / PLOT_FILES[name]
        images[name] = plots.save(fig, path)
        written.append(path)
    written.append(h.write_page(out_dir / REPORT_NAME, recall_page(result, records, images)))
    return written
