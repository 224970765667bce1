"""The profile's figures: strip plots placing a model among the papers' models, and small multiples.

Both read :class:`knowsum.records.profile.Measure` rows only. A measure is drawn on its own axis
(its own scale): published models as grey points, the profiled model(s) as coloured points with
their interval as a horizontal bar.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from knowsum.records.profile import Measure

__all__ = ["NAMED", "fmt", "small_multiples", "strip_plot"]

NAMED = ("LLaMA-V3-70B-instruct", "GPT-4", "GPT-5")
"""Published models always labelled on a strip (the papers' reference points)."""

_COLOURS = ("#c0392b", "#2f5fb3", "#1b7f3b", "#8e44ad", "#d35400", "#16a085")


def fmt(m: Measure, value: float | None) -> str:
    """A measure's value as the card prints it (percent, count or 3 decimals; ``–`` when undefined)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if m.percent:
        return f"{100 * value:.1f}%"
    if m.count:
        return f"{value:,.0f}"
    return f"{value:.3f}"


def _scale(m: Measure) -> float:
    return 100.0 if m.percent else 1.0


def _figure(rows: int, width: float = 7.5) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 0.55 + 0.75 * rows), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, 1, squeeze=False)[:, 0]
    return fig, axes


def strip_plot(measures: Sequence[Measure], model: str) -> Any:
    """One row per measure: the papers' models (grey; the reference models labelled) and ``model``
    (red, with its interval). Measures without a value are skipped; ``None`` when none is left."""
    rows = [m for m in measures if m.value is not None]
    if not rows:
        return None
    fig, axes = _figure(len(rows))
    for ax, m in zip(axes, rows, strict=True):
        k = _scale(m)
        xs = [p.value * k for p in m.published]
        ys = [((i * 0.6180339) % 1.0 - 0.5) * 0.5 for i in range(len(xs))]
        ax.scatter(xs, ys, s=18, color="#9aa3b5", zorder=2)
        for p, x, y in zip(m.published, xs, ys, strict=True):
            if p.model in NAMED:
                ax.annotate(
                    p.model, (x, y), xytext=(3, 4), textcoords="offset points", fontsize=7, color="#444"
                )
        v = float(m.value or 0.0) * k
        if m.lower is not None and m.upper is not None:
            ax.plot([m.lower * k, m.upper * k], [0, 0], color=_COLOURS[0], lw=2.5, zorder=3)
        ax.scatter([v], [0], s=46, color=_COLOURS[0], zorder=4, marker="D")
        ax.annotate(model, (v, 0), xytext=(3, -11), textcoords="offset points", fontsize=7, color=_COLOURS[0])
        ax.set_yticks([])
        ax.set_ylim(-0.6, 0.6)
        ax.set_title(m.label + (" (%)" if m.percent else ""), fontsize=8, loc="left")
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(True, axis="x", alpha=0.3)
    return fig


def small_multiples(
    series: Sequence[tuple[str, Sequence[Measure]]], keys: Sequence[str], published: bool
) -> Any:
    """One panel per measure key; models as points with their intervals (and the papers' when asked).

    Args:
        series: ``(model label, its measures)`` per profile.
        keys: The measure keys to draw (one panel each, in order).
        published: Also draw the papers' models (grey) on each panel.
    """
    if not keys:
        return None
    cols = min(3, len(keys))
    nrows = math.ceil(len(keys) / cols)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3.3 * cols, 0.6 + 0.5 * len(series) + 1.4 * nrows), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(nrows, cols, squeeze=False).ravel()
    for ax, key in zip(axes, keys, strict=False):
        ref = next((m for _, ms in series for m in ms if m.key == key), None)
        if ref is None:
            continue
        k = _scale(ref)
        if published:
            xs = [p.value * k for p in ref.published]
            ax.scatter(xs, [-1] * len(xs), s=12, color="#9aa3b5")
        for i, (_name, ms) in enumerate(series):
            m = next((x for x in ms if x.key == key), None)
            if m is None or m.value is None:
                continue
            colour = _COLOURS[i % len(_COLOURS)]
            if m.lower is not None and m.upper is not None:
                ax.plot([m.lower * k, m.upper * k], [i, i], color=colour, lw=2)
            ax.scatter([m.value * k], [i], color=colour, s=30, zorder=3)
        labels = [name for name, _ in series]
        ticks = list(range(len(labels)))
        if published:
            ticks, labels = [-1, *ticks], ["papers", *labels]
        ax.set_yticks(ticks, labels, fontsize=7)
        ax.set_title(ref.label + (" (%)" if ref.percent else ""), fontsize=8)
        ax.tick_params(axis="x", labelsize=7)
        ax.grid(True, axis="x", alpha=0.3)
    for ax in axes[len(keys) :]:
        ax.set_visible(False)
    return fig
