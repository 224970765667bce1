"""Species-richness estimators for abundance data (Chao1 family, ACE, jackknife) and sample coverage.

Notation: ``n`` observations, ``S_obs`` detected species, ``f_k`` species seen ``k`` times,
``K = (n − 1)/n``. Every estimator returns a :class:`RichnessEstimate` with the estimate ``Ŝ``, its
standard error and a 95 % (``conf``) log-normal interval (Chao 1987; see :mod:`knowsum.stats._spade`).
When ``Ŝ = S_obs`` (no singletons, or one singleton and no doubleton for Chao1) the estimate is
``S_obs`` and the s.e. and interval are SpadeR's ``var_obs`` ones; a delta-method variance that comes
out ≤ 0 is reported as ``None`` (SpadeR prints NA) with no interval. The incidence counterparts live
in :mod:`knowsum.stats.incidence`; :func:`estimate_richness` dispatches on the data type and a name.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from knowsum.stats import _spade
from knowsum.stats._errors import StatsError
from knowsum.stats._spade import chao_jost_factor
from knowsum.stats.caveats import Caveat
from knowsum.stats.samples import Abundance, Incidence

__all__ = [
    "ABUNDANCE_ESTIMATORS",
    "CoverageEstimate",
    "RichnessEstimate",
    "ace",
    "ace1",
    "chao1_bc",
    "chao1_bc_vegan",
    "chao1_classic",
    "chao_jost_factor",
    "finish",
    "ichao1",
    "jackknife1",
    "jackknife2",
    "sample_coverage",
]


@dataclass(frozen=True, slots=True)
class RichnessEstimate:
    """One richness estimate.

    Attributes:
        estimator: The estimator's name (a key of ``ABUNDANCE_ESTIMATORS``/``INCIDENCE_ESTIMATORS``).
        estimate: ``Ŝ``.
        std_error: Its standard error (``None`` when the variance is undefined or ≤ 0).
        interval: The ``conf`` log-normal interval (``None`` without a standard error).
        s_obs: Observed richness.
        size: ``n`` (abundance) or ``T`` (incidence).
        conf: Confidence level of :attr:`interval`.
        variance: How the s.e. was obtained: ``"chao1987"`` (closed form), ``"delta"`` (multinomial
            delta method), ``"observed"`` (``Ŝ = S_obs``: SpadeR's ``var_obs``) or ``"none"``.
        parameters: Quantities the estimator used (``f1``, ``f2``, ``C_rare``, ``CV_rare``, …).
        caveats: The sample's caveats (tiny sample, no or all singletons; filled in by
            :func:`~knowsum.stats.estimate_richness`, :mod:`knowsum.stats.caveats`).
    """

    estimator: str
    estimate: float
    std_error: float | None
    interval: tuple[float, float] | None
    s_obs: int
    size: int
    conf: float
    variance: str
    parameters: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    caveats: tuple[Caveat, ...] = ()

    @property
    def undetected(self) -> float:
        """``f̂0 = Ŝ − S_obs``."""
        return self.estimate - self.s_obs


@dataclass(frozen=True, slots=True)
class CoverageEstimate:
    """Sample completeness: the estimated share of the assemblage that the detected species make up.

    Attributes:
        coverage: Chao & Jost (2012): ``Ĉ = 1 − f1/n · (n−1)f1/((n−1)f1 + 2f2)`` (abundance) or
            ``1 − Q1/U · (T−1)Q1/((T−1)Q1 + 2Q2)`` (incidence); with ``f2 = 0`` the factor is
            ``(n−1)(f1−1)/((n−1)(f1−1) + 2)``.
        good_turing: Turing/Good's ``1 − f1/n`` (``1 − Q1/U``).
        size: ``n`` or ``T``.
    """

    coverage: float
    good_turing: float
    size: int


def sample_coverage(data: Abundance | Incidence) -> CoverageEstimate:
    """Sample coverage ``Ĉ`` (Chao & Jost 2012, Ecology 93:2533; iNEXT's ``DataInfo`` SC).

    Abundance: ``1 − f1/n · A``; incidence: ``1 − Q1/U · A`` with ``A`` from :func:`chao_jost_factor`.
    """
    f1, f2 = data.f(1), data.f(2)
    total = data.n if isinstance(data, Abundance) else data.U
    a = chao_jost_factor(f1, f2, data.size)
    return CoverageEstimate(1.0 - f1 / total * a, 1.0 - f1 / total, data.size)


def finish(
    name: str,
    data: Abundance | Incidence,
    estimate: float,
    variance: float | None,
    method: str,
    conf: float,
    **parameters: float,
) -> RichnessEstimate:
    """Attach s.e. and interval: log-normal when ``round(Ŝ − S_obs, 5) ≠ 0``, SpadeR's ``var_obs``
    interval (and ``Ŝ = S_obs``) otherwise; a variance ≤ 0 or NaN gives ``None`` (SpadeR: NA)."""
    s_obs = data.s_obs
    if round(estimate - s_obs, 5) == 0:
        var = _spade.observed_variance(data.freq, data.size)
        observed = _spade.observed_interval(data.freq, s_obs, data.size, conf)
        se = math.sqrt(var) if var > 0 else None
        return RichnessEstimate(
            name, float(s_obs), se, observed, s_obs, data.size, conf, "observed", MappingProxyType(parameters)
        )
    usable = variance is not None and math.isfinite(variance) and variance > 0
    se = math.sqrt(variance) if usable and variance is not None else None
    interval = _spade.lognormal_interval(s_obs, estimate, variance, conf) if usable else None
    return RichnessEstimate(
        name,
        float(estimate),
        se,
        interval,
        s_obs,
        data.size,
        conf,
        method if usable else "none",
        MappingProxyType(parameters),
    )


def chao1_classic(data: Abundance, *, conf: float = 0.95) -> RichnessEstimate:
    """Chao1, ``Ŝ = S_obs + (n−1)/n · f1²/(2 f2)`` (Chao 1984, Scand. J. Stat. 11:265).

    This is the form iNEXT (``ChaoRichness``) and SpadeR (``ChaoSpecies``, row "Chao1") print.
    Variance (Chao 1987, Biometrics 43:783): ``f2 [K r²/2 + K² r³ + K² r⁴/4]``, ``r = f1/f2``.
    With ``f2 = 0`` and ``f1 > 1`` SpadeR switches to ``S_obs + K f1(f1−1)/2`` with variance
    ``K f1(f1−1)/2 + K² f1(2f1−1)²/4 − K² f1⁴/(4Ŝ)``; with ``f1 ≤ 1, f2 = 0`` or ``f1 = 0``, ``Ŝ = S_obs``.
    """
    n, f1, f2 = data.n, data.f(1), data.f(2)
    est, var = _spade.chao1_core(data.s_obs, f1, f2, (n - 1) / n)
    return finish("chao1", data, est, var, "chao1987", conf, f1=f1, f2=f2)


def chao1_bc(data: Abundance, *, conf: float = 0.95) -> RichnessEstimate:
    """Bias-corrected Chao1, SpadeR form: ``Ŝ = S_obs + (n−1)/n · f1(f1−1)/(2(f2+1))`` (Chao 2005).

    SpadeR prints this ("Chao1-bc"). Variance (SpadeR): ``K f1(f1−1)/(2(f2+1)) + K² f1(2f1−1)²/(4(f2+1)²)
    + K² f1² f2 (f1−1)²/(4(f2+1)⁴)`` for ``f2 > 0``; the ``f2 = 0`` form of :func:`chao1_classic` otherwise.
    vegan's ``estimateR`` prints :func:`chao1_bc_vegan` instead (no ``(n−1)/n``).
    """
    n, s, f1, f2 = data.n, data.s_obs, data.f(1), data.f(2)
    k = (n - 1) / n
    est = s + k * f1 * (f1 - 1) / (2 * (f2 + 1))
    if f2 > 0:
        var = (
            k * f1 * (f1 - 1) / 2 / (f2 + 1)
            + k**2 * f1 * (2 * f1 - 1) ** 2 / 4 / (f2 + 1) ** 2
            + k**2 * f1**2 * f2 * (f1 - 1) ** 2 / 4 / (f2 + 1) ** 4
        )
    else:
        var = k * f1 * (f1 - 1) / 2 + k**2 * f1 * (2 * f1 - 1) ** 2 / 4 - k**2 * f1**4 / 4 / est
    return finish("chao1-bc", data, est, var, "chao1987", conf, f1=f1, f2=f2)


def _chao1_bc_vegan(s: complex, f1: complex, f2: complex) -> complex:
    return s + f1 * (f1 - 1) / (2 * (f2 + 1))


def chao1_bc_vegan(data: Abundance, *, conf: float = 0.95) -> RichnessEstimate:
    """Bias-corrected Chao1, vegan form: ``Ŝ = S_obs + f1(f1−1)/(2(f2+1))`` (no ``(n−1)/n``).

    vegan's ``estimateR`` (``S.chao1``; also scikit-bio's ``chao1(bias_corrected=True)`` and EstimateS)
    prints this. Its s.e. is vegan's: the delta method applied to this very estimator,
    ``∂Ŝ/∂f1 = 1 + (2f1−1)/(2(f2+1))``, ``∂Ŝ/∂f2 = 1 − f1(f1−1)/(2(f2+1)²)``, ``∂Ŝ/∂f_k = 1`` otherwise,
    with the multinomial covariance ``diag(f) − f fᵀ/Ŝ`` (vegan expands the same in closed form).
    """
    s, f1, f2 = data.s_obs, data.f(1), data.f(2)
    est = float(_chao1_bc_vegan(s, f1, f2).real)
    var = _spade.delta_over_classes(data, _chao1_bc_vegan, {"s": s, "f1": f1, "f2": f2}, est)
    return finish("chao1-bc-vegan", data, est, var, "delta", conf, f1=f1, f2=f2)


def ichao1(data: Abundance, *, conf: float = 0.95) -> RichnessEstimate:
    """iChao1 (Chiu, Wang, Walther & Chao 2014, Biometrics 70:671):
    ``Ŝ = Chao1 + f3/(4 f4) · max(f1 − f2 f3/(2 f4), 0)``, with ``f4`` replaced by 1 when it is 0.

    Chao1 is :func:`chao1_classic` (SpadeR's). Variance: the delta method over ``f1..f4`` applied to
    the undetected part (as SpadeR's ``SpecAbuniChao1``), with the derivatives of this estimator;
    SpadeR's code has different signs in ``∂/∂f1``, ``∂/∂f2`` and drops a ``∂/∂f3`` term, so its
    printed s.e. differs. When the correction is 0 (or ``f3 = 0``) the variance is Chao1's.
    """
    est, var, method = _spade.ichao(data, (data.n - 1) / data.n, 1.0, 1.0)
    f1, f2, f3, f4 = (data.f(j) for j in range(1, 5))
    return finish("ichao1", data, est, var, method, conf, f1=f1, f2=f2, f3=f3, f4=f4)


def _ace_gamma2(
    s_rare: complex, n_rare: complex, si: complex, f1: complex, one: bool
) -> tuple[complex, complex]:
    """``(C_rare, γ̂²)`` of :func:`_ace_core` (``γ̂² = 0`` when ``C_rare = 0`` or ``n_rare ≤ 1``)."""
    c = 1 - f1 / n_rare if n_rare.real != 0 else 1 + 0 * f1
    g2 = 0 * f1
    if c.real != 0 and n_rare.real > 1:
        g2 = s_rare / c * si / (n_rare * (n_rare - 1)) - 1
        g2 = g2 if g2.real > 0 else 0 * g2
        if one:
            g2 = g2 * (1 + (1 - c) / c * si / (n_rare - 1))
            g2 = g2 if g2.real > 0 else 0 * g2
    return c, g2


def _ace_core(
    s_abun: complex, s_rare: complex, n_rare: complex, si: complex, f1: complex, one: bool
) -> complex:
    """ACE / ACE-1 as SpadeR: ``C = 1 − f1/n_rare``; ``γ² = max(S_rare/C · si/(n_rare(n_rare−1)) − 1, 0)``;
    ACE-1: ``γ1² = max(γ²(1 + (1−C)/C · si/(n_rare − 1)), 0)``; ``Ŝ = S_abun + S_rare/C + f1/C · γ²``."""
    c, g2 = _ace_gamma2(s_rare, n_rare, si, f1, one)
    if c.real == 0:
        c = 1 + 0 * c
    return s_abun + s_rare / c + f1 / c * g2


def rare_summaries(
    data: Abundance | Incidence, values: NDArray[np.int64], rare_threshold: int
) -> dict[str, float]:
    """The summaries a coverage estimator (ACE, ICE) reads, split at ``k = rare_threshold``:
    ``s_abun`` (species seen more than ``k`` times), ``s_rare`` (at most ``k``), ``n_rare`` (their
    total count), ``si = Σ_{x≤k} x(x−1)`` and ``f1``; :func:`coverage_fit` fits on them.

    Raises:
        StatsError: ``rare_threshold`` is not a positive integer.
    """
    if isinstance(rare_threshold, bool) or not isinstance(rare_threshold, int) or rare_threshold < 1:
        raise StatsError(f"rare_threshold must be a positive integer, got {rare_threshold!r}")
    rare = values[values <= rare_threshold]
    return {
        "s_abun": float((values > rare_threshold).sum()),
        "s_rare": float(rare.size),
        "n_rare": float(rare.sum()),
        "si": float(np.sum(rare * (rare - 1))),
        "f1": float(data.f(1)),
    }


def coverage_fit(
    name: str,
    data: Abundance | Incidence,
    fn: Callable[..., complex],
    summaries: dict[str, float],
    rare_threshold: int,
    conf: float,
    rare_names: tuple[str, str],
    **parameters: float,
) -> RichnessEstimate:
    """A coverage estimator ``Ŝ = fn(summaries)`` of :func:`rare_summaries` with its delta-method
    variance over all frequency classes (none without a rare class), attached by :func:`finish`.

    ``summaries`` are keyed as :func:`_spade.delta_over_classes` knows them. Reported beside the
    estimate: ``k = rare_threshold``, ``parameters``, then the rare class's size and count under
    ``rare_names`` (ACE's ``S_rare``/``n_rare``, ICE's ``S_infreq``/``n_infreq``).
    """
    size, count = rare_names
    parameters.update({size: int(summaries["s_rare"]), count: int(summaries["n_rare"])})
    est = float(fn(**{key: complex(v) for key, v in summaries.items()}).real)
    var = (
        _spade.delta_over_classes(data, fn, summaries, est, rare=rare_threshold)
        if summaries["s_rare"]
        else None
    )
    return finish(name, data, est, var, "delta", conf, k=rare_threshold, **parameters)


def _ace(data: Abundance, rare_threshold: int, conf: float, one: bool) -> RichnessEstimate:
    name = "ace-1" if one else "ace"
    summaries = rare_summaries(data, data.counts, rare_threshold)
    s_rare, n_rare = int(summaries["s_rare"]), int(summaries["n_rare"])
    if s_rare and n_rare == summaries["f1"]:  # every rare species is a singleton: SpadeR prints Chao1
        chao = chao1_classic(data, conf=conf)
        return RichnessEstimate(
            name,
            chao.estimate,
            chao.std_error,
            chao.interval,
            chao.s_obs,
            chao.size,
            conf,
            chao.variance,
            MappingProxyType({**chao.parameters, "C_rare": 0.0, "fallback": 1.0}),
        )

    def fn(**kw: complex) -> complex:
        return _ace_core(one=one, **kw)

    c, g2 = _ace_gamma2(
        complex(s_rare), complex(n_rare), complex(summaries["si"]), complex(summaries["f1"]), one
    )
    return coverage_fit(
        name,
        data,
        fn,
        summaries,
        rare_threshold,
        conf,
        ("S_rare", "n_rare"),
        C_rare=c.real,
        CV_rare=math.sqrt(g2.real),
    )


def ace(data: Abundance, *, rare_threshold: int = 10, conf: float = 0.95) -> RichnessEstimate:
    """ACE (Chao & Lee 1992, JASA 87:210), rare threshold ``k`` (10), as SpadeR, vegan and scikit-bio:
    ``Ŝ = S_abun + S_rare/C_rare + f1/C_rare · γ̂²`` with ``C_rare = 1 − f1/n_rare`` and
    ``γ̂² = max(S_rare/C_rare · Σ_{i≤k} i(i−1) f_i / (n_rare(n_rare − 1)) − 1, 0)`` (``CV_rare = γ̂``).

    copia 0.1.4 sums ``i·f_i`` instead of ``i(i−1)·f_i`` and prints another value. Variance: the delta
    method over all classes (SpadeR ``SpecAbunAce``; ``∂Ŝ/∂f_i = 1`` for ``i > k``). If every rare
    species is a singleton (``C_rare = 0``) SpadeR reports Chao1, and so does this function.
    """
    return _ace(data, rare_threshold, conf, one=False)


def ace1(data: Abundance, *, rare_threshold: int = 10, conf: float = 0.95) -> RichnessEstimate:
    """ACE-1 (Chao & Lee 1992), for highly heterogeneous assemblages: :func:`ace` with
    ``γ̂1² = max(γ̂² (1 + (1 − C_rare)/C_rare · Σ i(i−1) f_i / (n_rare − 1)), 0)`` (SpadeR's form)."""
    return _ace(data, rare_threshold, conf, one=True)


def _jackknife(data: Abundance | Incidence, order: int, conf: float) -> RichnessEstimate:
    m, s, f1, f2 = data.size, data.s_obs, data.f(1), data.f(2)
    c1 = (m - 1) / m if order == 1 else (2 * m - 3) / m
    c2 = 0.0 if order == 1 or m < 2 else (m - 2) ** 2 / (m * (m - 1))

    def fn(s: complex, f1: complex, f2: complex) -> complex:
        return s + c1 * f1 - c2 * f2

    summaries = {"s": float(s), "f1": float(f1), "f2": float(f2)}
    est = float(fn(**{k: complex(v) for k, v in summaries.items()}).real)
    if est < s:  # SpadeR: a second-order jackknife below S_obs is reported as S_obs
        est = float(s)
    var = _spade.delta_over_classes(data, fn, summaries, est)
    return finish(f"jackknife{order}", data, est, var, "delta", conf, f1=f1, f2=f2)


def jackknife1(data: Abundance | Incidence, *, conf: float = 0.95) -> RichnessEstimate:
    """First-order jackknife, finite-sample form (Burnham & Overton 1978; SpadeR, vegan ``specpool``):
    ``Ŝ = S_obs + (n−1)/n · f1`` (incidence: ``(T−1)/T · Q1``). Variance: delta method (SpadeR).
    copia uses the large-sample ``S_obs + f1`` instead."""
    return _jackknife(data, 1, conf)


def jackknife2(data: Abundance | Incidence, *, conf: float = 0.95) -> RichnessEstimate:
    """Second-order jackknife, finite-sample form (SpadeR):
    ``Ŝ = S_obs + (2n−3)/n · f1 − (n−2)²/(n(n−1)) · f2`` (incidence with ``T``, ``Q1``, ``Q2``);
    a value below ``S_obs`` is reported as ``S_obs``. Variance: delta method (SpadeR)."""
    return _jackknife(data, 2, conf)


ABUNDANCE_ESTIMATORS: Mapping[str, Callable[[Abundance], RichnessEstimate]] = MappingProxyType(
    {
        "chao1": chao1_classic,
        "chao1-bc": chao1_bc,
        "chao1-bc-vegan": chao1_bc_vegan,
        "ichao1": ichao1,
        "ace": ace,
        "ace-1": ace1,
        "jackknife1": jackknife1,
        "jackknife2": jackknife2,
    }
)
"""Abundance estimators by name (each called as ``fn(data)``; pass ``conf`` by calling it directly)."""
