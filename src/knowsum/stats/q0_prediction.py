"""The prediction interval of iNEXT's q = 0 extrapolation: how many items ``m*`` further observations show.

iNEXT extrapolates the richness of a sample of ``N + m*`` observations (``N = n`` individuals, or ``T``
sampling units for incidence data) as ``Ŝ(N + m*) = S_obs + Û(m*)``, ``Û(m*) = f̂0 (1 − (1 −
f1/(N f̂0 + f1))^{m*})`` (Chao et al. 2014, Ecol. Monogr. 84:45, eq. 9 abundance, eq. 15 incidence
with ``Q_k`` for ``f_k``; :mod:`knowsum.stats._recurve`). Its **confidence interval** is iNEXT's:
``Ŝ ± z·ŝ``, ``ŝ`` the standard deviation of ``Ŝ*(N + m*)`` over replicates drawn from the estimated
community (Chao et al. 2014, App. S2; iNEXT ``EstiBootComm.Ind``/``EstiBootComm.Sam``:
:func:`~knowsum.stats.hill.bootstrap_assemblage`) — where ``E S(N + m*)`` lies.

The **prediction interval** says what ``m*`` further observations will *show*: the new items
``U = Σ_i 1{i unseen in the sample, seen in the m* more}`` and ``N_tot = S_obs + U``. The future
sample is independent of the present one, so (:mod:`knowsum.stats.prediction`)
``E(Û − U)² = Var(Û) + Var(U) + bias²``, and::

    N_tot(N + m*) ∈ Ŝ(N + m*) ± z · sqrt(ŝ² + max(Û, 0)),   cut to [S_obs, S_obs + m*]

- ``Var(Û)``: no closed form; iNEXT's own bootstrap variance ``ŝ²`` of ``Ŝ*`` takes its place (the
  same replicates as the confidence interval). ``ŝ²`` also holds the replicates' variation of
  ``S*_obs``, which a census's fixed ``S_obs`` does not have, so it is, if anything, too large
  (``Û`` and ``S_obs`` rise together with the singletons); it makes the prediction interval hold the
  confidence interval by construction.
- ``Var(U)``: under Poisson sampling (abundance) or independent detections per unit (incidence, the
  Bernoulli product model of Chao et al. 2014 §"incidence data") ``U`` is a sum of independent
  indicators with ``P(i new) = q_i``, ``Var(U) = Σ q_i(1 − q_i) ≤ E U``; knowsum uses this Poisson
  bound, estimated by ``Û``, the convention of :mod:`knowsum.stats.prediction`. Chosen over
  simulating ``U`` from the fitted community inside the same bootstrap: that community puts ``⌈f̂0⌉``
  undetected items of *equal* probability in the tail (``f̂0`` is Chao1's lower bound), whose
  ``Var(U) = f̂0·q(1 − q)`` falls short of ``E U`` by the factor ``1 − q`` (about 1/2 at
  ``m* = N``) and would narrow the interval exactly where the tail is least known; the bound needs
  no tail shape. (Multinomial sampling makes the indicators slightly negatively dependent: smaller
  still.)
- The form is iNEXT's normal ``estimate ± z·s.d.``, the form of the confidence interval beside it, not
  the census's log-normal one, so the two are comparable; the lower end is cut at ``S_obs``
  (``U ≥ 0``). It assumes near-independent sampling (a model that names items in fixed bundles makes
  ``Var(U)`` larger), that the bias of Chao1's ``f̂0`` is small beside the spread (the extrapolation
  is reliable to about ``2N``, Chao et al. 2014, and is flagged beyond), and enough replicates.

iNEXT cuts the confidence band at 0 only, so far beyond ``N`` its lower end can fall below ``S_obs``
(spider ``Girdled``, ``m = 2000``: ``[7.0, 80.8]`` with ``S_obs = 26``), and just beyond ``N`` its upper
end can pass ``S_obs + m*`` (``m = 169``, one observation more: up to 5 new items). The estimand is
the richness of the *augmented* sample (Chao et al. 2014, eq. 9), which holds the ``S_obs`` items
already seen and, for abundance data, at most one more item per further observation: it lies in
``[S_obs, S_obs + m*]``, and a bound outside contradicts the data. :func:`q0_attainable` cuts both
ends of the band — and of the prediction interval — to that range where ``m ≥ N`` (incidence data:
the lower end only, a sampling unit may hold many new items). knowsum's rule, not iNEXT's; every
surface that applies it keeps iNEXT's band beside it, named (:data:`Q0_FLOOR`). Rarefied points
(``m < N``) keep iNEXT's band: a sub-sample may hold fewer than ``S_obs``.

n/a (with the reason) where ``m ≤ N`` — rarefaction describes sub-samples of the data in hand and
``m = N`` is the sample itself: no further observations to predict — where ``f1 = 0`` (no evidence of
unseen items: ``Û = 0`` whatever ``m*``), and without bootstrap replicates (no ``ŝ``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from knowsum.stats._arrays import FloatArray
from knowsum.stats._spade import z_value
from knowsum.stats.rarefaction import rarefaction_extrapolation
from knowsum.stats.samples import Abundance, Incidence

__all__ = [
    "Q0_FLOOR",
    "Q0_METHOD",
    "Q0Prediction",
    "q0_attainable",
    "q0_predict",
    "q0_prediction",
    "q0_prediction_bounds",
]

Q0_METHOD = (
    "normal (iNEXT's form) around Ŝ(m) with v = iNEXT's bootstrap variance of Ŝ(m) (replicates from the "
    "estimated community) + Û (Poisson U); cut to [S_obs, S_obs + (m − N)] (incidence: at least S_obs)"
)
"""How the prediction interval of iNEXT's q = 0 extrapolation is formed."""

