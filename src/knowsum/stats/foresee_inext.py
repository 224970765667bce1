"""iNEXT's own interval for the back-test's iNEXT rows: its parametric bootstrap from the estimated community.

The back-test's iNEXT predictors (``inext-abundance``, ``inext-incidence``; :mod:`knowsum.stats.foresee`)
extrapolate ``Ŝ(N + N t) = S_obs + Û`` from a kept sample. iNEXT's interval for it (Chao et al. 2014,
Ecol. Monogr. 84:45, App. S2; iNEXT ``EstiBootComm.Ind``/``EstiBootComm.Sam``) draws replicates from
the community it estimates — detected items at ``p̃(x) = x/N (1 − λ(1 − x/N)^N)``, ``⌈f̂0⌉`` undetected
items sharing ``f1/N · A`` (:func:`knowsum.stats.hill.bootstrap_assemblage`) — and takes the
standard deviation ``ŝ`` of ``Ŝ*`` over them: the confidence interval ``Û ± z·ŝ`` (of ``E U``), and the
prediction interval ``Û ± z·sqrt(ŝ² + Û)`` (of ``U``; :mod:`knowsum.stats.q0_prediction`), both cut
at 0.

``Ŝ*`` reads only ``S*_obs``, ``f1*`` and ``f2*`` of a replicate, and ``p̃`` depends on an item's count
only, so the items are drawn **by count class**: the ``f_x`` items of count ``x`` each end a replicate
with 0, 1, 2 or more observations with the ``Bin(N, p̃(x))`` probabilities (incidence: ``Bin(T,
π̃(y))`` per unit, iNEXT's own model), one multinomial draw per class and replicate — a few dozen draws
instead of one per item. Within a class items are independent; iNEXT's abundance replicate is one
multinomial over all items, whose slight negative dependence between items this ignores (it changes
``Var(S*_obs)`` by terms of order ``p̃²``). Counts above the panel's cap (``MAX_K + 1``) are one class
at the cap: such an item is never seen 0–2 times in a replicate (``P ≈ e^{−50}``).
"""

from __future__ import annotations

import math

import numpy as np

from knowsum.stats import _spade
from knowsum.stats._arrays import FloatArray, IntArray

__all__ = ["inext_bootstrap_sd"]


def _class_probabilities(p: FloatArray, size: float) -> FloatArray:
    """``P(0), P(1), P(2), P(≥3)`` of ``Bin(size, p)`` for each class (rows)."""
    q = np.clip(1.0 - p, 0.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        p0 = q**size
        p1 = size * p * q ** (size - 1)
        p2 = size * (size - 1) / 2 * p * p * q ** (size - 2)
    p0, p1, p2 = (np.nan_to_num(v, nan=0.0) for v in (p0, p1, p2))
    rest = np.clip(1.0 - p0 - p1 - p2, 0.0, 1.0)
    out = np.stack([p0, p1, p2, rest], axis=-1)
    return np.asarray(out / out.sum(axis=-1, keepdims=True), dtype=np.float64)


def inext_bootstrap_sd(
    hist: IntArray, size: float, extra: float, replicates: int, rng: np.random.Generator
) -> float:
    """iNEXT's bootstrap s.d. of ``Ŝ(size + extra)`` for one sample (module docstring).

    Args:
        hist: ``hist[x] = f_x`` (``x ≥ 1``; the last entry holds every count at or above it).
        size: ``N`` (``n`` observations, or ``T`` units for incidence counts).
        extra: ``m*``, the observations (units) extrapolated to.
        replicates: Bootstrap replicates (``< 2``: NaN).
        rng: The sample's stream.

    Returns:
        ``ŝ``, or NaN without replicates or singletons (no unseen mass: iNEXT's ``Û*`` is 0).
    """
    f = np.asarray(hist, dtype=np.float64)
    f1, f2 = (float(f[1]) if f.size > 1 else 0.0), (float(f[2]) if f.size > 2 else 0.0)
    if replicates < 2 or f1 == 0 or size < 2:
        return math.nan
    x = np.arange(1, f.size, dtype=np.float64)
    fx = f[1:]
    px = x / size
    undetected = f1 / size * _spade.chao_jost_factor(int(f1), int(f2), round(size))
    tail = float(np.sum(fx * px * (1 - px) ** size))
    lam = undetected / tail if tail > 0 else 0.0
    f0 = max(math.ceil(float(_spade.chao1_f0(f1, f2, (size - 1) / size))), 1)
    probs = np.append(px * (1 - lam * (1 - px) ** size), undetected / f0)
    members = np.append(fx, f0).astype(np.int64)
    keep = members > 0
    cls = _class_probabilities(probs[keep], size)
    draws = rng.multinomial(members[keep][:, None], cls[:, None, :], size=(int(keep.sum()), replicates))
    s_obs = (members[keep][:, None] - draws[..., 0]).sum(axis=0).astype(np.float64)
    g1, g2 = draws[..., 1].sum(axis=0).astype(np.float64), draws[..., 2].sum(axis=0).astype(np.float64)
    f0_star = _spade.chao1_f0(g1, g2, (size - 1) / size)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.where(g1 > 0, 1.0 - g1 / (size * f0_star + g1), 1.0)
        unseen = np.where(g1 > 0, f0_star * -np.expm1(extra * np.log(np.clip(base, 1e-300, 1.0))), 0.0)
    total = s_obs + unseen
    return float(np.std(total[np.isfinite(total)], ddof=1))
