"""Hill numbers of order q = 0, 1, 2: observed and asymptotic, with iNEXT's bootstrap intervals.

``qD = (Σ p_i^q)^{1/(1−q)}``: species richness (q = 0), the exponential of Shannon entropy (q = 1)
and the inverse Simpson concentration (q = 2). Estimators (Chao et al. 2014, Ecol. Monogr. 84:45;
iNEXT 3.0.2 ``AsyD``), for abundance data (``n``, ``X_i``, ``f_k``):

- q = 0: Chao1, ``S_obs + (n−1)/n · f1²/(2f2)`` (``f1(f1−1)/2`` when ``f2 = 0``);
- q = 1: Chao, Wang & Jost (2013, Methods Ecol. Evol. 4:1091):
  ``exp(Σ_i X_i/n (ψ(n) − ψ(X_i)) + f1/n · Σ_{j≥1} (1−A)^j/(n−1+j))``, ``A = 2f2/((n−1)f1 + 2f2)``
  (``2/((n−1)(f1−1) + 2)`` when ``f2 = 0``; the second term is 0 when ``A = 1`` or ``f1 = 0``). iNEXT
  writes the tail as ``(1−A)^{1−n}(−log A − Σ_{r<n} (1−A)^r/r)`` rounded to 1e-12, which cancels
  catastrophically for large ``n``; here it is integrated directly (same value on small samples);
- q = 2: the unbiased Simpson estimator, ``1 / Σ X_i(X_i−1)/(n(n−1))``.

For incidence data (``T`` units, ``Y_i``, ``U``) iNEXT's incidence forms are used: Chao2 (q = 0),
``exp((T/U)(Σ_i Y_i/T (ψ(T) − ψ(Y_i)) + Q1/T · tail) + log(U/T))`` (q = 1) and
``U²(T−1)/(T Σ Y_i(Y_i−1))`` (q = 2). Observed values use ``p_i = X_i/n`` (``Y_i/U``).

Bootstrap (iNEXT ``EstiBootComm``): the estimated assemblage keeps the detected species with
``p̃_i = X_i/n (1 − λ (1 − X_i/n)^n)`` and adds ``⌈f̂0⌉`` undetected ones sharing ``f1/n · A``
(``λ`` makes the ``p̃`` sum to 1); replicates are multinomial draws of ``n`` (incidence: independent
binomials ``Bin(T, π̃_i)``, replicates with no detection dropped). Intervals are iNEXT's
``estimate ± z·sd`` over replicates, clipped at 0 (and at the observed richness for q = 0).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import integrate
from scipy.special import digamma

from knowsum.stats import _spade
from knowsum.stats._arrays import FloatArray
from knowsum.stats._errors import StatsError
from knowsum.stats.bootstrap import check_resamples
from knowsum.stats.caveats import Caveat, hill_order
from knowsum.stats.samples import Abundance, Incidence

__all__ = [
    "ORDERS",
    "HillNumbers",
    "asymptotic_hill",
    "bootstrap_assemblage",
    "hill_numbers",
    "observed_hill",
]

ORDERS = (0, 1, 2)
"""The orders of q supported (richness, Shannon, Simpson)."""


@dataclass(frozen=True, slots=True)
class HillNumbers:
    """Observed and asymptotic Hill numbers with bootstrap intervals.

    Attributes:
        q: The orders.
        observed: Empirical ``qD`` of the sample, one per order.
        estimated: Asymptotic estimates.
        std_error: Bootstrap s.d. of the estimates (``None`` when ``n_bootstrap = 0``).
        lower: Lower ends of the ``conf`` intervals (``None`` without bootstrap).
        upper: Upper ends.
        n_bootstrap: Replicates used (incidence replicates with no detection are dropped).
        conf: Confidence level.
    """

    q: tuple[int, ...]
    observed: FloatArray
    estimated: FloatArray
    std_error: FloatArray | None
    lower: FloatArray | None
    upper: FloatArray | None
    n_bootstrap: int
    conf: float

    @property
    def caveats(self) -> tuple[Caveat, ...]:
        """``Hill numbers out of order`` when the estimates increase with ``q`` (:func:`hill_order`)."""
        found = hill_order(self.q, [float(x) for x in self.estimated])
        return () if found is None else (found,)


def check_orders(q: Sequence[int] | int) -> tuple[int, ...]:
    """Validated orders (each of 0, 1, 2)."""
    orders = (q,) if isinstance(q, int | np.integer) else tuple(q)
    if not orders or any(isinstance(o, bool) or o not in ORDERS for o in orders):
        raise StatsError(f"orders q must be chosen among {ORDERS}, got {q!r}")
    return tuple(int(o) for o in orders)


def tail(size: int, a: float) -> float:
    """``Σ_{j≥1} (1−a)^j/(size−1+j)`` (0 when ``a ≥ 1``), integrated as
    ``(1/size)∫_0^∞ (1−a) e^{−u} / (1 − (1−a) e^{−u/size}) du``."""
    if a >= 1.0 or a <= 0.0:
        return 0.0 if a >= 1.0 else math.inf
    log_x = math.log1p(-a)

    def f(u: float) -> float:
        return math.exp(log_x - u) / -math.expm1(log_x - u / size)

    edges = sorted({0.0, min(size * a, 40.0), 40.0})
    parts = [
        integrate.quad(f, lo, hi, epsabs=0.0, epsrel=1e-12, limit=200)[0]
        for lo, hi in itertools.pairwise(edges)
    ]
    parts.append(integrate.quad(f, 40.0, math.inf, epsabs=0.0, epsrel=1e-12, limit=200)[0])
    return float(sum(parts)) / size


def batch_observed(counts: FloatArray, totals: FloatArray) -> FloatArray:
    """Observed ``qD`` (q = 0, 1, 2) of each row of a replicate × species count matrix, ``(B, 3)``."""
    p = counts / totals[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    return np.column_stack([(counts > 0).sum(axis=1), np.exp(-plogp.sum(axis=1)), 1.0 / (p * p).sum(axis=1)])


def batch_asymptotic(counts: FloatArray, totals: FloatArray, size: int) -> FloatArray:
    """Asymptotic ``qD`` (q = 0, 1, 2) of each row, ``(B, 3)`` (module docstring); ``size``: ``n``/``T``."""
    n = float(size)
    s_obs = (counts > 0).sum(axis=1)
    f1 = (counts == 1).sum(axis=1).astype(np.float64)
    f2 = (counts == 2).sum(axis=1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        f0 = _spade.chao1_f0(f1, f2, (n - 1) / n)
        psi = np.where(
            counts > 0, counts / n * (digamma(n) - digamma(np.where(counts > 0, counts, 1.0))), 0.0
        )
        sxx = (counts * (counts - 1)).sum(axis=1)
        d2 = (totals / n) ** 2 * n * (n - 1) / sxx
    tails = np.array(
        [
            f / n * tail(size, 1.0 - _spade.chao_jost_factor(int(f), int(g), size)) if f > 0 else 0.0
            for f, g in zip(f1, f2, strict=True)
        ]
    )
    d1 = np.exp(n / totals * (psi.sum(axis=1) + tails) + np.log(totals / n))
    return np.column_stack([s_obs + f0, d1, d2])


def as_matrix(data: Abundance | Incidence) -> tuple[FloatArray, FloatArray]:
    """The sample as a one-row batch: counts ``(1, S)`` and total ``[n]`` (incidence: ``[U]``)."""
    total = data.n if isinstance(data, Abundance) else data.U
    return data.counts[None, :].astype(np.float64), np.array([float(total)])


def observed_hill(data: Abundance | Incidence, q: Sequence[int] | int = ORDERS) -> FloatArray:
    """Empirical Hill numbers of the sample (``p_i = X_i/n`` or ``Y_i/U``)."""
    orders = check_orders(q)
    return batch_observed(*as_matrix(data))[0, list(orders)]


def asymptotic_hill(data: Abundance | Incidence, q: Sequence[int] | int = ORDERS) -> FloatArray:
    """Asymptotic Hill-number estimates (module docstring)."""
    orders = check_orders(q)
    counts, totals = as_matrix(data)
    return batch_asymptotic(counts, totals, data.size)[0, list(orders)]


def bootstrap_assemblage(data: Abundance | Incidence) -> FloatArray:
    """iNEXT's estimated assemblage: relative abundances (incidence: detection probabilities) of the
    detected species, then ``⌈f̂0⌉`` undetected species (module docstring), sorted decreasingly."""
    size = data.size
    x = data.counts.astype(np.float64)
    f1, f2 = data.f(1), data.f(2)
    f0 = float(_spade.chao1_f0(f1, f2, (size - 1) / size))
    a = f1 / size * _spade.chao_jost_factor(f1, f2, size)
    b = float(np.sum(x / size * (1 - x / size) ** size))
    w = a / b if f0 > 0 and b > 0 else 0.0
    seen = x / size * (1 - w * (1 - x / size) ** size)
    unseen = math.ceil(f0) if f0 > 0 else 0
    return np.sort(np.concatenate([seen, np.full(unseen, a / unseen if unseen else 0.0)]))[::-1]


def draw_replicates(data: Abundance | Incidence, n_bootstrap: int, rng: np.random.Generator) -> FloatArray:
    """Bootstrap replicates ``(B, S_obs + ⌈f̂0⌉)`` from :func:`bootstrap_assemblage` (incidence
    replicates without any detection are dropped, as iNEXT does).

    Raises:
        StatsError: fewer than two informative replicates (no standard error can be estimated).
    """
    p = bootstrap_assemblage(data)
    if isinstance(data, Abundance):
        draws = rng.multinomial(data.n, p / p.sum(), size=n_bootstrap)
    else:
        draws = rng.binomial(data.T, np.clip(p, 0.0, 1.0), size=(n_bootstrap, p.size))
        draws = draws[draws.sum(axis=1) > 0]
    if draws.shape[0] < 2:
        raise StatsError("too few informative bootstrap replicates to estimate a standard error")
    return draws.astype(np.float64)


def bootstrap_sd(values: FloatArray) -> FloatArray:
    """Standard deviation over replicates (axis 0, ``ddof = 1``, R's ``sd``), ignoring NaN and ±inf
    (NaN where fewer than two finite replicates, without a warning)."""
    finite = np.where(np.isfinite(values), values, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanstd(finite, axis=0, ddof=1), dtype=np.float64)


def check_bootstrap(n_bootstrap: int, conf: float) -> float:
    """Validate ``n_bootstrap`` (0 or at least 2: :func:`~knowsum.stats.bootstrap.check_resamples`)
    and ``conf``; return ``z``."""
    check_resamples(n_bootstrap)
    return _spade.z_value(conf)


def hill_numbers(
    data: Abundance | Incidence,
    q: Sequence[int] | int = ORDERS,
    *,
    n_bootstrap: int = 200,
    conf: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> HillNumbers:
    """Observed and asymptotic Hill numbers with iNEXT's bootstrap intervals (module docstring).

    Args:
        data: Abundance or incidence sample.
        q: Orders among 0, 1, 2.
        n_bootstrap: Replicates (0: no intervals).
        conf: Confidence level of the intervals.
        seed: Seed or NumPy ``Generator`` (the same seed gives the same intervals).
    """
    orders = check_orders(q)
    z = check_bootstrap(n_bootstrap, conf)
    counts, totals = as_matrix(data)
    observed = batch_observed(counts, totals)[0]
    estimated = batch_asymptotic(counts, totals, data.size)[0]
    idx = list(orders)
    if n_bootstrap == 0:
        return HillNumbers(orders, observed[idx], estimated[idx], None, None, None, 0, conf)
    draws = draw_replicates(data, n_bootstrap, np.random.default_rng(seed))
    boot = batch_asymptotic(draws, draws.sum(axis=1), data.size)
    sd = bootstrap_sd(boot)
    lower = np.maximum(estimated - z * sd, 0.0)
    lower[0] = max(lower[0], observed[0])
    return HillNumbers(
        orders,
        observed[idx],
        estimated[idx],
        sd[idx],
        lower[idx],
        (estimated + z * sd)[idx],
        int(draws.shape[0]),
        conf,
    )
