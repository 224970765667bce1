"""Granger causality F test on two ordered series (Granger 1969), with a permutation p-value.

Bombieri et al. (§5.1, fn. 12) apply it cross-sectionally: the series are ordered by popularity
bucket, and the test asks whether bucket popularity helps predict bucket accuracy at lag 3. The
F statistic is statsmodels' ``grangercausalitytests(..., maxlag=[lag])`` ``ssr_ftest`` on the
columns ``[effect, cause]`` (the authors' tool):

    restricted:    y_t = c + Σ_{j=1..L} a_j y_{t-j} + e_t
    unrestricted:  y_t = c + Σ_{j=1..L} a_j y_{t-j} + Σ_{j=1..L} b_j x_{t-j} + u_t
    F = ((SSR_r − SSR_u) / L) / (SSR_u / (T − L − 2L − 1))

The paper reports significance "according to the Permutation test" without saying what is
permuted. knowsum (beyond the paper) shuffles the *cause* series across positions ``n_perm``
times, which keeps the effect series and its own autoregression intact and breaks any link from
the cause, and reports ``p = (1 + #{F_perm ≥ F}) / (n_perm + 1)`` (Phipson & Smyth 2010) beside
the parametric F-distribution p. :func:`granger_test` computes F in closed form, batched over
the permutations (the unrestricted SSR as the restricted SSR minus the projection of the
restricted residual on the residualized lagged cause) — equal to statsmodels' F to rounding error
(tested) without importing statsmodels, which alone costs more than 10,000 permutations.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["GrangerResult", "granger_f", "granger_test"]

_BATCH = 4096


@dataclass(frozen=True, slots=True)
class GrangerResult:
    """Granger F test of ``cause → effect`` with both p-values.

    Attributes:
        f: The SSR F statistic (statsmodels ``ssr_ftest``).
        p_value: Its parametric p-value (F distribution with ``(lag, T − 3·lag − 1)`` df).
        perm_p_value: Permutation p-value (``None`` when ``n_perm == 0``).
        n_perm: Permutations of the cause series.
        lag: The lag.
        n: Series length.
    """

    f: float
    p_value: float
    perm_p_value: float | None
    n_perm: int
    lag: int
    n: int


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


def _lags(series: NDArray[np.float64], lag: int) -> NDArray[np.float64]:
    """``(..., T − lag, lag)`` matrix of lags 1..lag of the last axis."""
    t = series.shape[-1]
    return np.stack([series[..., lag - j : t - j] for j in range(1, lag + 1)], axis=-1)


def _batched_f(y: NDArray[np.float64], causes: NDArray[np.float64], lag: int) -> NDArray[np.float64]:
    """F statistics of ``causes[b] → y`` for every row ``b`` (one batched least squares)."""
    target = y[lag:]
    nobs = target.size
    z = np.column_stack([np.ones(nobs), _lags(y, lag)])
    q, _ = np.linalg.qr(z)
    e_r = target - q @ (q.T @ target)
    ssr_r = float(e_r @ e_r)
    x = _lags(causes, lag)  # (B, nobs, lag)
    xr = x - np.einsum("ik,bkl->bil", q, np.einsum("ik,bil->bkl", q, x))
    gram = np.einsum("bik,bil->bkl", xr, xr)
    h = np.einsum("bik,i->bk", xr, e_r)
    coef = np.einsum("bkl,bl->bk", np.linalg.pinv(gram), h)
    ssr_u = ssr_r - np.einsum("bk,bk->b", h, coef)
    df = nobs - 2 * lag - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        f: NDArray[np.float64] = (ssr_r - ssr_u) / lag / (ssr_u / df)
    return f


def granger_test(
    effect: Sequence[float],
    cause: Sequence[float],
    lag: int = 3,
    n_perm: int = 10_000,
    seed: int | None = 0,
) -> GrangerResult | None:
    """Granger F of ``cause → effect`` with its parametric and permutation p-values (module doc).

    Returns:
        The result, or ``None`` when the series are too short (``T < 3·lag + 2``), constant, or
        the test is degenerate.
    """
    y = np.asarray(effect, dtype=np.float64)
    x = np.asarray(cause, dtype=np.float64)
    if y.size < 3 * lag + 2 or x.size != y.size or np.ptp(y) == 0 or np.ptp(x) == 0:
        return None
    observed = float(_batched_f(y, x[None, :], lag)[0])
    if not math.isfinite(observed):
        return None
    from scipy import stats

    p = float(stats.f.sf(observed, lag, y.size - lag - 2 * lag - 1))
    perm_p = None
    if n_perm > 0:
        rng = np.random.default_rng(seed)
        hits = 0
        for start in range(0, n_perm, _BATCH):
            size = min(_BATCH, n_perm - start)
            perms = rng.permuted(np.broadcast_to(x, (size, x.size)), axis=1)
            null = _batched_f(y, perms, lag)
            hits += int(np.sum(null >= observed * (1 - 1e-9)))
        perm_p = (1 + hits) / (n_perm + 1)
    return GrangerResult(observed, p, perm_p, n_perm, lag, y.size)