Q0_FLOOR = (
    "iNEXT's bootstrap Ŝ ± z·ŝ (cut at 0); for q = 0, where m ≥ N, cut to the attainable [S_obs, "
    "S_obs + (m − N)] (incidence: at least S_obs), as the extended sample holds the S_obs items seen and "
    "an observation adds at most one (knowsum's rule; iNEXT's own band is kept beside it)"
)
"""How knowsum's q = 0 confidence band differs from iNEXT's (module docstring)."""


@dataclass(frozen=True, slots=True)
class Q0Prediction:
    """Prediction intervals of the q = 0 richness ``N_tot(m)`` at each size ``m`` (module docstring).

    Attributes:
        size: Sizes ``m`` (observations, or sampling units for incidence data).
        estimate: ``Ŝ(m)``.
        std_error: iNEXT's bootstrap s.d. of ``Ŝ(m)`` (NaN without replicates).
        lower: Lower end of the prediction interval of ``N_tot(m)`` (NaN: n/a, see :attr:`reasons`).
        upper: Upper end.
        reasons: Why each interval is n/a, or ``None``.
        s_obs: Observed richness (``U = N_tot − S_obs``).
        level: Coverage.
        method: :data:`Q0_METHOD`.
    """

    size: FloatArray
    estimate: FloatArray
    std_error: FloatArray
    lower: FloatArray
    upper: FloatArray
    reasons: tuple[str | None, ...]
    s_obs: int
    level: float
    method: str = Q0_METHOD

    def total(self, j: int) -> tuple[float, float] | None:
        """``[lo, hi]`` of ``N_tot`` at size ``j``, or ``None`` (n/a)."""
        return None if self.reasons[j] is not None else (float(self.lower[j]), float(self.upper[j]))

    def unseen(self, j: int) -> tuple[float, float] | None:
        """``[lo, hi]`` of the new items ``U`` at size ``j``, or ``None`` (n/a)."""
        found = self.total(j)
        return None if found is None else (found[0] - self.s_obs, found[1] - self.s_obs)


