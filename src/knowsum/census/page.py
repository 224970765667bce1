"""Census reports: the plots, the self-contained ``report.html``, summary and comparison tables.

Plots (matplotlib, KnowSum figure numbers), under ``plots/``:

- ``prevalence.png`` — frequency-of-frequencies histogram ``n_s`` vs ``s`` (Fig. 4);
- ``curve.png`` — ``N̂_tot(t) = N_seen + Û(t)`` with its bootstrap band, and ``SKR(t)`` on the
  right axis (Fig. 8);
- ``heldout.png`` — held-out check: mean estimated vs actual unseen for ``r_obs`` ∈ {1/2, 1/3, 1/4}
  (Fig. 7);
- ``top_items.png`` — most frequent verified items (Fig. 5 / Tables 6-8).

Pages: :func:`write_census_report` (one run), :func:`write_census_compare` (runs side by side, and
the paper's Table 1 rows), :func:`write_census_sweep` (a sweep's cells). This module reads the
records of :mod:`knowsum.census.record` only, never the instrument. All model text is HTML-escaped.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from knowsum.census._page_coverage import coverage_data, coverage_html, coverage_rows, coverage_table
from knowsum.census._page_kb import category_plot
from knowsum.census._page_marks import clamp_mark, clamp_note, run_mark, unseen_cell
from knowsum.census._page_overlap import overlap_data, overlap_table
from knowsum.census._page_predict import own_t_cell, prediction_cell
from knowsum.census._page_rank import (
    CensusRow,
    compare_data,
    compare_html,
    compare_table,
    compare_text,
    ranking_figure,
    write_census_compare,
)
from knowsum.census._page_richness import richness_data, richness_rows, richness_section, richness_tiles
from knowsum.census._page_studies import (
    sensitivity_plots,
    sensitivity_section,
    sensitivity_tables,
    sweep_table,
    t_curve,
    write_census_sweep,
)
from knowsum.census.backtest_page import horizon_cell, horizon_value
from knowsum.census.record import CensusRecord
from knowsum.records import PLOTS_DIR, REPORT_NAME
from knowsum.report import NOT_RESAMPLED, caveat_section, interval_text, markdown_table, marks, text_table
from knowsum.report import html as h
from knowsum.report import plots as p
from knowsum.stats.caveats import caveat_dicts

__all__ = [
    "CensusRow",
    "compare_data",
    "compare_html",
    "compare_table",
    "compare_text",
    "coverage_data",
    "coverage_html",
    "coverage_rows",
    "coverage_table",
    "overlap_data",
    "overlap_table",
    "plots",
    "ranking_figure",
    "render_report",
    "sensitivity_tables",
    "summary_data",
    "summary_table",
    "sweep_table",
    "write_census_compare",
    "write_census_report",
    "write_census_sweep",
]


_NOTHING = "n/a: nothing to estimate (N_seen = 0)"
"""Every figure and interval of a census with no verified item (``N_seen = 0``)."""


def _fmt_interval(iv: Sequence[float] | None, result: CensusRecord | None = None) -> str:
    """``[lo, hi]``; ``n/a: REASON`` when the run's interval cannot be a 95 % interval (or, in a record
    written before the reason was kept, collapsed to a point); ``n/a: not asked`` with
    ``--n-bootstrap 0``; ``–`` without one."""
    unasked = (  # (a run without a verified item says so instead: nothing to estimate)
        result is not None
        and result.n_seen > 0
        and result.interval_reason is None
        and not result.config.get("n_bootstrap", 1)
    )
    if iv is None and unasked:
        return NOT_RESAMPLED
    return interval_text(iv, None if result is None else result.interval_reason)


def _integer_axis(fig: Any, s: Sequence[int]) -> Any:
    """The histogram's ``s`` axis from ``min(s) − 1`` to ``max(s) + 1`` with integer ticks, so that a
    single bar (every item seen once) reads as ``s = 1``, not as a bar over 0.6-1.4."""
    from matplotlib.ticker import MaxNLocator

    ax = fig.axes[0]
    ax.set_xlim(min(s) - 1, max(s) + 1)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


def plots(result: CensusRecord) -> dict[str, tuple[Any, str]]:
    """The report's figures: name → (matplotlib figure, caption). Empty parts are left out."""
    out: dict[str, tuple[Any, str]] = {}
    if result.prevalence:
        s, n_s = zip(*result.prevalence, strict=True)
        out["prevalence"] = (
            _integer_axis(
                p.bars(
                    list(s),
                    list(n_s),
                    title="Prevalence histogram",
                    xlabel="s (times seen)",
                    ylabel="n_s (items seen s times)",
                    log_y=True,
                ),
                s,
            ),
            "Frequency of frequencies n_s (KnowSum Fig. 4).",
        )
    if result.curve:
        band = f"{result.level:.0%} {result.interval_method} bootstrap band"
        fig = t_curve(
            result.curve,
            "N_tot(t) = N_seen + U(t)",
            "Extrapolation",
            vlines={f"t = {result.t:g}": result.t},
            band=f"{band} (confidence)",
        )
        fig.axes[0].set_xscale("log")
        pi = any(c.unseen_pred_lower is not None for c in result.curve)
        bands = f"{band} and the prediction interval (hatched)" if pi else band
        out["curve"] = (fig, f"N̂_tot(t) and SKR(t) with {bands} (KnowSum Fig. 8).{clamp_note(result.curve)}")
    if result.heldout:
        groups = [f"r_obs = 1/{round(1 / pt.r_obs)}" for pt in result.heldout]
        out["heldout"] = (
            p.scatter_identity(
                [pt.actual for pt in result.heldout],
                [pt.estimated for pt in result.heldout],
                groups=groups,
                title="Held-out check",
                xlabel="actual unseen",
                ylabel="estimated unseen",
            ),
            "Mean estimated vs actual new items in held-out queries (KnowSum §5.1, Fig. 7).",
        )
    if result.top_items:
        top = result.top_items[:20]
        out["top_items"] = (
            p.barh(
                [t.name for t in top], [t.count for t in top], title="Most frequent items", xlabel="count"
            ),
            "Most frequently generated verified items (KnowSum Fig. 5).",
        )
    if result.kb_categories is not None:
        out["kb_categories"] = category_plot(result.kb_categories)
    if result.sensitivity is not None:
        out.update(sensitivity_plots(result.sensitivity))
    return out


