"""Generic matplotlib plot primitives for the knowsum reports (headless, Agg backend).

Each function builds and returns one ``matplotlib.figure.Figure`` (never touching pyplot's global
state, so it is thread-safe and leaks nothing); :func:`to_png` renders it to PNG bytes and closes
it, :func:`save` writes it to a file. Instruments compose these into their own figures, e.g. the
prevalence histogram (KnowSum paper Fig. 4) is :func:`bars` with a log y axis.

Rendering never writes to stderr: a label holding a character the font lacks (an emoji in a model's
answer) is drawn as the font's missing-glyph box, and matplotlib's ``Glyph … missing from font``
warning, which would name a source file of matplotlib, is kept out of the user's terminal.
"""

from __future__ import annotations

import io
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypedDict, Unpack

__all__ = [
    "AxisText",
    "barh",
    "bars",
    "boxes",
    "curves",
    "grouped_bars",
    "new_figure",
    "radar",
    "save",
    "scatter_identity",
    "to_png",
]

PALETTE = ("#2f5fb3", "#d9822b", "#1b7f3b", "#b3261e", "#7a4fb3", "#5b6476", "#c0a000", "#008b8b")
"""Colours used in order for series."""


def new_figure(width: float = 7.0, height: float = 4.0) -> tuple[Any, Any]:
    """A new ``(figure, axes)`` pair on the Agg canvas (no pyplot, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    ax.grid(True, alpha=0.3)
    return fig, ax


class AxisText(TypedDict, total=False):
    """The texts of a plot, taken as keywords by every primitive that draws on one axis."""

    title: str | None
    """The axes' title."""
    xlabel: str | None
    """The x axis label."""
    ylabel: str | None
    """The y axis label."""


def _label(ax: Any, **text: Unpack[AxisText]) -> None:
    """Set the :class:`AxisText` given (an empty or ``None`` text sets nothing)."""
    for key, value in text.items():
        if value:
            getattr(ax, f"set_{key}")(value)


def _zero_stubs(ax: Any, x: Sequence[float], heights: Sequence[float], width: float, colour: str) -> bool:
    """Draw each zero height as a stub on the axis (a measured 0 is no missing bar); any drawn?"""
    half, zeros = width / 2, [xi for xi, hi in zip(x, heights, strict=True) if hi == 0]
    if zeros:
        ax.hlines([0.0] * len(zeros), [z - half for z in zeros], [z + half for z in zeros], colour, lw=4)
    return bool(zeros)


def bars(
    x: Sequence[float],
    heights: Sequence[float],
    *,
    log_y: bool = False,
    color: str = PALETTE[0],
    annotate: bool = False,
    y_range: tuple[float, float] | None = None,
    show_zeros: bool = False,
    **text: Unpack[AxisText],
) -> Any:
    """A vertical bar chart of ``heights`` at positions ``x``.

    Args:
        x: bar positions (e.g. frequencies s = 1, 2, …).
        heights: bar heights (e.g. n_s).
        log_y: logarithmic y axis (zero-height bars are simply not drawn).
        annotate: write each height above its bar.
        y_range: the y axis limits (e.g. ``(0, 1)`` for an accuracy), whatever the heights.
        show_zeros: draw a zero-height bar as a thick stub on the axis, labelled ``0``, so that a
            bucket measured at 0 is told apart from one not drawn (an all-zero chart is not blank).
    """
    fig, ax = new_figure()
    ax.bar(list(x), list(heights), color=color, width=0.8)
    if log_y and any(h > 0 for h in heights):
        ax.set_yscale("log")
    if y_range is not None:
        ax.set_ylim(*y_range)
    if show_zeros and not log_y and _zero_stubs(ax, x, heights, 0.8, color):
        for xi in (xi for xi, hi in zip(x, heights, strict=True) if hi == 0):
            ax.annotate("0", (xi, 0.0), xytext=(0, 3), textcoords="offset points", ha="center", fontsize=7)
        ax.set_ylim(bottom=min(ax.get_ylim()[0], -0.02 * ax.get_ylim()[1]))
    if annotate:
        for xi, hi in zip(x, heights, strict=True):
            if hi > 0:
                ax.annotate(f"{hi:g}", (xi, hi), ha="center", va="bottom", fontsize=8)
    _label(ax, **text)
    return fig


