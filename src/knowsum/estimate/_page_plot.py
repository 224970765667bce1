"""The size- and coverage-based R/E curves of ``knowsum estimate --curve --plot``, as a PNG."""

from __future__ import annotations

import os
from pathlib import Path

from knowsum.estimate.record import CurveSummary
from knowsum.report import PALETTE, new_figure, save

__all__ = ["plot_richness_curve"]


def plot_richness_curve(curve: CurveSummary, path: str | os.PathLike[str], title: str | None = None) -> Path:
    """Write the size-based (left) and coverage-based (right) curves of q = 0, 1, 2 with their
    bootstrap bands to ``path`` (PNG); rarefaction solid, extrapolation dashed, the part beyond
    twice the sample shaded and labelled as unreliable."""
    fig, _ = new_figure(11.0, 4.2)
    fig.clear()
    left, right = fig.subplots(1, 2)
    n = curve.reference_size
    for i, q in enumerate((0, 1, 2)):
        colour = PALETTE[i]
        sizes, ys = curve.size, curve.diversity[i]
        inter = [j for j, m in enumerate(sizes) if m <= n]
        extra = [j for j, m in enumerate(sizes) if m >= n]
        left.plot([sizes[j] for j in inter], [ys[j] for j in inter], color=colour, lw=2, label=f"q = {q}")
        left.plot([sizes[j] for j in extra], [ys[j] for j in extra], color=colour, lw=2, ls="--")
        if curve.lower is not None and curve.upper is not None:
            left.fill_between(sizes, curve.lower[i], curve.upper[i], color=colour, alpha=0.18, lw=0)
        ref = sizes.index(float(n)) if float(n) in sizes else None
        if ref is not None:
            left.plot([n], [ys[ref]], "o", color=colour)
        right.plot(curve.cov_coverage, curve.cov_diversity[i], color=colour, lw=2, label=f"q = {q}")
        if curve.cov_lower is not None and curve.cov_upper is not None:
            right.fill_between(
                curve.cov_coverage, curve.cov_lower[i], curve.cov_upper[i], color=colour, alpha=0.18, lw=0
            )
    top = max(curve.size)
    if top > 2 * n:
        left.axvspan(2 * n, top, color="#999999", alpha=0.15, lw=0)
        left.annotate("beyond 2n:\nunreliable", (2 * n, 0.92), xycoords=("data", "axes fraction"), fontsize=8)
    left.set_xlabel("sample size m (solid: rarefaction, dashed: extrapolation)")
    left.set_ylabel("diversity qD")
    left.legend(fontsize=9)
    right.set_xlabel("sample coverage Ĉ(m)")
    right.set_ylabel("diversity qD")
    right.legend(fontsize=9)
    if title:
        fig.suptitle(title)
    out = Path(path)
    save(fig, out)
    return out
