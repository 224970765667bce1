"""The R/E engine: rarefied, observed and extrapolated Hill numbers and coverage for a batch of samples.

A batch is a ``(B, S)`` matrix of counts (one row per sample: the data itself, or bootstrap
replicates) sharing the reference size ``N`` (``n`` or ``T``); ``totals`` are ``n`` (abundance) or
each row's ``U`` (incidence). Formulas (Chao et al. 2014, Ecol. Monogr. 84:45; iNEXT 3.0.2
``TD.m.est``, ``Chat.Ind``/``Chat.Sam``), with ``u(m) = m · total/N`` the expected number of
observations (incidences) in a subsample of size ``m < N``:

- richness ``Σ_i 1 − P(K_i = 0)``; Shannon ``exp(log u − Σ_i E[K_i log K_i]/u)``; Simpson
  ``u² / Σ_i E[K_i²]``; coverage ``1 − N/(total (N − m)) · Σ_i X_i P(K_i = 0)`` (see :mod:`._rarefy`);
- at ``m = N`` the observed values and ``Ĉ = 1 − f1/total · A`` (Chao & Jost 2012);
- for ``m = N + m*``: q = 0, 1: ``D_obs + (D_asy − D_obs)(1 − (1 − β)^{m*})`` with
  ``β = (D_obs − D(N−1))/(D_asy − D(N−1))`` (for q = 0 this is Chao et al.'s
  ``S_obs + f̂0 (1 − (1 − f1/(n f̂0 + f1))^{m*})``); q = 2 (abundance)
  ``1/(1/(n+m*) + (1 − 1/(n+m*)) Σ X_i(X_i−1)/(n(n−1)))``, (incidence)
  ``1/((T/U)/(T+m*) + (1 − 1/(T+m*)) Σ Y_i(Y_i−1)/(U²(1 − 1/T)))``; coverage ``1 − f1/total · A^{m*+1}``;
- non-integer ``m < N``: linear interpolation between ``⌊m⌋`` and ``⌈m⌉`` (as iNEXT).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats import _rarefy, _spade
from knowsum.stats._arrays import FloatArray
from knowsum.stats.hill import batch_asymptotic, batch_observed


@dataclass(frozen=True, slots=True)
class Profile:
    """Per-row summaries of a batch (each array has one entry per row)."""

    size: int
    totals: FloatArray
    f1: FloatArray
    observed: FloatArray  # (B, 3)
    asymptotic: FloatArray  # (B, 3)
    at_size_minus_one: FloatArray  # (B, 2): rarefied q = 0, 1 at N − 1
    sxx: FloatArray  # Σ X(X−1)
    factor: FloatArray  # Chao–Jost A (iNEXT: n f̂0/(n f̂0 + f1), 1 when f1 = 0)

    @property
    def coverage(self) -> FloatArray:
        """``Ĉ(N) = 1 − f1/total · A``."""
        return 1.0 - self.f1 / self.totals * self.factor


def profile(counts: FloatArray, totals: FloatArray, size: int) -> Profile:
    """Summaries of a ``(B, S)`` batch (zeros allowed)."""
    n = float(size)
    f1 = (counts == 1).sum(axis=1).astype(np.float64)
    f2 = (counts == 2).sum(axis=1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        f0 = _spade.chao1_f0(f1, f2, (n - 1) / n)
        factor = np.where(f1 > 0, n * f0 / (n * f0 + f1), 1.0)
        x = counts
        klk = np.where(x > 1, x * np.log(np.where(x > 1, x, 1.0)), 0.0)
        klk1 = np.where(x > 2, (x - 1) * np.log(np.where(x > 2, x - 1, 1.0)), 0.0)
    e_klogk = ((1 - x / n) * klk + x / n * klk1).sum(axis=1)
    u = (n - 1) * totals / n
    d1 = np.exp(np.log(u) - e_klogk / u) if size > 1 else np.full(totals.shape, np.nan)
    rfd = np.column_stack([(counts > 0).sum(axis=1) - f1 / n, d1])
    return Profile(
        size,
        totals,
        f1,
        batch_observed(counts, totals),
        batch_asymptotic(counts, totals, size),
        rfd,
        (counts * (counts - 1)).sum(axis=1),
        factor,
    )


def extrapolate(prof: Profile, sizes: FloatArray, incidence: bool) -> tuple[FloatArray, FloatArray]:
    """Hill numbers ``(B, 3, M)`` and coverage ``(B, M)`` at sizes ``> N`` (``sizes`` of shape
    ``(M,)``, or ``(B, M)`` for sizes that differ per row)."""
    n = float(prof.size)
    total = np.atleast_2d(sizes)
    extra = total - n
    obs, asy = prof.observed, prof.asymptotic
    out = np.empty((obs.shape[0], 3, total.shape[1]))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for q in (0, 1):
            gap = asy[:, q] - prof.at_size_minus_one[:, q]
            beta = np.where(gap != 0, (obs[:, q] - prof.at_size_minus_one[:, q]) / gap, 0.0)
            beta = np.nan_to_num(beta, nan=0.0)
            growth = -np.expm1(extra * np.log1p(-np.minimum(beta, 1.0))[:, None])
            growth = np.where(beta[:, None] >= 1.0, 1.0, growth)
            out[:, q, :] = obs[:, q, None] + (asy[:, q] - obs[:, q])[:, None] * growth
        if incidence:
            simpson = prof.sxx / (prof.totals**2 * (1 - 1 / n))
            out[:, 2, :] = 1 / ((n / prof.totals)[:, None] / total + (1 - 1 / total) * simpson[:, None])
        else:
            out[:, 2, :] = 1 / (1 / total + (1 - 1 / total) * (prof.sxx / (n * (n - 1)))[:, None])
        cover = 1 - (prof.f1 / prof.totals)[:, None] * prof.factor[:, None] ** (extra + 1)
    return out, cover


def extrapolation_size(prof: Profile, targets: FloatArray) -> FloatArray:
    """Sizes ``(B, K)`` at which extrapolated coverage reaches ``targets`` (each ``≥ Ĉ(N)``):
    ``N + (log(total/f1) + log(1 − C))/log(A) − 1`` (Chao & Jost 2012; iNEXT ``invChat``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        m = (np.log(prof.totals / prof.f1)[:, None] + np.log1p(-targets)[None, :]) / np.log(prof.factor)[
            :, None
        ] - 1
    usable = (prof.f1 > 0) & (prof.factor > 0) & (prof.factor < 1)
    m = np.where(usable[:, None], m, 0.0)
    return prof.size + np.maximum(m, 0.0)


def histogram(counts: FloatArray) -> tuple[NDArray[np.int64], sp.csr_matrix]:
    """The distinct positive values ``V`` of a batch and the ``(B, |V|)`` matrix of their multiplicities."""
    rows, cols = np.nonzero(counts)
    values, inverse = np.unique(counts[rows, cols].astype(np.int64), return_inverse=True)
    hist = sp.csr_matrix((np.ones(rows.size), (rows, inverse.ravel())), shape=(counts.shape[0], values.size))
    hist.sum_duplicates()
    return values, hist


def rarefied_sums(
    values: NDArray[np.int64], hist: sp.csr_matrix, size: int, m: int, mu_cut: float, shannon: bool = True
) -> FloatArray:
    """Per-row sums ``(B, 4)`` of :func:`knowsum.stats._rarefy.column` at integer ``1 ≤ m < N``."""
    return np.asarray(hist @ _rarefy.column(values, size, m, mu_cut, shannon))


def from_sums(sums: FloatArray, totals: FloatArray, size: int, m: int) -> tuple[FloatArray, FloatArray]:
    """Hill numbers ``(B, 3)`` and coverage ``(B,)`` at integer ``m < N`` from :func:`rarefied_sums`."""
    u = m * totals / size
    with np.errstate(divide="ignore", invalid="ignore"):
        d1 = np.exp(np.log(u) - sums[:, 2] / u)
        d2 = u * u / sums[:, 3]
        cover = 1 - size / (totals * (size - m)) * sums[:, 1]
    return np.column_stack([sums[:, 0], d1, d2]), cover


def integer_points(sizes: FloatArray, size: int) -> list[int]:
    """The integer sizes ``< N`` needed to interpolate ``sizes`` (``⌊m⌋`` and ``⌈m⌉``)."""
    below = sizes[sizes < size]
    return sorted({math.floor(m) for m in below} | {math.ceil(m) for m in below} - {size})


def evaluate(
    values: NDArray[np.int64],
    hist: sp.csr_matrix,
    prof: Profile,
    sizes: FloatArray,
    incidence: bool,
    mu_cut: float,
    cache: dict[int, tuple[FloatArray, FloatArray]] | None = None,
    shannon: bool = True,
) -> tuple[FloatArray, FloatArray]:
    """Hill numbers ``(B, 3, M)`` and coverage ``(B, M)`` at arbitrary sizes ``≥ 1``."""
    size = prof.size
    cache = {} if cache is None else cache
    for m in integer_points(sizes, size):
        if m not in cache:
            cache[m] = from_sums(rarefied_sums(values, hist, size, m, mu_cut, shannon), prof.totals, size, m)
    cache[size] = (prof.observed, prof.coverage)
    rows = prof.totals.size
    hill = np.empty((rows, 3, sizes.size))
    cover = np.empty((rows, sizes.size))
    above = sizes > size
    if above.any():
        hill[:, :, above], cover[:, above] = extrapolate(prof, sizes[above], incidence)
    for j in np.nonzero(~above)[0]:
        lo, hi = math.floor(sizes[j]), math.ceil(sizes[j])
        w = float(sizes[j]) - lo
        hill[:, :, j] = (1 - w) * cache[lo][0] + w * cache[hi][0] if hi != lo else cache[lo][0]
        cover[:, j] = (1 - w) * cache[lo][1] + w * cache[hi][1] if hi != lo else cache[lo][1]
    return hill, cover