def grouped_bars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    errors: Mapping[str, Sequence[float]] | None = None,
    bounds: tuple[float, float] | None = None,
    **text: Unpack[AxisText],
) -> Any:
    """Side-by-side bars: one group per category, one bar per named series.

    Args:
        categories: group labels (x axis).
        series: name → one height per category (NaN: no bar).
        errors: name → symmetric error bar per category (e.g. a std; NaN or 0: none).
        bounds: the range the quantity lives in (``(0, 100)`` for a percentage): error bars are cut
            at it, so a bar never claims an impossible value.

    A height of exactly 0 is drawn as a thick stub on the axis in its series' colour (a measured
    zero, told apart from NaN, which draws nothing), so an all-zero chart is not blank.
    """
    fig, ax = new_figure(max(6.0, 0.6 * len(categories) * max(1, len(series)) ** 0.5), 4.0)
    n = max(1, len(series))
    width = 0.8 / n
    for i, (name, values) in enumerate(series.items()):
        offs = [j + (i - (n - 1) / 2) * width for j in range(len(categories))]
        err = (errors or {}).get(name)
        yerr: Any = None
        if err is not None:
            lo, hi = bounds if bounds is not None else (-math.inf, math.inf)
            yerr = [
                [min(e, v - lo) if v == v else 0.0 for v, e in zip(values, err, strict=True)],
                [min(e, hi - v) if v == v else 0.0 for v, e in zip(values, err, strict=True)],
            ]
        ax.bar(
            offs,
            list(values),
            width=width,
            label=name,
            color=PALETTE[i % len(PALETTE)],
            yerr=yerr,
            capsize=4 if err is not None else 0,
        )
        _zero_stubs(ax, offs, values, width, PALETTE[i % len(PALETTE)])
    ax.set_xticks(range(len(categories)), list(categories), rotation=30, ha="right")
    if series:
        ax.legend()
    _label(ax, **text)
    return fig


def barh(
    labels: Sequence[str],
    values: Sequence[float],
    *,
    max_label: int = 48,
    color: str = PALETTE[0],
    **text: Unpack[AxisText],
) -> Any:
    """Horizontal bars, first label on top (e.g. the most frequent items, paper Fig. 5).

    Labels are drawn as plain text (matplotlib mathtext is disabled for them), shortened to
    ``max_label`` characters.
    """
    shown = [lab if len(lab) <= max_label else lab[: max_label - 1] + "…" for lab in labels]
    fig, ax = new_figure(7.5, max(2.5, 0.28 * len(labels) + 1.2))
    pos = list(range(len(labels)))[::-1]
    ax.barh(pos, list(values), color=color)
    ax.set_yticks(pos, shown)
    for tick in ax.get_yticklabels():
        tick.set_usetex(False)
        tick.set_parse_math(False)
    _label(ax, **text)
    return fig


def curves(
    x: Sequence[float],
    series: dict[str, Sequence[float]],
    *,
    bands: dict[str, tuple[Sequence[float], Sequence[float]]] | None = None,
    vlines: dict[str, float] | None = None,
    ax_right: dict[str, Sequence[float]] | None = None,
    ylabel_right: str | None = None,
    **text: Unpack[AxisText],
) -> Any:
    """Line curves over a shared x, with optional shaded interval bands and a right axis.

    Args:
        x: shared abscissa (e.g. extrapolation factor t).
        series: name → y values (left axis).
        bands: name → (lower, upper) shaded around the series of the same name.
        vlines: label → x of a dashed vertical marker (e.g. t = 1, "observed").
        ax_right: name → y values drawn dashed on a secondary axis (e.g. SKR(t)).
        ylabel_right: label of the secondary axis.
    """
    fig, ax = new_figure()
    xs = list(x)
    for i, (name, ys) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        ax.plot(xs, list(ys), label=name, color=colour, lw=2)
        if bands and name in bands:
            lo, hi = bands[name]
            ax.fill_between(xs, list(lo), list(hi), color=colour, alpha=0.18, lw=0)
    handles, labels = ax.get_legend_handles_labels()
    if ax_right:
        ax2 = ax.twinx()
        for j, (name, ys) in enumerate(ax_right.items()):
            colour = PALETTE[(len(series) + j) % len(PALETTE)]
            ax2.plot(xs, list(ys), label=name, color=colour, lw=1.8, ls="--")
        if ylabel_right:
            ax2.set_ylabel(ylabel_right)
        h2, l2 = ax2.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
    for label, xv in (vlines or {}).items():
        ax.axvline(xv, color="#888888", ls=":", lw=1)
        ax.annotate(label, (xv, 0.02), xycoords=("data", "axes fraction"), fontsize=8, rotation=90)
    if handles:
        ax.legend(handles, labels, loc="best", fontsize=9)
    _label(ax, **text)
    return fig


