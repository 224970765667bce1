"""How much more sampling: to detect a fraction ``g`` of the estimated richness, or to reach a coverage.

- :func:`additional_for_richness` — Chao, Colwell, Lin & Gotelli (2009, Ecology 90:1125), eq. 6:
  ``m_g = n f1/(2 f2) · log(f̂0 / ((1 − g) Ŝ))`` with ``f̂0 = (n−1)/n · f1²/(2 f2)`` and
  ``Ŝ = S_obs + f̂0`` (the (n−1)/n Chao1, as the R package sprex's ``num.samples.required``); for
  incidence data ``n, f_k`` become ``T, Q_k``. With ``f2 = 0`` the bias-corrected ``f̂0 =
  (n−1)/n · f1(f1−1)/2`` and the factor ``n (f1 − 1)/2`` are used (``f1²/f2 → f1(f1−1)/(f2+1)``).
- :func:`additional_for_coverage` — Chao & Jost (2012, Ecology 93:2533), eq. 4b solved for ``m*``:
  ``Ĉ(n + m*) = 1 − f1/n · A^{m*+1}`` gives ``m* = log(n(1 − C)/f1) / log A − 1``, with
  ``A = (n−1)f1/((n−1)f1 + 2f2)`` (incidence: ``U`` for ``n`` in the ratio, ``T`` in ``A``).

Both raise :class:`~knowsum.stats.StatsError` when the target is already reached (``g·Ŝ ≤ S_obs``,
``C ≤ Ĉ``) or cannot be reached (no singletons: the estimators infer nothing undetected).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from knowsum.stats import _spade
from knowsum.stats._errors import StatsError
from knowsum.stats.richness import chao_jost_factor, sample_coverage
from knowsum.stats.samples import Abundance, Incidence

__all__ = ["AdditionalSample", "additional_for_coverage", "additional_for_richness"]


@dataclass(frozen=True, slots=True)
class AdditionalSample:
    """The extra sampling effort needed to reach a target.

    Attributes:
        target: ``g`` (fraction of the estimated richness) or ``C`` (coverage).
        kind: ``"richness"`` or ``"coverage"``.
        additional: Extra observations ``m`` (sampling units for incidence data).
        total: ``N + m``.
        current: Where the sample stands now: ``S_obs/Ŝ`` or ``Ĉ``.
        estimate: ``Ŝ`` (richness targets) or ``None``.
        size: ``N`` (``n`` or ``T``).
    """

    target: float
    kind: str
    additional: float
    total: float
    current: float
    estimate: float | None
    size: int


def _check_fraction(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 < float(value) < 1.0:
        raise StatsError(f"{what} must lie strictly between 0 and 1, got {value!r}")
    return float(value)


def additional_for_richness(data: Abundance | Incidence, g: float) -> AdditionalSample:
    """Extra sample size to detect a fraction ``g`` of the Chao1 (Chao2) richness (module docstring)."""
    g = _check_fraction(g, "the richness fraction g")
    size, s_obs, f1, f2 = data.size, data.s_obs, data.f(1), data.f(2)
    k = (size - 1) / size
    if f1 == 0 or (f1 == 1 and f2 == 0):
        raise StatsError(
            "no undetected species are inferred (no singletons, or one singleton and no doubleton): "
            "the observed richness is already the estimate"
        )
    f0 = float(_spade.chao1_f0(f1, f2, k))
    factor = size * f1 / (2 * f2) if f2 > 0 else size * (f1 - 1) / 2
    estimate = s_obs + f0
    if g * estimate <= s_obs:
        raise StatsError(
            f"the target g = {g} of the estimated richness {estimate:.4g} is already reached: "
            f"S_obs = {s_obs} is {s_obs / estimate:.4f} of it"
        )
    m = factor * math.log(f0 / ((1 - g) * estimate))
    return AdditionalSample(g, "richness", m, size + m, s_obs / estimate, estimate, size)


def additional_for_coverage(data: Abundance | Incidence, coverage: float) -> AdditionalSample:
    """Extra sample size for the sample coverage to reach ``coverage`` (module docstring)."""
    target = _check_fraction(coverage, "the coverage target")
    size, f1, f2 = data.size, data.f(1), data.f(2)
    current = sample_coverage(data).coverage
    if target <= current:
        raise StatsError(
            f"the coverage target {target} is already reached: the sample's coverage is {current:.4f}"
        )
    total = data.n if isinstance(data, Abundance) else data.U
    a = chao_jost_factor(f1, f2, size)
    m = math.log(total * (1 - target) / f1) / math.log(a) - 1
    return AdditionalSample(target, "coverage", m, size + m, current, None, size)