def q0_prediction_bounds(
    estimate: FloatArray | float, std_error: FloatArray | float, s_obs: float, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """``Ŝ ± z·sqrt(ŝ² + max(Ŝ − S_obs, 0))``, the lower end at least ``S_obs`` (module docstring);
    NaN ends where ``ŝ`` is not finite."""
    z = z_value(level)
    est = np.asarray(estimate, dtype=np.float64)
    sd = np.asarray(std_error, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        half = z * np.sqrt(sd * sd + np.maximum(est - s_obs, 0.0))
    ok = np.isfinite(half) & np.isfinite(est)
    return np.where(ok, np.maximum(est - half, s_obs), np.nan), np.where(ok, est + half, np.nan)


def q0_attainable(
    lower: FloatArray | Sequence[float],
    upper: FloatArray | Sequence[float],
    sizes: FloatArray | Sequence[float],
    reference: int,
    s_obs: int,
    incidence: bool = False,
) -> tuple[FloatArray, FloatArray]:
    """A q = 0 band (iNEXT's, or a prediction interval) cut to the attainable range where ``m ≥ N``
    (``reference``): at least ``S_obs``, and for abundance data at most ``S_obs + (m − N)`` (module
    docstring). Rarefied points and NaN ends are unchanged."""
    lo = np.asarray(lower, dtype=np.float64)
    hi = np.asarray(upper, dtype=np.float64)
    m = np.asarray(sizes, dtype=np.float64)
    past = m >= reference
    top = np.inf if incidence else s_obs + (m - reference)
    with np.errstate(invalid="ignore"):
        lo = np.where(past & np.isfinite(lo), np.clip(lo, s_obs, top), lo)
        hi = np.where(past & np.isfinite(hi), np.clip(hi, s_obs, top), hi)
    return lo, hi


def _reason(size: float, reference: int, f1: int, sd: float, incidence: bool) -> str | None:
    n = "T" if incidence else "n"
    more = "sampling units" if incidence else "observations"
    if size < reference:
        return f"m < {n} interpolates: a sub-sample of the data in hand, no further {more} to predict"
    if size == reference:
        return f"m = {n} is the sample itself: no further {more} to predict"
    if f1 == 0:
        return "no singletons, so no evidence of unseen items (Û = 0 at every m)"
    if not math.isfinite(sd):
        return "no bootstrap replicates, so no variance of Ŝ(m) (iNEXT's is its bootstrap)"
    return None


def q0_prediction(
    data: Abundance | Incidence,
    sizes: Sequence[float] | FloatArray,
    estimate: Sequence[float] | FloatArray,
    std_error: Sequence[float] | FloatArray | None,
    level: float = 0.95,
) -> Q0Prediction:
    """The prediction intervals of a q = 0 curve already computed: ``estimate`` ``Ŝ(m)`` and its
    bootstrap ``std_error`` at each of ``sizes`` (``None``: no replicates, every interval n/a)."""
    m = np.asarray(sizes, dtype=np.float64).ravel()
    est = np.asarray(estimate, dtype=np.float64).ravel()
    sd = np.full(m.size, np.nan) if std_error is None else np.asarray(std_error, dtype=np.float64).ravel()
    incidence = isinstance(data, Incidence)
    reasons = tuple(
        _reason(float(mi), data.size, data.f(1), float(si), incidence) for mi, si in zip(m, sd, strict=True)
    )
    lo, hi = q0_attainable(
        *q0_prediction_bounds(est, sd, data.s_obs, level), m, data.size, data.s_obs, incidence
    )
    na = np.array([r is not None for r in reasons], dtype=bool)
    return Q0Prediction(
        m, est, sd, np.where(na, np.nan, lo), np.where(na, np.nan, hi), reasons, data.s_obs, level
    )


def q0_predict(
    data: Abundance | Incidence,
    sizes: Sequence[float] | FloatArray,
    n_bootstrap: int = 200,
    level: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> tuple[Q0Prediction, FloatArray, FloatArray]:
    """iNEXT's q = 0 estimate at ``sizes``, its confidence band (``Ŝ ± z·ŝ``, lower end at 0, as
    iNEXT) and the prediction interval: ``(prediction, ci_lower, ci_upper)``, each per size.

    Raises:
        StatsError: invalid sizes, ``n_bootstrap`` or ``level``.
    """
    m = np.asarray(sizes, dtype=np.float64).ravel()
    re = rarefaction_extrapolation(
        data, 0, sizes=m, coverages=(), n_bootstrap=n_bootstrap, conf=level, seed=seed
    )
    curve = re.size_based
    pick = np.array([int(np.flatnonzero(curve.size == mi)[0]) for mi in m], dtype=np.int64)
    est = curve.diversity[0][pick]
    sd = None if curve.std_error is None else curve.std_error[0][pick]
    lo = np.full(m.size, np.nan) if curve.lower is None else curve.lower[0][pick]
    hi = np.full(m.size, np.nan) if curve.upper is None else curve.upper[0][pick]
    return q0_prediction(data, m, est, sd, level), lo, hi