def scatter_identity(
    actual: Sequence[float],
    estimated: Sequence[float],
    *,
    groups: Sequence[str] | None = None,
    title: str | None = None,
    xlabel: str = "actual",
    ylabel: str = "estimated",
    limits: tuple[float, float] | None = None,
) -> Any:
    """Estimated vs actual with the identity line (a held-out check, paper Fig. 7).

    Args:
        actual: true values (x).
        estimated: estimates (y).
        groups: optional group name per point; one colour and legend entry per group.
        limits: fixed ``(low, high)`` of both axes, the identity line spanning them (default: the
            data range).
    """
    fig, ax = new_figure(5.5, 4.5)
    names = list(groups) if groups is not None else ["" for _ in actual]
    order = list(dict.fromkeys(names))
    for i, name in enumerate(order):
        idx = [j for j, g in enumerate(names) if g == name]
        ax.scatter(
            [actual[j] for j in idx],
            [estimated[j] for j in idx],
            label=name or None,
            color=PALETTE[i % len(PALETTE)],
            s=36,
            zorder=3,
        )
    values = [v for v in list(actual) + list(estimated) if v == v]
    if limits is not None:
        ax.plot(list(limits), list(limits), color="#888888", ls="--", lw=1, label="y = x")
        ax.set_xlim(*limits)
        ax.set_ylim(*limits)
    elif values:
        lo, hi = min(values), max(values)
        pad = 0.05 * (hi - lo or 1.0)
        ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="#888888", ls="--", lw=1, label="y = x")
    ax.legend(fontsize=9)
    _label(ax, title=title, xlabel=xlabel, ylabel=ylabel)
    return fig


def boxes(
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    title: str | None = None,
    log_panels: Sequence[str] = (),
    ncols: int = 3,
) -> Any:
    """Box plots in side-by-side panels: one panel per measure, one box per group within it.

    Every panel shows the same groups in the same order and colours (e.g. "without abstracts" vs
    "with abstracts", paper Figs. 7–8); a group without values is left empty. NaNs are dropped.

    Args:
        panels: panel title → group name → values.
        title: figure title.
        log_panels: panel titles drawn with a logarithmic y axis (e.g. perplexity).
        ncols: panels per row.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    groups = list(dict.fromkeys(g for values in panels.values() for g in values))
    cols = max(1, min(ncols, len(panels)))
    rows = max(1, -(-len(panels) // cols))
    fig = Figure(figsize=(3.2 * cols + 0.6, 3.0 * rows + 0.6), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    for k, (name, by_group) in enumerate(panels.items()):
        ax = fig.add_subplot(rows, cols, k + 1)
        ax.grid(True, axis="y", alpha=0.3)
        data = [[v for v in by_group.get(g, []) if v == v] for g in groups]
        pos = [i + 1 for i, d in enumerate(data) if d]
        if pos:
            art = ax.boxplot([data[i - 1] for i in pos], positions=pos, widths=0.6, patch_artist=True)
            for i, patch in zip(pos, art["boxes"], strict=True):
                patch.set_facecolor(PALETTE[(i - 1) % len(PALETTE)])
                patch.set_alpha(0.55)
        ax.set_xticks(range(1, len(groups) + 1), groups, fontsize=8)
        ax.set_xlim(0.4, len(groups) + 0.6)
        if name in log_panels and any(v > 0 for d in data for v in d):
            ax.set_yscale("log")
        ax.set_title(name, fontsize=10)
    if title:
        fig.suptitle(title)
    return fig


def radar(
    axes: Sequence[str],
    series: Mapping[str, Sequence[float]],
    *,
    title: str | None = None,
    r_max: float | None = None,
) -> Any:
    """A radar (spider) chart: one closed polygon per named series over the ``axes`` (paper Fig. 9).

    Args:
        axes: spoke labels, clockwise from the top.
        series: name → one value per spoke (NaN leaves a gap in that polygon).
        title: figure title.
        r_max: outer radius (default: the largest value).
    """
    import math

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 5.5), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax: Any = fig.add_subplot(1, 1, 1, projection="polar")  # a PolarAxes
    ax.set_theta_offset(math.pi / 2)
    ax.set_theta_direction(-1)
    angles = [2 * math.pi * i / max(1, len(axes)) for i in range(len(axes))]
    for i, (name, values) in enumerate(series.items()):
        colour = PALETTE[i % len(PALETTE)]
        vals = list(values)
        ax.plot([*angles, angles[0]], [*vals, vals[0]], color=colour, lw=2, label=name, marker="o")
        if all(v == v for v in vals):
            ax.fill(angles, vals, color=colour, alpha=0.12)
    ax.set_xticks(angles, list(axes))
    finite = [v for values in series.values() for v in values if v == v]
    ax.set_ylim(0, r_max if r_max is not None else (max(finite) if finite else 1.0) or 1.0)
    if series:
        ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0), fontsize=9)
    if title:
        ax.set_title(title, pad=18)
    return fig


def to_png(fig: Any, dpi: int = 100) -> bytes:
    """Render ``fig`` to PNG bytes and release it (a glyph missing from the font is drawn as a box,
    without matplotlib's warning)."""
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.filterwarnings(
            "ignore", message=r"Glyph \d+ .*missing from (current )?font", category=UserWarning
        )
        warnings.filterwarnings(
            "ignore", message=r"Matplotlib currently does not support", category=UserWarning
        )
        fig.savefig(buf, format="png", dpi=dpi)
    fig.clear()
    return buf.getvalue()


def save(fig: Any, path: str | os.PathLike[str], dpi: int = 100) -> bytes:
    """Write ``fig`` as PNG to ``path`` (parents created) and return the bytes (for embedding)."""
    png = to_png(fig, dpi)
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(png)
    return png
