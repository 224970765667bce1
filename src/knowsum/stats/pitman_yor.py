"""The Pitman–Yor predictive number of new items, with ``σ`` and ``θ`` fitted by maximum likelihood.

Model: the observations are an exchangeable sample from a Pitman–Yor (two-parameter Poisson–Dirichlet)
process with discount ``σ ∈ (0, 1)`` and strength ``θ > −σ`` (Pitman 1995; Pitman & Yor 1997).

- **Likelihood** — the exchangeable partition probability function of ``n`` observations of ``j`` items
  seen ``n_1 … n_j`` times (Pitman 1995, PTRF 102:145, Prop. 9):
  ``L(σ, θ) = Π_{i=1}^{j−1} (θ + iσ) / (θ + 1)_{n−1} · Π_{l=1}^{j} (1 − σ)_{n_l − 1}``, with
  ``(a)_m = Γ(a + m)/Γ(a)``; in histogram form ``Σ_l log (1 − σ)_{n_l−1} = Σ_s f_s [ln Γ(s − σ) −
  ln Γ(1 − σ)]``. :func:`fit` maximises it with ``scipy.optimize.minimize`` (SLSQP, analytic
  gradient, three starts) over ``σ ∈ [10⁻⁸, 1 − 10⁻⁸]`` and ``θ = −σ + e^β``.
- **Prediction** — the expected number of new items among ``m`` further observations (Favaro, Lijoi,
  Mena & Prünster 2009, JRSSB 71:993, Prop. 1, eq. 5):
  ``E[K_m^{(n)} | data] = (j + θ/σ) · [(θ + n + σ)_m / (θ + n)_m − 1]``; knowsum asks ``m = t·n``.
- **Predictive variance** (derived here, not in the paper): in the urn, ``X_i = j + θ/σ + K_i`` grows
  by 1 with probability ``σ X_i / (θ + n + i)``, so ``E[X_{i+1}(X_{i+1} + 1) | X_i] = X_i(X_i + 1)(1 +
  2σ/(θ + n + i))`` and ``E[X_m(X_m + 1)] = X_0(X_0 + 1) R_2`` with ``R_k = (θ + n + kσ)_m / (θ + n)_m``:
  ``Var(K_m^{(n)} | data) = X_0² (R_2 − R_1²) + X_0 (R_2 − R_1)``. It is the spread of the future
  sample given ``(σ̂, θ̂)``, not the uncertainty of the fit.

Every ratio of rising factorials is computed from differences of ``ln Γ`` (a Taylor series in the
polygamma functions where the shift is small against the argument), so ``m = 100·n`` and ``σ → 0`` (the
Dirichlet-process limit) stay accurate.

Where the likelihood has no maximum — every item seen once (``L`` grows as ``σ → 1`` or ``θ → ∞``) —
or only one item was seen, :class:`PitmanYorFit` carries the reason and the prediction is NaN.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import factorial

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from scipy.special import gammaln, polygamma, psi

from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats._pitman_yor_grid import zoom_fit

__all__ = [
    "ALL_SINGLETONS_REASON",
    "ONE_ITEM_REASON",
    "PitmanYorFit",
    "expected_new",
    "fit",
    "fit_rows",
    "log_likelihood",
    "predictive_variance",
    "simulate_new",
]

SIGMA_BOUNDS = (1e-8, 1.0 - 1e-8)
_BETA_BOUNDS = (-30.0, 30.0)
ALL_SINGLETONS_REASON = "every item seen once: the Pitman–Yor likelihood has no maximum (σ → 1 or θ → ∞)"
ONE_ITEM_REASON = "one item seen: the Pitman–Yor likelihood has no interior maximum (θ → −σ)"
NO_DATA_REASON = "no observations"
_SERIES_TERMS = 9
_SERIES_RATIO = 0.05


@dataclass(frozen=True, slots=True)
class PitmanYorFit:
    """The maximum-likelihood ``(σ̂, θ̂)`` of one sample.

    Attributes:
        sigma: ``σ̂`` (NaN when there is no maximum).
        theta: ``θ̂`` (NaN likewise).
        log_likelihood: ``ln L(σ̂, θ̂)`` (NaN likewise).
        n: Observations.
        j: Distinct items seen.
        reason: Why there is no fit (``None`` when there is one).
    """

    sigma: float
    theta: float
    log_likelihood: float
    n: int
    j: int
    reason: str | None = None


def _histogram(hist: IntArray | FloatArray) -> FloatArray:
    h = np.asarray(hist, dtype=np.float64)
    if h.ndim != 1 or h.size < 2 or not np.all(np.isfinite(h)) or np.any(h < 0) or np.any(h != np.floor(h)):
        raise StatsError(
            f"hist must be a 1-D histogram of non-negative integer counts f_0 … f_s, got {hist!r}"
        )
    return h


def log_likelihood(sigma: float, theta: float, hist: IntArray | FloatArray) -> float:
    """``ln L(σ, θ)`` of the histogram ``hist`` (``hist[s] = f_s``; Pitman 1995, the module docstring).

    Raises:
        StatsError: ``σ ∉ [0, 1)``, ``θ ≤ −σ``, or ``hist`` is not a histogram.
    """
    h = _histogram(hist)
    if not (0.0 <= sigma < 1.0 and theta > -sigma):
        raise StatsError(f"need 0 <= σ < 1 and θ > −σ, got σ = {sigma!r}, θ = {theta!r}")
    return float(_loglik_and_grad(sigma, theta, h)[0])


def _loglik_and_grad(sigma: float, theta: float, h: FloatArray) -> tuple[float, float, float]:
    """``(ln L, ∂/∂σ, ∂/∂θ)``."""
    s = np.arange(h.size, dtype=np.float64)
    used = h > 0
    used[0] = False
    j = int(h[used].sum())
    n = float(np.dot(s, h))
    i = np.arange(1, j, dtype=np.float64)
    terms = theta + i * sigma
    value = float(np.log(terms).sum()) - (gammaln(theta + n) - gammaln(theta + 1.0))
    value += float(np.dot(h[used], gammaln(s[used] - sigma) - gammaln(1.0 - sigma)))
    d_sigma = float((i / terms).sum()) - float(np.dot(h[used], psi(s[used] - sigma) - psi(1.0 - sigma)))
    d_theta = float((1.0 / terms).sum()) - (psi(theta + n) - psi(theta + 1.0))
    return value, d_sigma, d_theta


def fit(hist: IntArray | FloatArray) -> PitmanYorFit:
    """Maximum-likelihood ``(σ̂, θ̂)`` of one histogram (``hist[s] = f_s``; ``hist[0]`` is ignored).

    Raises:
        StatsError: ``hist`` is not a histogram, or the optimiser fails from every start.
    """
    h = _histogram(hist)
    h = h.copy()
    h[0] = 0.0
    j = int(h.sum())
    n = int(np.dot(np.arange(h.size), h))
    if j == 0:
        return PitmanYorFit(math.nan, math.nan, math.nan, n, j, NO_DATA_REASON)
    if j == 1:
        return PitmanYorFit(math.nan, math.nan, math.nan, n, j, ONE_ITEM_REASON)
    if j == n:
        return PitmanYorFit(math.nan, math.nan, math.nan, n, j, ALL_SINGLETONS_REASON)

    def objective(x: FloatArray) -> tuple[float, FloatArray]:
        sigma, beta = float(x[0]), float(x[1])
        theta = -sigma + math.exp(beta)
        value, d_sigma, d_theta = _loglik_and_grad(sigma, theta, h)
        return -value, -np.array([d_sigma - d_theta, d_theta * math.exp(beta)])

    best = None
    for sigma0 in (0.1, 0.5, 0.9):
        start = np.array([sigma0, math.log(max(j * (1.0 - sigma0), 1.0))])
        with np.errstate(all="ignore"):
            found = minimize(
                objective,
                start,
                jac=True,
                method="SLSQP",
                bounds=[SIGMA_BOUNDS, _BETA_BOUNDS],
                options={"ftol": 1e-12},
            )
        if np.isfinite(found.fun) and (best is None or found.fun < best.fun):
            best = found
    if best is None:
        raise StatsError(f"the Pitman–Yor likelihood could not be maximised on n = {n}, j = {j}")
    sigma, beta = float(best.x[0]), float(best.x[1])
    if beta >= _BETA_BOUNDS[1] - 1e-6 or sigma >= SIGMA_BOUNDS[1] - 1e-6:
        return PitmanYorFit(math.nan, math.nan, math.nan, n, j, ALL_SINGLETONS_REASON)
    return PitmanYorFit(sigma, -sigma + math.exp(beta), -float(best.fun), n, j)


_FEW_ROWS = 4
"""Up to this many rows, :func:`fit_rows` runs :func:`fit` on each (one sample's estimate is scipy's)."""


def fit_rows(hist: IntArray | FloatArray) -> tuple[FloatArray, FloatArray, tuple[str | None, ...]]:
    """``(σ̂, θ̂, reasons)`` of each row of a ``(B, s_max + 1)`` histogram matrix: :func:`fit` on each row
    when there are at most :data:`_FEW_ROWS`, else all at once by
    :func:`~knowsum.stats._pitman_yor_grid.zoom_fit` (``σ ∈ [10⁻⁴, 1 − 10⁻⁴]``, ``β = ln(θ + σ) ∈ [−4, 16]``;
    tested against :func:`fit`). A row whose best point stays on the ``σ → 1`` or ``θ → ∞`` edge has no
    maximum (NaN)."""
    h = np.atleast_2d(np.asarray(hist, dtype=np.float64)).copy()
    if h.ndim != 2 or not np.all(np.isfinite(h)) or np.any(h < 0):
        raise StatsError(
            f"hist must be a (samples, s) matrix of non-negative counts, got shape {np.shape(hist)}"
        )
    h[:, 0] = 0.0
    rows = h.shape[0]
    if rows <= _FEW_ROWS:
        fits = [fit(row) for row in h]
        return (
            np.array([f.sigma for f in fits]),
            np.array([f.theta for f in fits]),
            tuple(f.reason for f in fits),
        )
    j = h.sum(axis=1)
    n = h @ np.arange(h.shape[1], dtype=np.float64)
    reasons: list[str | None] = [
        NO_DATA_REASON
        if jj == 0
        else ONE_ITEM_REASON
        if jj == 1
        else ALL_SINGLETONS_REASON
        if jj == nn
        else None
        for jj, nn in zip(j.tolist(), n.tolist(), strict=True)
    ]
    live = np.flatnonzero([r is None for r in reasons])
    sigma, theta = np.full(rows, np.nan), np.full(rows, np.nan)
    if live.size:
        s_hat, b_hat, edge = zoom_fit(h[live], j[live], n[live])
        sigma[live] = np.where(edge, np.nan, s_hat)
        theta[live] = np.where(edge, np.nan, -s_hat + np.exp(b_hat))
        for r in live[edge].tolist():
            reasons[r] = ALL_SINGLETONS_REASON
    return sigma, theta, tuple(reasons)


def _lgamma_combo(
    c: FloatArray, shifts: tuple[float | FloatArray, ...], weights: tuple[float, ...]
) -> FloatArray:
    """``Σ_i w_i ln Γ(c + s_i)`` for weights summing to 0: directly, or by its Taylor series
    ``Σ_k (Σ_i w_i s_i^k)/k! · ψ^{(k−1)}(c)`` where every ``|s_i| < 0.05 c`` (no cancellation of large
    ``ln Γ`` values)."""
    c = np.asarray(c, dtype=np.float64)
    s = [np.broadcast_to(np.asarray(x, dtype=np.float64), c.shape) for x in shifts]
    largest = np.max(np.abs(np.stack(s)), axis=0)
    series_ok = largest < _SERIES_RATIO * c
    direct = sum(w * gammaln(c + x) for w, x in zip(weights, s, strict=True))
    cs = np.where(series_ok, c, 1.0)
    series = np.zeros(c.shape)
    for k in range(1, _SERIES_TERMS + 1):
        moment = sum(w * x**k for w, x in zip(weights, s, strict=True))
        series = series + moment / factorial(k) * polygamma(k - 1, cs)
    return np.asarray(np.where(series_ok, series, direct))


def _log_ratios(
    sigma: FloatArray, theta: FloatArray, n: FloatArray, m: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """``ln R_1`` and ``ln R_2 − 2 ln R_1``, ``R_k = (θ + n + kσ)_m / (θ + n)_m``."""
    c0 = theta + n
    cm = c0 + m
    one = _lgamma_combo(cm, (sigma, 0.0), (1.0, -1.0)) - _lgamma_combo(c0, (sigma, 0.0), (1.0, -1.0))
    two = (2.0 * sigma, sigma, 0.0)
    second = _lgamma_combo(cm, two, (1.0, -2.0, 1.0)) - _lgamma_combo(c0, two, (1.0, -2.0, 1.0))
    return one, second


Number = FloatArray | float


def _moments(
    sigma: Number, theta: Number, n: Number, j: Number, m: Number
) -> tuple[NDArray[np.bool_], FloatArray, FloatArray, FloatArray]:
    """``(ok, X_0, ln R_1, ln R_2 − 2 ln R_1)`` elementwise; ``ok`` is False where ``σ`` or ``θ`` is NaN."""
    s, th, nn, jj, mm = (np.asarray(x, dtype=np.float64) for x in (sigma, theta, n, j, m))
    ok = np.isfinite(s) & np.isfinite(th)
    s1, th1 = np.where(ok, s, 0.5), np.where(ok, th, 1.0)
    log_r1, delta = _log_ratios(s1, th1, nn, mm)
    return ok, jj + th1 / s1, log_r1, delta


def expected_new(sigma: Number, theta: Number, n: Number, j: Number, m: Number) -> FloatArray:
    """``E[K_m^{(n)} | data] = (j + θ/σ) · [(θ + n + σ)_m / (θ + n)_m − 1]`` (Favaro et al. 2009, eq. 5),
    elementwise; NaN where ``σ`` or ``θ`` is NaN."""
    with np.errstate(all="ignore"):
        ok, x0, log_r1, _ = _moments(sigma, theta, n, j, m)
        return np.asarray(np.where(ok, x0 * np.expm1(log_r1), np.nan))


def predictive_variance(sigma: Number, theta: Number, n: Number, j: Number, m: Number) -> FloatArray:
    """``Var(K_m^{(n)} | data) = X_0² (R_2 − R_1²) + X_0 (R_2 − R_1)``, ``X_0 = j + θ/σ`` (module docstring),
    elementwise; NaN where ``σ`` or ``θ`` is NaN."""
    with np.errstate(all="ignore"):
        ok, x0, log_r1, delta = _moments(sigma, theta, n, j, m)
        r1 = np.exp(log_r1)
        var = x0 * x0 * r1 * r1 * np.expm1(delta) + x0 * r1 * np.expm1(delta + log_r1)
        return np.asarray(np.where(ok, var, np.nan))


def simulate_new(
    sigma: float, theta: float, n: int, j: int, m: int, replicates: int, seed: int | None = 0
) -> IntArray:
    """New items among ``m`` further draws of the Pitman–Yor urn (Chinese restaurant process), given ``n``
    observations of ``j`` items: draw ``i`` opens a new item with probability ``(θ + (j + K)σ)/(θ + n + i)``.
    Vectorised over ``replicates``; seeded."""
    if not (0.0 <= sigma < 1.0 and theta > -sigma) or min(n, j, m, replicates) < 0 or j > n:
        raise StatsError(f"bad urn: σ = {sigma!r}, θ = {theta!r}, n = {n}, j = {j}, m = {m}")
    rng = np.random.default_rng(seed)
    new = np.zeros(replicates, dtype=np.int64)
    for i in range(m):
        p = (theta + (j + new) * sigma) / (theta + n + i)
        new += rng.random(replicates) < p
    return new
