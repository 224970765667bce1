"""Kernels of rarefaction: expectations over the hypergeometric subsample of one species.

A species seen ``v`` times among ``N`` observations (or in ``v`` of ``N`` units) is seen ``K`` times
in a subsample of size ``m`` drawn without replacement, ``K ~ Hypergeometric(N, v, m)``; iNEXT's
rarefied frequency counts are ``f̂_k(m) = Σ_v f_v P(K = k)`` (Chao et al. 2014, eq. 4), so every
rarefied Hill number is a sum over species of one of these expectations:

- ``P(K = 0) = C(N−v, m)/C(N, m)`` (richness and coverage),
- ``E[K²] = Var K + (E K)²`` (``q = 2``),
- ``E[K log K]`` (``q = 1``): summed exactly over ``E K ± (12 sd + 15)`` (the rest of the support
  carries < 1e-25 of the mass); above ``mu_cut`` expected detections, by the expansion
  ``μ log μ + M2/(2μ) − M3/(6μ²) + M4/(12μ³) − M2·M3/(2μ⁴) + M2³/(2μ⁵)`` in the exact central
  moments ``M2..M4`` (error < 2e-6 at ``μ = 50``, ~1e-7 at ``μ = 100``). Point estimates use
  ``mu_cut = ∞`` (exact); bootstrap replicates use ``mu_cut = 50``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammaln

from knowsum.stats._arrays import FloatArray, IntArray

_TABLE_MAX = 1 << 23
_CHUNK = 1 << 22
BOOTSTRAP_MU_CUT = 50.0


@functools.lru_cache(maxsize=2)
def _log_factorials(size: int) -> FloatArray:
    table: FloatArray = np.asarray(gammaln(np.arange(size + 1, dtype=np.float64) + 1.0), dtype=np.float64)
    table.setflags(write=False)
    return table


def log_factorial(values: NDArray[np.int64] | NDArray[np.float64], big: int) -> FloatArray:
    """``log(j!)`` for integer-valued ``values ≤ big`` (a cached table when ``big`` is moderate)."""
    if big <= _TABLE_MAX:
        return _log_factorials(int(big))[np.asarray(values, dtype=np.int64)]
    return np.asarray(gammaln(np.asarray(values, dtype=np.float64) + 1.0))


def _stirling_tail(z: FloatArray) -> FloatArray:
    """``log Γ(z) − ((z − ½) log z − z + ½ log 2π)`` for ``z ≥ 20`` (error < 1e-15)."""
    r = 1.0 / (z * z)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r / 1680))) / z


def log_gamma_ratio(a: FloatArray, b: FloatArray) -> FloatArray:
    """``log Γ(a) − log Γ(b)`` without the cancellation of two large ``gammaln`` values:
    ``(a − ½) log1p((a − b)/b) + (a − b)(log b − 1)`` plus Stirling corrections when ``a, b ≥ 20``."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    big = (a >= 20) & (b >= 20)
    out = np.asarray(gammaln(a) - gammaln(b), dtype=np.float64)
    if big.any():
        ab, bb = a[big], b[big]
        out[big] = (
            (ab - 0.5) * np.log1p((ab - bb) / bb)
            + (ab - bb) * (np.log(bb) - 1.0)
            + _stirling_tail(ab)
            - _stirling_tail(bb)
        )
    return out


def absent(v: IntArray, big: int, m: int) -> FloatArray:
    """``P(K = 0) = C(N−v, m)/C(N, m)`` (0 when ``N − v < m``) for integer ``0 ≤ m ≤ N``, as
    ``exp([log Γ(N−v+1) − log Γ(N+1)] − [log Γ(N−v−m+1) − log Γ(N−m+1)])`` (accurate to ~1e-15)."""
    ok = big - v >= m
    out = np.zeros(v.shape, dtype=np.float64)
    rest = (big - v[ok]).astype(np.float64)
    out[ok] = np.exp(
        log_gamma_ratio(rest + 1, np.full_like(rest, big + 1.0))
        - log_gamma_ratio(rest - m + 1, np.full_like(rest, big - m + 1.0))
    )
    return out


