"""Coefficients ``h_s`` of the linear unseen-species estimators ``Û(t) = Σ_s h_s · n_s``.

All four are of the form ``h_s = −(−t)^s · P(L ≥ s)`` for a truncation variable ``L``
(Orlitsky, Suresh & Wu 2016, eq. 4): ``L = ∞`` gives Good–Toulmin, ``L ~ Bin(k, 1/(t+1))`` the
Efron–Thisted / smoothed Good–Turing estimator of KnowSum eq. (1), ``L ~ Bin(k, 2/(t+2))`` and
``L ~ Poi(r)`` the binomial and Poisson smoothings of Orlitsky et al. The magnitude
``t^s · P(L ≥ s)`` is computed in log space, so ``t`` up to 10⁴ and ``k`` up to 30 neither overflow
nor lose the tail probability; a weight that truly exceeds the float range raises
:class:`~knowsum.stats.StatsError` instead of returning ``inf``/``nan``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from scipy import special, stats

from knowsum.stats._arrays import FloatArray
from knowsum.stats._errors import StatsError

__all__ = [
    "binomial_tail_weights",
    "good_toulmin_weights",
    "osw_binomial_params",
    "osw_poisson_rate",
    "poisson_tail_weights",
]

_LOG_MAX = math.log(np.finfo(np.float64).max) - 1.0


def check_t(t: float) -> float:
    """Validate an extrapolation factor ``t > 0`` (finite)."""
    if isinstance(t, bool) or not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
        raise StatsError(f"t must be a finite number > 0, got {t!r}")
    return float(t)


def check_k(k: int) -> int:
    """Validate a truncation level ``k ≥ 1`` (integer)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise StatsError(f"k must be an integer >= 1, got {k!r}")
    return int(k)


def _signed(log_abs: FloatArray, s: NDArray[np.int64], what: str) -> FloatArray:
    """``−(−1)^s · exp(log_abs)`` with index 0 set to 0, refusing overflow."""
    too_big = log_abs > _LOG_MAX
    if np.any(too_big):
        s_bad = int(s[np.argmax(too_big)])
        raise StatsError(
            f"{what}: the weight t^s overflows at s = {s_bad}; this estimator is unusable for "
            "such data and t (use the smoothed estimator 'et')"
        )
    sign = np.where(s % 2 == 1, 1.0, -1.0)
    out = sign * np.exp(log_abs)
    out[s == 0] = 0.0
    return out


def good_toulmin_weights(t: float, s_max: int) -> FloatArray:
    """Good–Toulmin (1956) coefficients ``h_s = −(−t)^s`` for ``s = 0..s_max`` (``h_0 = 0``)."""
    t = check_t(t)
    s = np.arange(s_max + 1, dtype=np.int64)
    log_abs: FloatArray = (s * math.log(t)).astype(np.float64)
    return _signed(log_abs, s, "Good–Toulmin")


def binomial_tail_weights(t: float, k: int, q: float, s_max: int | None = None) -> FloatArray:
    """``h_s = −(−t)^s · P(Bin(k, q) ≥ s)`` for ``s = 0..max(k, s_max)`` (zero for ``s > k``).

    The tail is ``logsumexp`` of the binomial log-pmf over ``j = s..k``, so it stays accurate
    when ``q`` is tiny (``t`` large) and ``P(Bin ≥ s)`` is far below the float range of ``t^-s``.
    """
    t, k = check_t(t), check_k(k)
    length = k if s_max is None else max(k, s_max)
    s = np.arange(length + 1, dtype=np.int64)
    j = np.arange(k + 1)
    log_pmf = stats.binom.logpmf(j, k, q)
    # log P(L >= s) for s = 0..k via a reversed cumulative logsumexp
    log_tail = np.logaddexp.accumulate(log_pmf[::-1])[::-1]
    log_abs = np.full(length + 1, -np.inf)
    log_abs[: k + 1] = s[: k + 1] * math.log(t) + log_tail
    return _signed(log_abs, s, "binomial smoothing")


def poisson_tail_weights(t: float, r: float, s_max: int) -> FloatArray:
    """``h_s = −(−t)^s · P(Poi(r) ≥ s)`` for ``s = 0..s_max`` (Orlitsky et al. 2016)."""
    t = check_t(t)
    s = np.arange(s_max + 1, dtype=np.int64)
    # P(Poi(r) >= s) = regularized lower incomplete gamma P(s, r), in log space
    with np.errstate(divide="ignore"):
        log_tail = np.log(special.gammainc(np.maximum(s, 1), r))
    log_tail[0] = 0.0
    return _signed(s * math.log(t) + log_tail, s, "Poisson smoothing")


def et_q(t: float) -> float:
    """Success probability ``1/(t+1)`` of the Efron–Thisted binomial (KnowSum eq. 1)."""
    return 1.0 / (check_t(t) + 1.0)


def osw_binomial_params(n: int, t: float) -> tuple[int, float]:
    """``(k, q)`` of the Orlitsky–Suresh–Wu binomial smoothing: ``q = 2/(t+2)``,
    ``k = ⌈½ · log₃(n t² / (t − 1))⌉`` (PNAS 2016, Corollary 2); needs ``t > 1``."""
    t = _check_osw_t(t)
    k = math.ceil(0.5 * math.log(n * t * t / (t - 1.0), 3))
    return max(k, 1), 2.0 / (t + 2.0)


def osw_poisson_rate(n: int, t: float) -> float:
    """``r = (1/(2t)) · ln(n (t+1)² / (t − 1))`` of the OSW Poisson smoothing; needs ``t > 1``."""
    t = _check_osw_t(t)
    return math.log(n * (t + 1.0) ** 2 / (t - 1.0)) / (2.0 * t)


def _check_osw_t(t: float) -> float:
    t = check_t(t)
    if t <= 1:
        raise StatsError(
            f"the Orlitsky–Suresh–Wu smoothings are defined for t > 1, got t = {t:g}; for t <= 1 the "
            "unsmoothed 'good-toulmin' estimator is already unbiased and stable"
        )
    return t
