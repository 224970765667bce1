"""Long-range estimators on batches of histograms: preseq's rational function, the Pitman–Yor predictive.

Both read the *whole* histogram of a sample (every ``f_s``, not only ``s ≤ k``), so they are nonlinear
functions of it, applied row by row to a ``(B, s_max + 1)`` histogram matrix:

- ``preseq`` — :func:`knowsum.stats.preseq.fit_rational` (Daley & Smith 2013; ``preseq lc_extrap -Q``):
  ``Û(t) = t · CF_d(t)``; NaN where preseq gives no estimate.
- ``pitman-yor`` — :func:`knowsum.stats.pitman_yor.fit_rows` then
  :func:`~knowsum.stats.pitman_yor.expected_new` with ``m = t·n`` (Favaro et al. 2009, eq. 5); NaN where
  the likelihood has no maximum.

The ``*_panel`` functions take a back-test panel (:class:`knowsum.stats.foresee.Panel`: ``hist``, ``n``,
``t``); they refuse a histogram whose last column lumps the counts above a cap (``panel(..., full=False)``
with an item past it), since neither estimator can be computed from it.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import lru_cache, partial
from typing import Protocol

import numpy as np

from knowsum.stats import pitman_yor as py
from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats._plan import EstimatorPlan
from knowsum.stats.preseq import fit_rational

__all__ = [
    "PanelLike",
    "pitman_yor_details",
    "pitman_yor_mean",
    "pitman_yor_panel",
    "pitman_yor_rows",
    "pitman_yor_variance",
    "plan_pitman_yor",
    "plan_preseq",
    "preseq_details",
    "preseq_panel",
    "preseq_rows",
]


class PanelLike(Hashable, Protocol):
    """What the panel functions read of a :class:`knowsum.stats.foresee.Panel` (hashed by identity)."""

    @property
    def t(self) -> float: ...
    @property
    def n(self) -> FloatArray: ...
    @property
    def hist(self) -> IntArray: ...


def preseq_rows(hist: IntArray | FloatArray, t: float) -> tuple[FloatArray, tuple[str | None, ...]]:
    """``Û(t)`` of each row by preseq's rational function, and each row's reason when it has none."""
    found = fit_rational(hist)
    return found(float(t)), tuple(r or None for r in found.reasons())


def pitman_yor_rows(
    hist: IntArray | FloatArray, t: float
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, tuple[str | None, ...]]:
    """``(Û(t), Var(U(t) | σ̂, θ̂), σ̂, θ̂, reasons)`` of each row by the Pitman–Yor predictive, ``m = t·n``."""
    h = np.atleast_2d(np.asarray(hist, dtype=np.float64))
    sigma, theta, reasons = py.fit_rows(h)
    s = np.arange(h.shape[1], dtype=np.float64)
    n = h[:, 1:] @ s[1:]
    j = h[:, 1:].sum(axis=1)
    mean = py.expected_new(sigma, theta, n, j, float(t) * n)
    var = py.predictive_variance(sigma, theta, n, j, float(t) * n)
    return mean, var, sigma, theta, reasons


def preseq_details(hist: IntArray | FloatArray) -> dict[str, float | int | str]:
    """The degree and ``max_terms`` of preseq's continued fraction for the first row of ``hist``."""
    found = fit_rational(hist)
    return {"degree": int(found.degree[0]), "max_terms": int(found.max_terms[0])}


def pitman_yor_mean(hist: IntArray | FloatArray, t: float) -> tuple[FloatArray, tuple[str | None, ...]]:
    """``Û(t)`` of each row by the Pitman–Yor predictive, and each row's reason when it has none."""
    mean, _, _, _, reasons = pitman_yor_rows(hist, t)
    return mean, reasons


def pitman_yor_details(hist: IntArray | FloatArray, t: float) -> dict[str, float | int | str]:
    """``σ̂``, ``θ̂`` and the predictive s.d. ``sqrt(Var(U(t) | σ̂, θ̂))`` for the first row of ``hist``."""
    _, var, sigma, theta, _ = pitman_yor_rows(hist, t)
    return {"sigma": float(sigma[0]), "theta": float(theta[0]), "predictive_sd": float(var[0] ** 0.5)}


def plan_preseq(n: int, t: float, k: int | None) -> EstimatorPlan:
    """The ``preseq`` estimator at ``t`` (``n``, ``k`` unused): a planner of ``knowsum.stats.ESTIMATORS``."""
    return EstimatorPlan("preseq", t, None, {}, rows=partial(preseq_rows, t=t), details=preseq_details)


def plan_pitman_yor(n: int, t: float, k: int | None) -> EstimatorPlan:
    """The ``pitman-yor`` estimator at ``t`` (``n``, ``k`` unused): a planner of ``ESTIMATORS``."""
    rows, details = partial(pitman_yor_mean, t=t), partial(pitman_yor_details, t=t)
    return EstimatorPlan("pitman-yor", t, None, {}, rows=rows, details=details)


def _whole(p: PanelLike, name: str) -> IntArray:
    """``p.hist``, refused when its last column lumps counts above a cap."""
    if p.hist.shape[1] and np.any(p.hist[:, -1] > 0):
        raise StatsError(
            f"{name} needs each sample's whole histogram, but the panel lumps the counts above "
            f"{p.hist.shape[1] - 2} into one column: build it with panel(..., full=True)"
        )
    return p.hist


def preseq_panel(p: PanelLike) -> FloatArray:
    """``Û(t)`` of every sample of a back-test panel by preseq's rational function (NaN where it has none)."""
    return preseq_rows(_whole(p, "preseq"), p.t)[0]


@lru_cache(maxsize=4)
def _pitman_yor_panel(p: PanelLike) -> tuple[FloatArray, FloatArray]:
    """One fit per panel for both the prediction and its variance (panels hash by identity)."""
    mean, var, *_ = pitman_yor_rows(_whole(p, "pitman-yor"), p.t)
    return mean, var


def pitman_yor_panel(p: PanelLike) -> FloatArray:
    """``Û(t)`` of every sample of a back-test panel by the Pitman–Yor predictive (NaN where no fit)."""
    return _pitman_yor_panel(p)[0].copy()


def pitman_yor_variance(p: PanelLike) -> FloatArray:
    """``Var(U(t) | σ̂, θ̂)`` of every sample: the closed-form spread of the future sample's new items under
    the fitted process (:func:`knowsum.stats.pitman_yor.predictive_variance`), not the fit's uncertainty."""
    return _pitman_yor_panel(p)[1].copy()
