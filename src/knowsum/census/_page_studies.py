"""Census sensitivity studies in reports: one run over ``t`` and ``k``, and sweeps across runs.

KnowSum §5.2 (Li et al. 2025): Fig. 8 left / Fig. 12 left (``N̂_tot`` and ``SKR`` over the
extrapolation factor ``t``), Fig. 9 left / Fig. 13 left (``N̂_tot`` and the held-out NMSE over the
truncation level ``k``), and the right-hand plots of Figs. 8-9 / 12-13 (``N_seen`` and ``N̂_tot``
per prompt or sampling setting). Reads the records of :mod:`knowsum.census.record` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from knowsum.census._page_marks import clamp_note, run_mark, unseen_cell
from knowsum.census.record import CensusRecord, CurvePoint, Sensitivity
from knowsum.report import PALETTE, interval_text, text_table
from knowsum.report import html as h
from knowsum.report import plots as p

__all__ = [
    "SWEEP_HEADERS",
    "SweepEntry",
    "sensitivity_plots",
    "sensitivity_section",
    "sensitivity_tables",
    "sweep_figures",
    "sweep_rows",
    "sweep_table",
    "write_census_sweep",
]

T_HEADERS = ["t", "U(t)", "N_tot(t)", "N_tot interval", "SKR(t)"]
K_HEADERS = ["k", "U(t)", "N_tot", "SKR", "held-out NMSE"]
SWEEP_HEADERS = ["setting", "N_seen", "N_tot (est.)", "N_tot interval", "SKR", "k", "n", "note", "run"]

SweepEntry = tuple[str, CensusRecord, str]
"""One cell of a sweep: ``(setting label, result, link to its run)``."""


def _t_rows(study: Sensitivity) -> list[list[Any]]:
    rows = []
    for c in study.t_points:
        seen = c.n_total - c.unseen
        lo = None if c.unseen_lower is None else seen + c.unseen_lower
        hi = None if c.unseen_upper is None else seen + c.unseen_upper
        band = interval_text((lo, hi), None)  # a band collapsed to a point (a clamped Û) is n/a
        rows.append([c.t, unseen_cell(c.unseen, c.unseen_raw), c.n_total, band, c.skr])
    return rows


def _k_rows(study: Sensitivity) -> list[list[Any]]:
    return [
        [
            f"{k.k}{' (best)' if k.k == study.k_best else ''}",
            unseen_cell(k.n_unseen, k.n_unseen_raw),
            k.n_total,
            k.skr,
            k.nmse,
        ]
        for k in study.k_points
    ]


def sensitivity_tables(study: Sensitivity) -> str:
    """The two studies as terminal tables."""
    head_t = f"N_tot and SKR over t ({study.estimator}, k = {study.k}; {study.interval_method} band)"
    head_k = f"N_tot over k (et, t = {study.t:g}) and held-out NMSE ({study.split} splits)"
    return "\n".join(
        [head_t, text_table(T_HEADERS, _t_rows(study)), "", head_k, text_table(K_HEADERS, _k_rows(study))]
    )


def t_curve(
    points: Sequence[CurvePoint],
    name: str,
    title: str,
    vlines: dict[str, float] | None = None,
    band: str = "confidence interval",
) -> Any:
    """N̂_tot(t) = N_seen + Û(t) over t with its interval bands, and SKR(t) on the right axis (KnowSum
    Fig. 8): the census's own curve and the sensitivity study's. ``name``: the curve's legend;
    ``band``: the confidence band's (its level and method). The prediction interval of ``N_tot(t)``
    is drawn as a second, lighter hatched band where the points carry one. A point without a bound
    shows its estimate there."""
    seen = [c.n_total - c.unseen for c in points]  # N_seen, the same at every t
    ts = [c.t for c in points]

    def ends(low: str, high: str) -> tuple[list[float], list[float]]:
        lo = [
            s + (v if (v := getattr(c, low)) is not None else c.unseen)
            for s, c in zip(seen, points, strict=True)
        ]
        hi = [
            s + (v if (v := getattr(c, high)) is not None else c.unseen)
            for s, c in zip(seen, points, strict=True)
        ]
        return lo, hi

    fig = p.curves(
        ts,
        {name: [c.n_total for c in points]},
        ax_right={"SKR(t)": [c.skr if c.skr is not None else math.nan for c in points]},
        ylabel_right="SKR(t)",
        xlabel="extrapolation factor t",
        ylabel="estimated total items",
        title=title,
        vlines=vlines,
    )
    ax = fig.axes[0]
    colour = PALETTE[0]
    if any(c.unseen_pred_lower is not None for c in points):
        lo, hi = ends("unseen_pred_lower", "unseen_pred_upper")
        ax.fill_between(ts, lo, hi, color=colour, alpha=0.08, hatch="//", lw=0, label="prediction interval")
    lo, hi = ends("unseen_lower", "unseen_upper")
    ax.fill_between(ts, lo, hi, color=colour, alpha=0.18, lw=0, label=band)
    handles: list[Any] = []
    labels: list[str] = []
    for axis in fig.axes:
        more = axis.get_legend_handles_labels()
        handles, labels = handles + more[0], labels + more[1]
    ax.legend(handles, labels, loc="best", fontsize=9)
    return fig


def sensitivity_plots(study: Sensitivity) -> dict[str, tuple[Any, str]]:
    """``sensitivity_t`` (Fig. 8 left) and ``sensitivity_k`` (Fig. 9 left): name → (figure, caption)."""
    fig_t = t_curve(
        study.t_points,
        "N_tot(t)",
        "Effect of the extrapolation factor t",
        band=f"{study.interval_method} band",
    )
    ks = [k.k for k in study.k_points]
    fig_k = p.curves(
        ks,
        {"N_tot (t fixed)": [k.n_total for k in study.k_points]},
        ax_right={"held-out NMSE": [k.nmse for k in study.k_points]},
        ylabel_right="normalized MSE",
        xlabel="truncation level k",
        ylabel="estimated total items",
        title="Effect of the truncation level k",
        vlines={f"best k = {study.k_best}": study.k_best},
    )
    return {
        "sensitivity_t": (
            fig_t,
            f"N̂_tot(t) with {study.interval_method} band and SKR(t) over t "
            f"(KnowSum Fig. 8 left / Fig. 12 left).{clamp_note(study.t_points)}",
        ),
        "sensitivity_k": (
            fig_k,
            f"N̂_tot at t = {study.t:g} and held-out NMSE over k (KnowSum Fig. 9 left / Fig. 13 left).",
        ),
    }


def sensitivity_section(study: Sensitivity, figures: Sequence[h.Markup]) -> h.Markup:
    """The report section: the two plots and both tables."""
    return h.section(
        "Sensitivity to t and k (KnowSum §5.2)",
        h.paragraph(
            f"From this run's responses, no new sampling. t study: estimator {study.estimator}, "
            f"k = {study.k}, {study.interval_method} band from {study.n_resamples} bootstrap resamples. "
            f"k study: smoothed Good–Turing at t = {study.t:g}; "
            f"NMSE from {study.n_shuffles} {study.split} splits per r_obs."
        ),
        *figures,
        h.table(T_HEADERS, _t_rows(study)),
        h.table(K_HEADERS, _k_rows(study)),
        anchor="sensitivity",
    )


def sweep_rows(entries: Sequence[SweepEntry]) -> list[list[Any]]:
    """One row per ``(setting label, result, run link)``."""
    rows = []
    for label, r, link in entries:
        iv = interval_text(r.interval_total, r.interval_reason)
        found = [run_mark(r), *(c.mark for c in r.caveats if c.kind != "clamped")]  # the clamp with its raw Û
        note = "; ".join(dict.fromkeys(m for m in found if m))
        rows.append([label, r.n_seen, r.n_total, iv, r.skr, r.k, r.n_observations, note, link])
    return rows


def _whisker(total: float, iv: Sequence[float | None] | None) -> tuple[float, float]:
    """Error-bar lengths below and above ``total`` (never negative; 0 without a finite interval)."""
    if iv is None or not all(x is not None and math.isfinite(x) for x in (total, *iv)):
        return (0.0, 0.0)
    lo, hi = float(iv[0] or 0.0), float(iv[1] or 0.0)
    return (max(total - lo, 0.0), max(hi - total, 0.0))


def sweep_figures(entries: Sequence[SweepEntry]) -> list[tuple[Any, str]]:
    """``N_seen`` and ``N̂_tot`` (with its interval as whiskers) per setting (Figs. 8-9 right style)."""
    labels = [label for label, _, _ in entries]
    seen = [float(r.n_seen) for _, r, _ in entries]
    total = [float(r.n_total) if r.n_total is not None else math.nan for _, r, _ in entries]
    fig_s = p.grouped_bars(
        labels, {"N_seen": seen}, title="N_seen per setting", ylabel="distinct verified items"
    )
    fig_t, ax = p.new_figure(max(7.5, 1.6 * len(labels)), 4.5)
    whiskers = [_whisker(t, r.interval_total) for t, (_, r, _) in zip(total, entries, strict=True)]
    below, above = [w[0] for w in whiskers], [w[1] for w in whiskers]
    drawn = [t if math.isfinite(t) else 0.0 for t in total]
    ax.bar(
        range(len(labels)), drawn, color=p.PALETTE[1], yerr=[below, above], capsize=4, label="N_tot (est.)"
    )
    ax.bar(range(len(labels)), seen, color=p.PALETTE[0], width=0.4, label="N_seen")
    for i, (_, r, _) in enumerate(entries):
        mark = run_mark(r)
        if mark:
            ax.annotate(
                mark,
                (i, 0),
                xytext=(0, 4),
                textcoords="offset points",
                ha="center",
                va="bottom",
                rotation=90,
                fontsize=8,
            )
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_ylabel("items")
    ax.set_title("N_tot per setting (whiskers: its interval)")
    ax.legend()
    return [
        (fig_s, "N_seen per setting (KnowSum Fig. 8 right / Fig. 9 right style)."),
        (fig_t, "N̂_tot per setting with its interval; N_seen inside each bar (Figs. 8-9 right style)."),
    ]


def sweep_table(entries: Sequence[SweepEntry]) -> str:
    """The sweep's cells as a terminal table."""
    return text_table(SWEEP_HEADERS, sweep_rows(entries))


def write_census_sweep(path: Path, entries: Sequence[SweepEntry], title: str) -> Path:
    """A self-contained comparison page of a sweep: table, both plots, links to each cell's report."""
    rows = sweep_rows(entries)
    cells = [[*row[:-1], h.link(row[-1], "report")] for row in rows]
    figs = [
        h.figure(fig, alt=cap, caption=cap, name=f"sweep{i}")
        for i, (fig, cap) in enumerate(sweep_figures(entries))
    ]
    parts = [
        h.section("Settings", h.table(SWEEP_HEADERS, cells)),
        h.section("N_seen and N_tot per setting", *figs),
    ]
    return h.write_page(path, h.page(title, *parts, subtitle=f"{len(entries)} runs (KnowSum §5.2)"))
