"""The figures of a recall run: the paper's Fig. 2 (accuracy per bucket), Fig. 3 (``R_B``) and
Fig. 4 (AvPI and accuracy per bucket, one line per invariance method).

Reads :mod:`knowsum.recall.record` records only; each figure is a matplotlib ``Figure`` built on
the Agg canvas (:mod:`knowsum.report._plots`), never through pyplot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knowsum.recall.record import InvarianceSummary, RecallRecord
from knowsum.report import plots as plots

__all__ = ["PLOT_FILES", "invariance_figure", "recall_figures"]

PLOT_FILES = {
    "accuracy": "accuracy_per_bucket.png",
    "rb": "rb_per_bucket.png",
    "invariance": "invariance_per_bucket.png",
    "invariance_knowsum": "invariance_per_bucket_knowsum.png",
}
"""Figure → its file under ``plots/`` of the run directory (``invariance``: Fig. 4 under the paper's
reading when the record has it, else knowsum's; ``invariance_knowsum``: knowsum's reading of the
same answers files, drawn only when the record holds both)."""

_BUCKET_AXIS = "bucket (1 = least popular)"


def invariance_figure(summaries: Sequence[InvarianceSummary], title: str) -> Any:
    """Paper Fig. 4: AvPI per bucket (left panel) and accuracy per bucket (right panel), one line
    per method in the same colour on both panels; a bucket a method lacks is a gap."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    fig = Figure(figsize=(11.0, 4.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    xs = sorted({b.bucket for s in summaries for b in s.buckets})
    panels = (("AvPI", "average prediction invariance (AvPI)"), ("accuracy", "accuracy over the M answers"))
    for k, (name, ylabel) in enumerate(panels):
        ax = fig.add_subplot(1, 2, k + 1)
        ax.grid(True, alpha=0.3)
        for i, s in enumerate(summaries):
            by = {b.bucket: (b.avpi if name == "AvPI" else b.accuracy) for b in s.buckets}
            ys = [by.get(x, float("nan")) for x in xs]
            colour = plots.PALETTE[i % len(plots.PALETTE)]
            ax.plot(xs, ys, label=s.title, color=colour, lw=1.8, marker="o", ms=2.5)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel(_BUCKET_AXIS)
        ax.set_ylabel(ylabel)
        ax.set_title(f"{name} per bucket")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(loc="best", fontsize=8)
    fig.suptitle(title)
    return fig


def _main_readings(result: RecallRecord) -> tuple[list[InvarianceSummary], list[InvarianceSummary]]:
    """Per method the summary Fig. 4 draws (the paper's reading when present, else knowsum's),
    and knowsum's readings of the methods that also have the paper's."""
    main: list[InvarianceSummary] = []
    second: list[InvarianceSummary] = []
    for by in result.invariance_readings().values():
        paper, own = by.get("paper"), by.get("knowsum")
        first = paper or own
        if first is not None and first.buckets:
            main.append(first)
        if paper is not None and own is not None and own.buckets:
            second.append(own)
    return main, second


def _readings_name(summaries: Sequence[InvarianceSummary]) -> str:
    names = dict.fromkeys(
        "the paper's reading" if s.reading == "paper" else "knowsum's reading" for s in summaries
    )
    return " / ".join(names)


def recall_figures(result: RecallRecord) -> dict[str, Any]:
    """The figures the record has data for, by :data:`PLOT_FILES` name."""
    from matplotlib.ticker import MaxNLocator

    figs: dict[str, Any] = {}
    pop = result.scores.popularity
    if pop is not None:
        xs = [b.bucket for b in pop.buckets]

        def per_bucket(values: list[float], title: str, ylabel: str, **extra: Any) -> Any:
            # a bucket at 0 is a stub on the axis, not a blank
            return plots.bars(
                xs, values, title=title, xlabel=_BUCKET_AXIS, ylabel=ylabel, show_zeros=True, **extra
            )

        figs["accuracy"] = per_bucket(
            [b.accuracy or 0.0 for b in pop.buckets],
            f"Accuracy per bucket — {result.model} on {result.kb} (cf. paper Fig. 2)",
            "accuracy",
            y_range=(0.0, 1.0),
        )
        if pop.top_k_used:
            figs["rb"] = per_bucket(
                [b.r_b or 0.0 for b in pop.buckets],
                f"R_B of the top-{pop.top_k_used} repeated wrong IDs (cf. paper Fig. 3)",
                "R_B (1 = uniform)",
            )
        else:  # no bar to draw: the figure says why instead of "R_B of the top-0 …"
            figs["rb"], ax = plots.new_figure()
            ax.set_title(f"R_B per bucket: {result.scores.why_no_rb()} (cf. paper Fig. 3)")
            ax.set_xlim(0.5, max(xs, default=1) + 0.5)
            ax.set_xlabel(_BUCKET_AXIS)
            ax.text(
                0.5,
                0.5,
                f"{result.scores.why_no_rb()}:\nR_B is not defined",
                ha="center",
                va="center",
                transform=ax.transAxes,
                fontsize=11,
            )
        for fig in (figs["accuracy"], figs["rb"]):  # bucket numbers are integers
            fig.axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    main, second = _main_readings(result)
    what = f"{result.model} on {result.kb}"
    if main:
        figs["invariance"] = invariance_figure(
            main, f"Prediction invariance per bucket — {what}, {_readings_name(main)} (cf. paper Fig. 4)"
        )
    if second:
        figs["invariance_knowsum"] = invariance_figure(
            second, f"Prediction invariance per bucket — {what}, knowsum's reading of the same answers"
        )
    return figs
