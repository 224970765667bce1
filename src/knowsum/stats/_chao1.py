"""Chao1 richness from ``(N_seen, f₁, f₂, n)``, vectorized over bootstrap resamples (both forms:
:mod:`knowsum.stats.unseen`'s ``chao1`` estimator and its bootstrap)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from knowsum.stats._errors import StatsError
from knowsum.stats._plan import Chao1Form

__all__ = ["chao1_total"]


def chao1_total(
    n_seen: NDArray[np.float64] | float,
    f1: NDArray[np.float64] | float,
    f2: NDArray[np.float64] | float,
    n: NDArray[np.float64] | float,
    form: Chao1Form = "bias-corrected",
) -> NDArray[np.float64]:
    """Chao1 richness from ``(N_seen, f₁, f₂, n)`` (vectorized over resamples).

    ``bias-corrected``: ``S + f₁(f₁−1) / (2(f₂+1))`` (Chao 2005; EstimateS, scikit-bio).
    ``classic``: ``S + (n−1)/n · f₁²/(2f₂)`` if ``f₂ > 0``, else ``S + (n−1)/n · f₁(f₁−1)/2``
    (Chao 1984; Chao & Jost 2012, as in copia and SpadeR).
    """
    s_obs, f1a, f2a, na = (np.asarray(x, dtype=np.float64) for x in (n_seen, f1, f2, n))
    if form == "bias-corrected":
        return np.asarray(s_obs + f1a * (f1a - 1.0) / (2.0 * (f2a + 1.0)))
    if form == "classic":
        safe_f2 = np.where(f2a > 0, f2a, 1.0)
        extra = np.where(f2a > 0, f1a * f1a / (2.0 * safe_f2), f1a * (f1a - 1.0) / 2.0)
        return np.asarray(s_obs + (na - 1.0) / na * extra)
    raise StatsError(f"unknown Chao1 form {form!r}; known: bias-corrected, classic")
