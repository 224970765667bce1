"""Granger causality F test on two ordered series (Granger 1969), via statsmodels.

Bombieri et al. (§5.1, fn. 12) apply it cross-sectionally: the series are ordered by popularity
bucket, and the test asks whether bucket popularity helps predict bucket accuracy at lag 3.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

__all__ = ["granger_f"]


def granger_f(
    effect: Sequence[float], cause: Sequence[float], lag: int = 3
) -> tuple[float | None, float | None]:
    """Granger (1969) F statistic and p-value that ``cause`` helps predict ``effect`` at ``lag``.

    The series are ordered by popularity bucket (cross-sectional Granger, paper §5.1 fn. 12). Uses
    statsmodels' ``ssr_ftest``. ``(None, None)`` when the series are too short or degenerate.
    """
    if len(effect) < 3 * lag + 2 or np.ptp(effect) == 0 or np.ptp(cause) == 0:
        return None, None
    from statsmodels.tsa.stattools import grangercausalitytests

    data = np.column_stack([np.asarray(effect, float), np.asarray(cause, float)])
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = grangercausalitytests(data, maxlag=[lag])
    except (ValueError, np.linalg.LinAlgError):
        return None, None
    f, p = float(res[lag][0]["ssr_ftest"][0]), float(res[lag][0]["ssr_ftest"][1])
    return (f, p) if math.isfinite(f) and math.isfinite(p) else (None, None)