def _k_cell(result: CensusRecord) -> str:
    """``8 (held-out)``, or why there is no ``k`` (no verified item, or an estimator without one)."""
    if result.k is not None:
        return f"{result.k} ({result.k_source})"
    if result.n_seen == 0:
        return "none: no verified item, nothing to estimate (N_seen = 0)"
    return f"none: the {result.estimator} estimator has no truncation k"


def _summary_rows(result: CensusRecord) -> list[list[Any]]:
    c = result.counts
    rows: list[list[Any]] = [
        ["task", result.task],
        ["model", result.model],
        ["criterion", result.criterion],
        ["responses", c.responses],
        [
            "items (valid / excluded / unverified / invalid)",
            f"{c.valid} / {c.excluded} / {c.unverified} / {c.invalid}",
        ],
        [f"observations n ({result.counting})", result.n_observations],
        ["N_seen", result.n_seen],
        [f"U(t), t = {result.t:g}", unseen_cell(result.n_unseen, result.n_unseen_raw)],
        [
            f"U(t) {result.level:.0%} confidence interval ({result.interval_method})",
            _fmt_interval(result.interval, result),
        ],
        [f"U(t) {result.level:.0%} prediction interval", prediction_cell(result, result.prediction_interval)],
        ["N_tot (estimated)", result.n_total],
        ["N_tot confidence interval", _fmt_interval(result.interval_total, result)],
        ["N_tot prediction interval", prediction_cell(result, result.prediction_interval_total)],
        ["error at own t (simulated)", own_t_cell(result)],
        ["trust horizon", horizon_cell(result.horizon)],
        ["SKR", result.skr],
        ["SKR confidence interval", _fmt_interval(result.interval_skr, result)],
        ["k", _k_cell(result)],
        *richness_rows(result),
    ]
    if not result.n_seen:  # one reason for every figure a census without a verified item cannot have
        rows = [[label, _NOTHING if value is None or value in ("-", "–") else value] for label, value in rows]
    if result.caveats:
        rows.append(["caveats", marks(result.caveats)])
    if result.concept_words:
        per_word = ", ".join(f"{w} {n:,}" for w, n in result.concept_words.items())
        rows.append(["N_seen items per word (an item may hold two)", per_word])
    if c.claimed_ids:
        rows.append(["claimed IDs that agree", f"{c.claimed_agree} / {c.claimed_ids}"])
    if result.stop is not None:
        rows.append(["stopped", result.stop.message])
    return rows


def summary_table(result: CensusRecord, markdown: bool = False) -> str:
    """The key numbers as a terminal (or Markdown) table."""
    return (markdown_table if markdown else text_table)(["quantity", "value"], _summary_rows(result))


