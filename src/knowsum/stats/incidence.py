"""Species-richness estimators for incidence-frequency data (Chao2 family, ICE, jackknife).

Notation: ``T`` sampling units, ``Q_k`` species detected in exactly ``k`` units, ``U = Σ_k k·Q_k``
incidences, ``K = (T − 1)/T``. Standard errors and intervals follow SpadeR (``ChaoSpecies`` with
``datatype = "incidence_freq"``) exactly as the abundance estimators of
:mod:`knowsum.stats.richness` do; the jackknives and the coverage there accept incidence data too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType

from knowsum.stats import _spade
from knowsum.stats._errors import StatsError
from knowsum.stats.caveats import sample_caveats
from knowsum.stats.richness import (
    ABUNDANCE_ESTIMATORS,
    RichnessEstimate,
    coverage_fit,
    finish,
    jackknife1,
    jackknife2,
    rare_summaries,
)
from knowsum.stats.samples import Abundance, Incidence

__all__ = ["INCIDENCE_ESTIMATORS", "chao2", "chao2_bc", "estimate_richness", "ice", "ice1", "ichao2"]


def chao2(data: Incidence, *, conf: float = 0.95) -> RichnessEstimate:
    """Chao2, ``Ŝ = S_obs + (T−1)/T · Q1²/(2 Q2)`` (Chao 1987, Biometrics 43:783).

    iNEXT, SpadeR and vegan's ``specpool`` (which applies the ``(T−1)/T`` factor) print this.
    Variance (Chao 1987): ``Q2 [K r²/2 + K² r³ + K² r⁴/4]``, ``r = Q1/Q2``; ``Q2 = 0`` and ``Q1 ≤ 1``
    are handled as in :func:`~knowsum.stats.chao1_classic`.
    """
    t, q1, q2 = data.T, data.f(1), data.f(2)
    est, var = _spade.chao1_core(data.s_obs, q1, q2, (t - 1) / t)
    return finish("chao2", data, est, var, "chao1987", conf, Q1=q1, Q2=q2)


def chao2_bc(data: Incidence, *, conf: float = 0.95) -> RichnessEstimate:
    """Bias-corrected Chao2 (SpadeR): ``Ŝ = S_obs + (T−1)/T · Q1(Q1−1)/(2(Q2+1))``, with SpadeR's
    variance ``K Q1(Q1−1)/(2(Q2+1)) + K² Q1(2Q1−1)²/(4(Q2+1)²) + K² Q1² Q2 (Q1−1)²/(4(Q2+1)⁴)``."""
    t, s, q1, q2 = data.T, data.s_obs, data.f(1), data.f(2)
    k = (t - 1) / t
    est = s + k * q1 * (q1 - 1) / (2 * (q2 + 1))
    var = (
        k * q1 * (q1 - 1) / 2 / (q2 + 1)
        + k**2 * q1 * (2 * q1 - 1) ** 2 / 4 / (q2 + 1) ** 2
        + k**2 * q1**2 * q2 * (q1 - 1) ** 2 / 4 / (q2 + 1) ** 4
    )
    return finish("chao2-bc", data, est, var, "chao1987", conf, Q1=q1, Q2=q2)


def ichao2(data: Incidence, *, conf: float = 0.95) -> RichnessEstimate:
    """iChao2 (Chiu, Wang, Walther & Chao 2014, Biometrics 70:671):
    ``Ŝ = Chao2 + (T−3)/T · Q3/(4 Q4) · max(Q1 − (T−3)/(T−1) · Q2 Q3/(2 Q4), 0)`` (``Q4 = 0`` → 1).

    Variance: delta method over ``Q1..Q4`` of the undetected part, as :func:`~knowsum.stats.ichao1`.
    """
    t = data.T
    c2 = (t - 3) / (t - 1) if t > 1 else 0.0
    est, var, method = _spade.ichao(data, (t - 1) / t, (t - 3) / t, c2)
    q1, q2, q3, q4 = (data.f(j) for j in range(1, 5))
    return finish("ichao2", data, est, var, method, conf, Q1=q1, Q2=q2, Q3=q3, Q4=q4)


def _ice_core(
    s_abun: complex,
    s_rare: complex,
    n_rare: complex,
    si: complex,
    f1: complex,
    f2: complex,
    t: int,
    one: bool,
) -> complex:
    """ICE / ICE-1 as SpadeR (see :func:`ice`); ``s_rare``/``n_rare`` are the infrequent species' count
    and incidences, ``si = Σ_{k≤10} k(k−1) Q_k``."""
    if f1.real > 0 and f2.real > 0:
        factor = (t - 1) * f1 / ((t - 1) * f1 + 2 * f2)
    elif f1.real > 0:
        factor = (t - 1) * (f1 - 1) / ((t - 1) * (f1 - 1) + 2)
    else:
        factor = 0 * f1
    c = 1 - f1 / n_rare * factor
    ratio = s_rare / c * t / (t - 1) * si / (n_rare * (n_rare - 1)) if n_rare.real > 1 and t > 1 else 0 * f1
    g2 = ratio - 1 if (ratio - 1).real > 0 else 0 * ratio
    if one:
        extra = f1 / c * t / (t - 1) * si / (n_rare * (n_rare - 1)) if n_rare.real > 1 and t > 1 else 0 * f1
        g2 = g2 * (1 + extra)
        g2 = g2 if g2.real > 0 else 0 * g2
    return s_abun + s_rare / c + f1 / c * g2


def _ice(data: Incidence, rare_threshold: int, conf: float, one: bool) -> RichnessEstimate:
    name = "ice-1" if one else "ice"
    y, t = data.frequencies, data.T
    summaries = {**rare_summaries(data, y, rare_threshold), "f2": float(data.f(2))}
    if not summaries["s_rare"]:
        return finish(name, data, float(data.s_obs), None, "none", conf, k=rare_threshold)

    def fn(**kw: complex) -> complex:
        return _ice_core(t=t, one=one, **kw)

    return coverage_fit(name, data, fn, summaries, rare_threshold, conf, ("S_infreq", "n_infreq"))


def ice(data: Incidence, *, rare_threshold: int = 10, conf: float = 0.95) -> RichnessEstimate:
    """ICE, incidence-based coverage estimator (Lee & Chao 1994, Biometrics 50:88), threshold ``k``:
    ``Ŝ = S_freq + S_infreq/C + Q1/C · γ̂²`` with SpadeR's coverage of the infrequent species
    ``C = 1 − Q1/U_infreq · (T−1)Q1/((T−1)Q1 + 2Q2)`` and
    ``γ̂² = max(S_infreq/C · T/(T−1) · Σ_{k≤10} k(k−1)Q_k / (U_infreq(U_infreq − 1)) − 1, 0)``.
    Variance: delta method over all classes (SpadeR ``SpecInciModelh``)."""
    return _ice(data, rare_threshold, conf, one=False)


def ice1(data: Incidence, *, rare_threshold: int = 10, conf: float = 0.95) -> RichnessEstimate:
    """ICE-1 (SpadeR "Model(h)-1"): :func:`ice` with
    ``γ̂1² = max(γ̂² (1 + Q1/C · T/(T−1) · Σ k(k−1)Q_k / (U_infreq(U_infreq − 1))), 0)``."""
    return _ice(data, rare_threshold, conf, one=True)


INCIDENCE_ESTIMATORS: Mapping[str, Callable[[Incidence], RichnessEstimate]] = MappingProxyType(
    {
        "chao2": chao2,
        "chao2-bc": chao2_bc,
        "ichao2": ichao2,
        "ice": ice,
        "ice-1": ice1,
        "jackknife1": jackknife1,
        "jackknife2": jackknife2,
    }
)
"""Incidence estimators by name."""


def estimate_richness(data: Abundance | Incidence, method: str, *, conf: float = 0.95) -> RichnessEstimate:
    """Run the estimator ``method`` from ``ABUNDANCE_ESTIMATORS`` or ``INCIDENCE_ESTIMATORS``
    (chosen by the type of ``data``), with the sample's caveats (:func:`sample_caveats`)."""
    table: Mapping[str, Callable[..., RichnessEstimate]]
    if isinstance(data, Abundance):
        table, kind = ABUNDANCE_ESTIMATORS, "abundance"
    elif isinstance(data, Incidence):
        table, kind = INCIDENCE_ESTIMATORS, "incidence"
    else:
        raise StatsError(f"data must be Abundance or Incidence, got {type(data).__name__}")
    if method not in table:
        raise StatsError(f"unknown {kind} richness estimator {method!r}; choose one of {', '.join(table)}")
    found: RichnessEstimate = table[method](data, conf=conf)
    what = f"{method}'s estimate"
    if isinstance(data, Incidence):  # incidences U, not the T units, are the observations counted
        caveats = sample_caveats(data.U, data.s_obs, data.f(1), what, units=data.T)
    else:
        caveats = sample_caveats(data.size, data.s_obs, data.f(1), what)
    return replace(found, caveats=tuple(caveats))
