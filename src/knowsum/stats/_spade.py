"""Variance and interval machinery shared by the richness estimators (SpadeR's conventions).

- :func:`lognormal_interval` — Chao (1987): with ``f̂0 = Ŝ − S_obs`` and
  ``C = exp(z·sqrt(ln(1 + var/f̂0²)))`` the interval is ``[S_obs + f̂0/C, S_obs + f̂0·C]``.
- :func:`observed_interval` — SpadeR's interval when ``Ŝ = S_obs`` (no undetected species inferred):
  ``var_obs = Σ_k f_k (e^{−k} − e^{−2k}) − (Σ_k k e^{−k} f_k)² / n``, ``P = Σ_k f_k e^{−k} / S_obs``,
  ``[max(S_obs, S_obs/(1−P) − z·sqrt(var_obs)/(1−P)), S_obs/(1−P) + z·sqrt(var_obs)/(1−P)]``.
- :func:`delta_variance` — the multinomial delta method of Chao (1987) and SpadeR:
  ``var(Ŝ) = Σ_ij ∂Ŝ/∂f_i ∂Ŝ/∂f_j cov(f_i, f_j)`` with ``cov = f_i(1 − f_i/Ŝ)`` on the diagonal and
  ``−f_i f_j / Ŝ`` off it, i.e. ``Σ g_i² f_i − (Σ g_i f_i)² / Ŝ``.
- :func:`chao1_f0`, :func:`chao_jost_factor`, :func:`chao1_core`, :func:`ichao` — the Chao1/Chao2,
  coverage and iChao1/iChao2 building blocks shared by the abundance, incidence, Hill-number,
  rarefaction, sampling-effort and shared-richness modules; :func:`delta_over_classes` — the delta method over
  every frequency class of a sample.
- :func:`gradient` — ``∂Ŝ/∂f_k`` for every frequency class ``k`` from an estimator written in terms
  of a few summaries that are linear in the ``f_k`` (``S_rare = Σ_{k≤10} f_k``, ``n_rare = Σ k f_k``…),
  by complex-step differentiation of each summary (exact to rounding) and the chain rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from knowsum.stats._arrays import FloatArray
from knowsum.stats._errors import StatsError

_STEP = 1e-30


def z_value(conf: float) -> float:
    """The two-sided normal quantile for confidence ``conf`` (validated to lie in (0, 1))."""
    if not isinstance(conf, int | float) or not 0.0 < float(conf) < 1.0:
        raise StatsError(f"conf must lie strictly between 0 and 1, got {conf!r}")
    return float(norm.ppf(1.0 - (1.0 - float(conf)) / 2.0))


def lognormal_interval(
    s_obs: float, estimate: float, variance: float | None, conf: float
) -> tuple[float, float] | None:
    """Chao's (1987) log-normal interval for ``Ŝ`` (``None`` with no usable variance or if ``Ŝ = S_obs``)."""
    undetected = estimate - s_obs
    if variance is None or not math.isfinite(variance) or variance < 0 or undetected == 0:
        return None
    c = math.exp(z_value(conf) * math.sqrt(math.log1p(variance / undetected**2)))
    return (s_obs + undetected / c, s_obs + undetected * c)


def observed_variance(freq: NDArray[np.int64], size: int) -> float:
    """SpadeR's ``var_obs`` (the variance used when ``Ŝ = S_obs``); ``size`` is ``n`` or ``T``."""
    k = np.nonzero(freq)[0]
    fk = freq[k].astype(np.float64)
    e = np.exp(-k.astype(np.float64))
    return float(np.sum(fk * (e - e * e)) - np.sum(k * e * fk) ** 2 / size)


def observed_interval(freq: NDArray[np.int64], s_obs: int, size: int, conf: float) -> tuple[float, float]:
    """SpadeR's interval when ``Ŝ = S_obs`` (see the module docstring)."""
    k = np.nonzero(freq)[0]
    p = float(np.sum(freq[k] * np.exp(-k.astype(np.float64))) / s_obs)
    half = z_value(conf) * math.sqrt(max(observed_variance(freq, size), 0.0)) / (1.0 - p)
    centre = s_obs / (1.0 - p)
    return (max(float(s_obs), centre - half), centre + half)


def delta_variance(grad: FloatArray, freq_values: FloatArray, estimate: float) -> float:
    """``Σ g_i² f_i − (Σ g_i f_i)² / Ŝ`` (Chao 1987's multinomial covariance of the ``f_i``)."""
    return float(np.sum(grad * grad * freq_values) - np.sum(grad * freq_values) ** 2 / estimate)


def gradient(
    estimator: Callable[..., complex],
    summaries: Mapping[str, float],
    loadings: Mapping[str, FloatArray],
) -> FloatArray:
    """``∂Ŝ/∂f_k`` over the frequency classes ``k``.

    Args:
        estimator: ``Ŝ`` as a function of the summaries (keyword arguments); it must accept complex
            values (decide branches on ``.real``).
        summaries: The summaries' values.
        loadings: For each summary ``s``, ``∂s/∂f_k`` per class ``k`` (summaries absent here are
            treated as constants, e.g. ``n`` in SpadeR's ``(n−1)/n``).
    """
    out: FloatArray | None = None
    for name, load in loadings.items():
        shifted = {key: complex(value) for key, value in summaries.items()}
        shifted[name] += 1j * _STEP
        partial = complex(estimator(**shifted)).imag / _STEP
        term = partial * load
        out = term if out is None else out + term
    assert out is not None
    return out


