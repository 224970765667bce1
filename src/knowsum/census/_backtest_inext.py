"""iNEXT's own intervals for the back-test's iNEXT rows (``inext-abundance``, ``inext-incidence``).

iNEXT's confidence interval of its q = 0 extrapolation is ``Ŝ ± z·ŝ``, ``ŝ`` over replicates drawn from
the community it estimates (Chao et al. 2014, App. S2; iNEXT ``EstiBootComm.Ind``/``.Sam``); the
prediction interval adds the Poisson ``Var(U) ≤ E U``: ``Û ± z·sqrt(ŝ² + Û)`` (both cut at 0;
:mod:`knowsum.stats.q0_prediction`). ``ŝ`` of each kept sample comes from
:func:`knowsum.stats.foresee_inext.inext_bootstrap_sd` with ``resamples`` replicates on split ``j``'s
own stream :func:`~knowsum.census._split_seeds.community_rng` ``(seed, t, j)``, so a split's interval
does not depend on the other splits drawn with it. ``inext-abundance-sc`` keeps knowsum's query
bootstrap: its singletons are a prediction from ``f2…f4``, which iNEXT's community does not model.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from knowsum.census._split_seeds import community_rng
from knowsum.stats import foresee as fs
from knowsum.stats.foresee_inext import inext_bootstrap_sd
from knowsum.stats.q0_prediction import q0_prediction_bounds

__all__ = ["INEXT_OWN", "inext_own"]

Predictor = Callable[[fs.Panel], NDArray[np.float64]]

INEXT_OWN = frozenset({"inext-abundance", "inext-incidence"})
"""Predictors whose intervals are iNEXT's own (its parametric bootstrap from the estimated community)."""


def inext_own(
    panel: fs.Panel,
    predictors: Mapping[str, Predictor],
    boot: int,
    seed: int,
    t: float,
    splits: range,
    level: float,
) -> dict[str, tuple[NDArray[np.float64], ...]]:
    """iNEXT's own confidence and prediction intervals of the iNEXT rows on the kept samples: ``ŝ``
    over ``resamples`` replicates from the estimated community (split ``j``'s stream
    :func:`community_rng`), ``Û ± z·ŝ`` and ``Û ± z·sqrt(ŝ² + Û)``, cut at 0
    (:mod:`knowsum.stats.foresee_inext`). NaN ends without resamples or singletons."""
    out: dict[str, tuple[NDArray[np.float64], ...]] = {}
    kept = np.arange(len(splits)) * (boot + 1)
    z = float(NormalDist().inv_cdf(0.5 + level / 2))
    for name in INEXT_OWN.intersection(predictors):
        incidence = name == "inext-incidence"
        hist = (panel.incidence if incidence else panel.hist)[kept]
        sizes = np.full(kept.size, float(panel.units)) if incidence else panel.n[kept]
        sd = np.array(
            [
                inext_bootstrap_sd(hist[i], sizes[i], sizes[i] * panel.t, boot, community_rng(seed, t, j))
                for i, j in enumerate(splits)
            ]
        )
        u = np.maximum(predictors[name](panel)[kept], 0.0)
        lo, hi = q0_prediction_bounds(u, sd, 0.0, level)
        with np.errstate(invalid="ignore"):
            out[name] = (np.maximum(u - z * sd, 0.0), u + z * sd, lo, hi)
    return out
