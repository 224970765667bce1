"""The vectorised Pitman–Yor maximum-likelihood fit of many histograms at once (a back-test's panels).

:func:`zoom_fit` evaluates ``ln L(σ, β)``, ``θ = −σ + e^β`` (Pitman 1995, Prop. 9; see
:mod:`knowsum.stats.pitman_yor`) on a ``13 × 13`` grid per row, zooms four times around each row's best
point, then takes damped Newton steps (gradient by digamma sums, Hessian by central differences), which
follow the likelihood's ridge between ``σ`` and ``θ`` that a grid alone misses.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy.special import gammaln, psi

from knowsum.stats._arrays import FloatArray, IntArray

__all__ = ["GRID_SIGMA", "zoom_fit"]

_GRID_POINTS = 13
_ZOOMS = 4
GRID_SIGMA = (1e-4, 1.0 - 1e-4)
_GRID_BETA = (-4.0, 16.0)


def _grid_loglik(
    rows: IntArray,
    svals: FloatArray,
    freq: FloatArray,
    count: int,
    j: FloatArray,
    n: FloatArray,
    sig: FloatArray,
    beta: FloatArray,
) -> FloatArray:
    """``ln L`` at ``(sig[b, a], beta[b, c])`` for every row ``b`` (``(B, G, G)``); ``rows, svals, freq``
    are the non-zero ``f_s`` of the histogram matrix."""
    theta = -sig[:, :, None] + np.exp(beta[:, None, :])
    u = theta / sig[:, :, None]
    jj, nn = j[:, None, None], n[:, None, None]
    value = (jj - 1.0) * np.log(sig)[:, :, None] + gammaln(u + jj) - gammaln(u + 1.0)
    value -= gammaln(theta + nn) - gammaln(theta + 1.0)
    per_entry = freq[:, None] * gammaln(svals[:, None] - sig[rows])  # (nnz, G)
    partial = np.zeros((count, sig.shape[1]))
    np.add.at(partial, rows, per_entry)
    partial -= j[:, None] * gammaln(1.0 - sig)
    return np.asarray(value + partial[:, :, None])


def zoom_fit(h: FloatArray, j: FloatArray, n: FloatArray) -> tuple[FloatArray, FloatArray, NDArray[np.bool_]]:
    """Each row's grid optimum (zoomed), then damped Newton steps along the likelihood's ridge."""
    rows, svals = np.nonzero(h)
    data = (rows, svals.astype(np.float64), h[rows, svals], h.shape[0], j, n)
    count = h.shape[0]
    lo = np.tile([GRID_SIGMA[0], _GRID_BETA[0]], (count, 1))
    hi = np.tile([GRID_SIGMA[1], _GRID_BETA[1]], (count, 1))
    ticks = np.linspace(0.0, 1.0, _GRID_POINTS)
    best = np.zeros((count, 2))
    for _ in range(_ZOOMS):
        grid = lo[:, :, None] + (hi - lo)[:, :, None] * ticks  # (B, 2, G)
        with np.errstate(all="ignore"):
            ll = _grid_loglik(*data, grid[:, 0], grid[:, 1])
        flat = np.argmax(np.where(np.isfinite(ll), ll, -np.inf).reshape(count, -1), axis=1)
        a, c = np.divmod(flat, _GRID_POINTS)
        best = np.stack([grid[np.arange(count), 0, a], grid[np.arange(count), 1, c]], axis=1)
        width = (hi - lo) / (_GRID_POINTS - 1)
        lo = np.maximum(best - 1.5 * width, [GRID_SIGMA[0], _GRID_BETA[0]])
        hi = np.minimum(best + 1.5 * width, [GRID_SIGMA[1], _GRID_BETA[1]])
    best = _newton(data, best)
    edge = (best[:, 0] >= GRID_SIGMA[1] - 1e-9) | (best[:, 1] >= _GRID_BETA[1] - 1e-9)
    return best[:, 0], best[:, 1], edge


_Data = tuple[IntArray, FloatArray, FloatArray, int, FloatArray, FloatArray]


def _point_loglik(data: _Data, x: FloatArray) -> FloatArray:
    with np.errstate(all="ignore"):
        ll = _grid_loglik(*data, x[:, :1], x[:, 1:])[:, 0, 0]
    return np.where(np.isfinite(ll), ll, -np.inf)


def _gradient(data: _Data, x: FloatArray) -> FloatArray:
    """``∂ ln L / ∂(σ, β)`` of each row at ``x = (σ, β)``, ``θ = −σ + e^β`` (the sums over ``i < j`` by
    digamma)."""
    rows, svals, freq, count, j, n = data
    sig, e_beta = x[:, 0], np.exp(x[:, 1])
    theta = -sig + e_beta
    u = theta / sig
    d1 = (psi(u + j) - psi(u + 1.0)) / sig  # Σ_{i<j} 1/(θ + iσ)
    di = ((j - 1.0) - theta * d1) / sig  # Σ_{i<j} i/(θ + iσ)
    per_entry = np.zeros(count)
    np.add.at(per_entry, rows, freq * psi(svals - sig[rows]))
    g_sigma = di - per_entry + j * psi(1.0 - sig)
    g_theta = d1 - psi(theta + n) + psi(theta + 1.0)
    return np.stack([g_sigma - g_theta, g_theta * e_beta], axis=1)


def _newton(data: _Data, x: FloatArray, steps: int = 30, h: float = 1e-6) -> FloatArray:
    """Damped Newton ascent from ``x`` (Hessian by central differences of the gradient; a step that does
    not raise ``ln L`` is halved, up to 30 times), inside the grid's bounds."""
    lower = np.array([GRID_SIGMA[0], _GRID_BETA[0]])
    upper = np.array([GRID_SIGMA[1], _GRID_BETA[1]])
    current = _point_loglik(data, x)
    with np.errstate(all="ignore"):
        for _ in range(steps):
            g = _gradient(data, x)
            hess = np.empty((x.shape[0], 2, 2))
            for k in range(2):
                e = np.zeros(2)
                e[k] = h
                hess[:, :, k] = (_gradient(data, x + e) - _gradient(data, x - e)) / (2 * h)
            hess = 0.5 * (hess + hess.transpose(0, 2, 1))
            det = hess[:, 0, 0] * hess[:, 1, 1] - hess[:, 0, 1] ** 2
            concave = (hess[:, 0, 0] < 0) & (det > 0) & np.isfinite(det)
            inv = np.stack([[hess[:, 1, 1], -hess[:, 0, 1]], [-hess[:, 0, 1], hess[:, 0, 0]]]).transpose(
                2, 0, 1
            )
            newton = -np.einsum("bij,bj->bi", inv, g) / np.where(concave, det, 1.0)[:, None]
            step = np.where(concave[:, None], newton, 1e-3 * g)
            pinned = ((x[:, 0] <= lower[0]) & (g[:, 0] < 0)) | ((x[:, 0] >= upper[0]) & (g[:, 0] > 0))
            along = np.where(hess[:, 1, 1] < 0, -g[:, 1] / hess[:, 1, 1], 1e-3 * g[:, 1])
            step = np.where(pinned[:, None], np.stack([np.zeros_like(along), along], axis=1), step)
            step = np.where(np.isfinite(step), step, 0.0)
            moved = np.zeros(x.shape[0], dtype=bool)
            scale = np.ones(x.shape[0])
            for _ in range(30):
                trial = np.clip(x + scale[:, None] * step, lower, upper)
                value = _point_loglik(data, trial)
                better = (value > current) & ~moved
                x = np.where(better[:, None], trial, x)
                current = np.where(better, value, current)
                moved |= better
                scale = np.where(moved, scale, scale / 2)
                if moved.all():
                    break
            if not moved.any():
                break
    return x