def _finite(value: Any) -> Any:
    """``value`` with every NaN or infinite number as ``None`` and tuples as lists (for JSON)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


def summary_data(result: CensusRecord) -> dict[str, Any]:
    """The numbers of :func:`summary_table` as one JSON-ready object (undefined numbers ``None``)."""
    c = result.counts
    data: dict[str, Any] = {
        "task": result.task,
        "model": result.model,
        "backend": result.backend,
        "criterion": result.criterion,
        "responses": c.responses,
        "failed_responses": c.failed_responses,
        "items": {
            "total": c.items,
            "valid": c.valid,
            "excluded": c.excluded,
            "unverified": c.unverified,
            "invalid": c.invalid,
        },
        "observations": result.n_observations,
        "counting": result.counting,
        "n_seen": result.n_seen,
        "t": result.t,
        "n_unseen": result.n_unseen,
        "n_unseen_raw": result.n_unseen_raw,
        "interval": result.interval,
        "level": result.level,
        "interval_method": result.interval_method,
        "n_total": result.n_total,
        "interval_total": result.interval_total,
        "prediction_interval": result.prediction_interval,
        "prediction_interval_total": result.prediction_interval_total,
        "prediction_reason": result.prediction_reason,
        "prediction_method": result.prediction_method,
        "own_t_check": None if result.own_t_check is None else result.own_t_check.model_dump(mode="json"),
        "own_t_text": own_t_cell(result),
        "horizon": None if result.horizon is None else result.horizon.model_dump(mode="json"),
        "horizon_text": horizon_cell(result.horizon),
        "skr": result.skr,
        "interval_skr": result.interval_skr,
        "k": result.k,
        "k_source": result.k_source,
        "concept_words": result.concept_words,
        "claimed_ids": c.claimed_ids,
        "claimed_agree": c.claimed_agree,
        "stop": None if result.stop is None else result.stop.message,
        "richness": richness_data(result),
        "kb_releases": result.kb_releases,
        "notes": result.notes,
        "interval_reason": result.interval_reason,
        "caveats": caveat_dicts(result.caveats),
    }
    return {k: _finite(v) for k, v in data.items()}


def render_report(result: CensusRecord, figures: dict[str, bytes], captions: dict[str, str]) -> str:
    """The HTML document for one run (``figures``: name → PNG bytes)."""
    c = result.counts
    tiles = [
        ("N_seen", result.n_seen, "distinct verified items"),
        (
            "N_tot",
            result.n_total,
            f"t = {result.t:g}; confidence {_fmt_interval(result.interval_total, result)} "
            f"{result.interval_method}; "
            f"prediction {prediction_cell(result, result.prediction_interval_total)}",
        ),
        (
            "U(t)",
            result.n_unseen,
            f"unseen; {_fmt_interval(result.interval, result)} {clamp_mark(result.n_unseen_raw)}".rstrip(),
        ),
        ("trust horizon", horizon_value(result.horizon), horizon_cell(result.horizon)),
        ("SKR", result.skr, "seen knowledge ratio"),
        *richness_tiles(result),
        (
            "k",
            "–" if result.k is None else result.k,
            _k_cell(result) if result.k is None else result.k_source,
        ),
        ("responses", c.responses, f"{c.items} items, {c.valid} valid"),
    ]
    parts: list[str] = [h.key_numbers(tiles), caveat_section(result.caveats)]
    mark = run_mark(result)
    if mark:
        parts.append(h.paragraph(f"{mark} (see Notes).", cls="stop"))
    if result.stop is not None:
        parts.append(h.paragraph(result.stop.message, cls="stop"))
    parts.append(h.section("Summary", h.table(["quantity", "value"], _summary_rows(result))))
    extra = richness_section(result)
    if extra is not None:
        parts.append(extra)
    figs = {
        name: h.figure_png(png, alt=captions[name], caption=captions[name], name=name)
        for name, png in figures.items()
    }
    main = [f for name, f in figs.items() if not name.startswith("sensitivity_")]
    if main:
        parts.append(h.section("Plots", *main))
    if result.sensitivity is not None:
        studies = [f for name, f in figs.items() if name.startswith("sensitivity_")]
        parts.append(sensitivity_section(result.sensitivity, studies))
    if result.top_items:
        rows = [[i + 1, t.name, t.key, t.count, t.fraction] for i, t in enumerate(result.top_items)]
        parts.append(h.section("Top items", h.table(["#", "name", "key", "count", "fraction"], rows)))
    if result.unverified_top:
        rows = [[t.name, t.count] for t in result.unverified_top]
        parts.append(
            h.section("Unverified (pass the name rule, not in the list)", h.table(["text", "count"], rows))
        )
    if result.k_errors:
        rows = [[k, e] for k, e in result.k_errors.items()]
        parts.append(h.section("Held-out choice of k", h.table(["k", "NMSE"], rows)))
    if result.notes:
        parts.append(h.section("Notes", *[h.paragraph(n) for n in result.notes]))
    prompt = [h.paragraph("Prompt:"), h.code_block(result.prompt)]
    examples = [h.code_block(x) for x in result.examples]
    parts.append(
        h.section("Prompt and example responses", *prompt, h.paragraph("Example responses:"), *examples)
    )
    sub = (
        f"{result.task} · {result.model} ({result.backend}) · criterion {result.criterion} · {result.created}"
    )
    return h.page(
        f"Census: {result.task}", *parts, subtitle=sub, footer="knowsum census · KnowSum (Li et al. 2025)"
    )


def write_census_report(out_dir: Path, result: CensusRecord) -> list[Path]:
    """Save the plots under ``out_dir/plots`` and write ``out_dir/report.html``; return the paths
    (the page last)."""
    figures: dict[str, bytes] = {}
    captions: dict[str, str] = {}
    written: list[Path] = []
    for name, (fig, caption) in plots(result).items():
        path = out_dir / PLOTS_DIR / f"{name}.png"
        figures[name] = p.save(fig, path)
        captions[name] = caption
        written.append(path)
    written.append(h.write_page(out_dir / REPORT_NAME, render_report(result, figures, captions)))
    return written
