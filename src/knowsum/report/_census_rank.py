"""Seen vs estimated, ranked: the KnowSum Fig. 1 view of ``knowsum census compare``.

Fig. 1 of the paper shows that ranking models by what they *would* say (``N̂_tot``) reorders them
compared with what they *did* say (``N_seen``). :func:`ranking_figure` draws both for a set of runs:
left, ``N_seen`` and ``N̂_tot`` per model (with the ``N̂_tot`` interval as whiskers), ordered by
``N_seen``; right, each model's rank by ``N_seen`` joined to its rank by ``N̂_tot``. Reads records
only (duck-typed like :mod:`knowsum.report.census`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from knowsum.report import _plots as p

__all__ = ["ranking_figure", "ranks"]


def ranks(values: Sequence[float]) -> list[int]:
    """Rank of each value, 1 = largest (ties keep input order)."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    out = [0] * len(values)
    for pos, i in enumerate(order, 1):
        out[i] = pos
    return out


def ranking_figure(results: Sequence[Any], labels: Sequence[str] | None = None) -> Any:
    """A two-panel figure: bars of ``N_seen`` and ``N̂_tot`` per run, and ranks by each."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    names = list(labels) if labels is not None else [r.model for r in results]
    seen = [float(r.n_seen) for r in results]
    total = [float(r.n_total) if r.n_total is not None else float(r.n_seen) for r in results]
    order = sorted(range(len(results)), key=lambda i: -seen[i])
    fig = Figure(figsize=(10.5, 4.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    xs = range(len(order))
    below, above = [], []
    for i in order:
        iv = getattr(results[i], "interval_total", None)  # published rows have none
        if iv is not None and all(v is not None and math.isfinite(v) for v in iv):
            below.append(max(total[i] - iv[0], 0.0))
            above.append(max(iv[1] - total[i], 0.0))
        else:
            below.append(0.0)
            above.append(0.0)
    ax.bar([x - 0.2 for x in xs], [seen[i] for i in order], width=0.4, color=p.PALETTE[0], label="N_seen")
    ax.bar([x + 0.2 for x in xs], [total[i] for i in order], width=0.4, color=p.PALETTE[1],
           yerr=[below, above], capsize=4, label="N_tot (estimated)")  # fmt: skip
    ax.set_xticks(list(xs), [names[i] for i in order], rotation=20, ha="right")
    ax.set_ylabel("distinct items")
    ax.set_title("Seen vs estimated total")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    rank_seen, rank_total = ranks(seen), ranks(total)
    for i, name in enumerate(names):
        colour = p.PALETTE[i % len(p.PALETTE)]
        ax2.plot([0, 1], [rank_seen[i], rank_total[i]], marker="o", color=colour, lw=2)
        ax2.annotate(name, (1, rank_total[i]), xytext=(6, 0), textcoords="offset points", va="center",
                     fontsize=8, color=colour)  # fmt: skip
    ax2.set_xticks([0, 1], ["rank by N_seen", "rank by N_tot"])
    ax2.set_xlim(-0.2, 1.9)
    ax2.set_ylim(len(names) + 0.5, 0.5)
    ax2.set_yticks(range(1, len(names) + 1))
    ax2.set_title("Ranking (KnowSum Fig. 1)")
    return fig