def chao1_f0(f1: Any, f2: Any, k: float) -> Any:
    """Chao1's undetected count ``f̂0 = k·f1²/(2 f2)`` (``f2 > 0``), ``k·f1(f1−1)/2`` (``f2 = 0``).

    ``k`` is ``(n−1)/n`` (``(T−1)/T`` for incidence) in the bias-corrected iNEXT/SpadeR form, 1 in
    Chao's (1984) original. Elementwise on arrays (one value per bootstrap replicate)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.asarray(f2) > 0, k * f1 * f1 / (2 * np.maximum(f2, 1)), k * f1 * (f1 - 1) / 2)


def chao_jost_factor(f1: int, f2: int, size: int) -> float:
    """``A = (n−1)f1/((n−1)f1 + 2f2)`` (``f2 > 0``), ``(n−1)(f1−1)/((n−1)(f1−1) + 2)`` (``f2 = 0``);
    1 when ``f1 = 0``. ``1 − f1/n·A`` is the coverage (Chao & Jost 2012) and ``A`` the extrapolation
    factor of iNEXT (``n f̂0/(n f̂0 + f1)`` with the bias-corrected ``f̂0``, the same number)."""
    if f1 == 0:
        return 1.0
    if f2 > 0:
        return (size - 1) * f1 / ((size - 1) * f1 + 2 * f2)
    return (size - 1) * (f1 - 1) / ((size - 1) * (f1 - 1) + 2)


def chao1_core(s: int, f1: int, f2: int, k: float) -> tuple[float, float | None]:
    """SpadeR's Chao1 with factor ``k``: classic when ``f1, f2 > 0``, bias-corrected when
    ``f1 > 1, f2 = 0``, else ``S_obs`` (variance ``None``: the caller uses ``var_obs``)."""
    if f1 > 0 and f2 > 0:
        r = f1 / f2
        return s + k * f1 * f1 / (2 * f2), f2 * (k * r**2 / 2 + k**2 * r**3 + k**2 * r**4 / 4)
    if f1 > 1 and f2 == 0:
        est = s + k * f1 * (f1 - 1) / 2
        return est, k * f1 * (f1 - 1) / 2 + k**2 * f1 * (2 * f1 - 1) ** 2 / 4 - k**2 * f1**4 / 4 / est
    return float(s), None


def delta_over_classes(
    data: Any,
    fn: Callable[..., complex],
    summaries: dict[str, float],
    est: float,
    rare: int | None = None,
) -> float:
    """Delta-method variance of ``fn`` over all frequency classes. Known summary names: ``s`` (all
    classes), ``f1..f4``, ``s_rare``/``n_rare``/``si`` (classes ``≤ rare``: 1, k, k(k−1)),
    ``s_abun`` (classes ``> rare``); other summaries are constants."""
    k = np.nonzero(data.freq)[0].astype(np.float64)
    low = k <= (rare if rare is not None else 0)
    loads = {
        "s": np.ones_like(k),
        "s_rare": low * 1.0,
        "n_rare": low * k,
        "si": low * k * (k - 1),
        "s_abun": (~low) * 1.0,
        **{f"f{j}": (k == j) * 1.0 for j in range(1, 5)},
    }
    grad = gradient(fn, summaries, {name: loads[name] for name in summaries if name in loads})
    return delta_variance(grad, data.freq[k.astype(np.int64)].astype(np.float64), est)


def ichao_extra(f1: complex, f2: complex, f3: complex, f4: complex, c3: float, c2: float) -> complex:
    """Chiu et al. (2014): ``c3 · f3/(4 f4) · max(f1 − c2 · f2 f3/(2 f4), 0)`` (``f4 = 0`` → 1)."""
    f4e = f4 if f4.real > 0 else f4 + 1
    inner = f1 - c2 * f2 * f3 / (2 * f4e)
    return c3 * f3 / (4 * f4e) * inner if inner.real > 0 else 0 * inner


def ichao(data: Any, k: float, c3: float, c2: float) -> tuple[float, float | None, str]:
    """iChao1 (``c3 = c2 = 1``) or iChao2 (``c3 = (T−3)/T``, ``c2 = (T−3)/(T−1)``): Chao1/Chao2 with
    factor ``k`` plus :func:`ichao_extra`; returns ``(Ŝ, variance, variance method)``.

    The variance is Chao1's (``chao1987``) when the correction is 0, else the delta method over
    ``f1..f4`` of the undetected part (Chiu et al. 2014; :func:`delta_over_classes`)."""
    f1, f2, f3, f4 = (data.f(j) for j in range(1, 5))
    base, var = chao1_core(data.s_obs, f1, f2, k)
    extra = float(ichao_extra(f1, f2, f3, f4, c3, c2).real)
    est = base + extra
    if extra > 0 and (f1 > 1 or (f1 > 0 and f2 > 0)):

        def undetected(f1: complex, f2: complex, f3: complex, f4: complex) -> complex:
            chao = k * f1 * f1 / (2 * f2) if f2.real > 0 else k * f1 * (f1 - 1) / 2
            return chao + ichao_extra(f1, f2, f3, f4, c3, c2)

        summaries = {"f1": f1, "f2": f2, "f3": f3, "f4": f4}
        return est, delta_over_classes(data, undetected, summaries, est), "delta"
    return est, var, "chao1987"