def moments(v: IntArray, big: int, m: int) -> tuple[FloatArray, FloatArray]:
    """``E K`` and ``Var K``."""
    p = v / big
    mean = m * p
    var = mean * (1 - p) * (big - m) / (big - 1) if big > 1 else np.zeros_like(mean)
    return mean, var


def _klogk_exact(v: IntArray, big: int, m: int) -> FloatArray:
    mean, var = moments(v, big, m)
    width = 12.0 * np.sqrt(var) + 15.0
    lo = np.maximum(np.maximum(1, m - big + v), np.floor(mean - width)).astype(np.int64)
    hi = np.minimum(np.minimum(v, m), np.ceil(mean + width)).astype(np.int64)
    lengths = hi - lo + 1
    out = np.empty(v.shape, dtype=np.float64)
    const = float(gammaln(big + 1.0) - gammaln(m + 1.0) - gammaln(big - m + 1.0))
    start = 0
    while start < v.size:  # chunks of at most ~_CHUNK terms
        cum = np.cumsum(lengths[start:])
        stop = start + max(1, int(np.searchsorted(cum, _CHUNK)))
        sl = slice(start, stop)
        ln = lengths[sl]
        offsets = np.concatenate(([0], np.cumsum(ln)[:-1]))
        k = np.repeat(lo[sl] - offsets, ln) + np.arange(int(ln.sum()))
        vv = np.repeat(v[sl], ln)
        lf = log_factorial
        logp = (
            lf(vv, big)
            - lf(k, big)
            - lf(vv - k, big)
            + lf(big - vv, big)
            - lf(m - k, big)
            - lf(big - vv - m + k, big)
            - const
        )
        kf = k.astype(np.float64)
        out[sl] = np.add.reduceat(kf * np.log(kf) * np.exp(logp), offsets)
        start = stop
    return out


def _klogk_expansion(v: IntArray, big: int, m: int) -> FloatArray:
    n_, k_ = float(big), v.astype(np.float64)
    mean, m2 = moments(v, big, m)
    m3 = m2 * (1 - 2 * k_ / n_) * (n_ - 2 * m) / (n_ - 2)
    num = (n_ - 1) * n_**2 * (n_ * (n_ + 1) - 6 * k_ * (n_ - k_) - 6 * m * (n_ - m)) + 6 * m * k_ * (
        n_ - k_
    ) * (n_ - m) * (5 * n_ - 6)
    den = m * k_ * (n_ - k_) * (n_ - m) * (n_ - 2) * (n_ - 3)
    with np.errstate(divide="ignore", invalid="ignore"):
        m4 = np.where(den > 0, (num / den + 3) * m2 * m2, 0.0)
    return (
        mean * np.log(mean)
        + m2 / (2 * mean)
        - m3 / (6 * mean**2)
        + m4 / (12 * mean**3)
        - m2 * m3 / (2 * mean**4)
        + m2**3 / (2 * mean**5)
    )


def klogk(v: IntArray, big: int, m: int, mu_cut: float = math.inf) -> FloatArray:
    """``E[K log K]`` (see the module docstring); exact below ``mu_cut`` expected detections."""
    out = np.zeros(v.shape, dtype=np.float64)
    if m <= 0:
        return out
    mean = m * v / big
    far = (mean >= mu_cut) & (big > 3) & (v < big) & (m < big)
    if far.any():
        out[far] = _klogk_expansion(v[far], big, m)
    near = ~far
    if near.any():
        out[near] = _klogk_exact(v[near], big, m)
    return out


def k_squared(v: IntArray, big: int, m: int) -> FloatArray:
    """``E[K²] = Var K + (E K)²``."""
    mean, var = moments(v, big, m)
    return var + mean * mean


def column(v: IntArray, big: int, m: int, mu_cut: float = math.inf, shannon: bool = True) -> FloatArray:
    """The four per-species quantities at size ``m``, shape ``(len(v), 4)``: ``1 − P(K=0)``,
    ``v·P(K=0)`` (coverage), ``E[K log K]`` (NaN unless ``shannon``), ``E[K²]``."""
    p0 = absent(v, big, m)
    shannon_term = klogk(v, big, m, mu_cut) if shannon else np.full(v.shape, np.nan)
    return np.column_stack([1.0 - p0, v * p0, shannon_term, k_squared(v, big, m)])
