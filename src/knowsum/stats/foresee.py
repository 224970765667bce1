"""How many new items will ``t`` times as many queries show? Every extrapolation, on a batch of samples.

A back-test (``knowsum census backtest``) keeps ``m`` of a run's ``Q`` queries, predicts how many
items the other ``Q − m`` show that the kept ones do not (``t = (Q − m)/m``), and compares with what
they showed. This module is its maths: a :class:`Panel` of frequency summaries for a batch of
samples (one column per sample: the kept queries, and their bootstrap resamples), and the
predictors, each a vectorised function of a panel (:data:`PREDICTORS`):

- ``sgt-k6``/``-k8``/``-k10``/``-heldout`` — smoothed Good–Turing, KnowSum eq. (1):
  ``Û(t) = Σ_{s≤k} −(−t)^s P(Bin(k, 1/(t+1)) ≥ s) f_s`` (Efron & Thisted 1976); ``heldout`` takes
  each sample's ``k`` from :func:`~knowsum.stats.select_k` (KnowSum §5.1).
- ``good-toulmin`` — ``Û(t) = −Σ_i (−t)^{X_i}`` (Good & Toulmin 1956): unbiased, its variance
  explodes beyond ``t = 1`` — an alternating sum of huge terms, not a rounding error; only a value
  that is not finite in floating point is NaN.
- ``inext-abundance`` — iNEXT's q = 0 extrapolation to ``n(1 + t)`` observations,
  ``Û = f̂0 (1 − (1 − f1/(n f̂0 + f1))^{n t})`` with ``f̂0 = (n−1)/n · f1²/(2 f2)`` (``f2 = 0``:
  ``(n−1)/n · f1(f1−1)/2``) (Chao et al. 2014, Ecol. Monogr. 84:45, eq. 9; iNEXT ``D0.hat``).
- ``inext-incidence`` — the same on incidence data (queries as sampling units, ``Q_k`` items
  named in exactly ``k`` of ``T`` queries), to ``T(1 + t)`` units (Chao et al. 2014, eq. 15).
- ``chao1``/``chao2`` — the asymptotes, bias-corrected: ``f1(f1−1)/(2(f2+1))`` (Chao 2005) and
  ``(T−1)/T · Q1(Q1−1)/(2(Q2+1))``; they predict the items a sample will *ever* add, whatever ``t``.
- ``preseq`` — preseq's rational-function approximation of the Good–Toulmin series (Daley & Smith
  2013; ``preseq lc_extrap -Q``), and ``pitman-yor`` — the Pitman–Yor predictive with ``σ, θ`` fitted by
  maximum likelihood (Favaro, Lijoi, Mena & Prünster 2009, eq. 5): :mod:`knowsum.stats.long_range`.
  Both read whole histograms (a panel built with ``full=True``); NaN where they give no estimate.
- ``chao1-sc``/``inext-abundance-sc`` — the same with the singleton count replaced by
  :func:`singleton_estimate` (Chiu & Chao 2016): spurious singletons (verification errors) do not
  count as evidence of unseen items.

Intervals (:func:`lognormal_bounds`): Chao's (1987) log-normal interval of the census, with the
variance of the predictor over the bootstrap columns of the same sample — a **confidence** interval
of ``E U``. The **prediction** interval of the realised ``U`` adds the Poisson variance of ``U``
(:mod:`knowsum.stats.prediction`): for the linear predictors (:data:`LINEAR`,
``Û = Σ_s h_s f_s``) the estimate's variance is the closed form ``Σ_s h_s² f_s``
(:func:`linear_variance`), for the others the bootstrap variance (the back-test gives the iNEXT
predictors iNEXT's own interval: :mod:`knowsum.stats.foresee_inext`). :func:`score` judges both, with a
Monte Carlo standard error on every number (:mod:`knowsum.stats._foresee_scores`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from statistics import NormalDist
from types import MappingProxyType

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats._foresee_scores import Scores, score
from knowsum.stats.long_range import pitman_yor_panel, pitman_yor_variance, preseq_panel
from knowsum.stats.prediction import plugin_variance
from knowsum.stats.unseen import MAX_K
from knowsum.stats.weights import binomial_tail_weights, et_q

__all__ = [
    "FAMILIES",
    "FULL_HISTOGRAM",
    "FUTURE_VARIANCES",
    "INCIDENCE_PREDICTORS",
    "LINEAR",
    "PREDICTORS",
    "SGT_KS",
    "Panel",
    "Scores",
    "family",
    "future_variance",
    "future_variance_of",
    "linear_variance",
    "linear_variance_of",
    "lognormal_bounds",
    "panel",
    "predictor",
    "score",
    "sgt",
    "singleton_estimate",
]

SGT_KS: tuple[int, ...] = (6, 8, 10)
"""The truncation levels the back-test tries (KnowSum §5.1 selects among them)."""
_CAP = MAX_K + 1
"""Histograms keep ``f_0 … f_cap`` (and the count above): every ``k`` a census accepts (Good–Toulmin
reads the counts themselves)."""


def singleton_estimate(f2: FloatArray | float, f3: FloatArray | float, f4: FloatArray | float) -> FloatArray:
    """The singleton count a sample *should* have, from its doubletons, tripletons and quadrupletons.

    Chiu & Chao (2016), "Estimating and comparing microbial diversity in the presence of sequencing
    errors", PeerJ 4:e1634: by the Good–Turing frequency formula,
    ``f̃1 = 4 f2² / (3 f3) − f2 f3 / (2 f4)``, and ``4 f2²/(3(f3+1)) − f2 f3/(2(f4+1))`` when
    ``f3 f4 = 0``. Checked here against the formula as the R package macam
    (``singleton_estimator``) codes it, not against the paper's text, which this machine cannot read.
    Vectorised; negative values are returned as computed (callers clip at 0).
    """
    a2, a3, a4 = (np.asarray(x, dtype=np.float64) for x in (f2, f3, f4))
    both = (a3 * a4) > 0
    d3 = np.where(both, a3, a3 + 1.0)
    d4 = np.where(both, a4, a4 + 1.0)
    return np.asarray(4.0 * a2 * a2 / (3.0 * d3) - a2 * a3 / (2.0 * d4))


@dataclass(frozen=True, slots=True, eq=False)
class Panel:
    """Frequency summaries of a batch of samples, one entry (or row) per sample.

    Attributes:
        t: The extrapolation factor to predict at (new queries / kept queries).
        n: Observations ``n`` of each sample.
        hist: ``hist[b, s] = f_s`` for every ``s`` up to the largest count (at least ``MAX_K + 1``).
        units: ``T``, the sampling units (queries) of every sample.
        incidence: ``Q_s`` like :attr:`hist`, counting in how many queries an item appears.
        k_heldout: Each sample's held-out ``k`` (``None`` when not selected).
    """

    t: float
    n: FloatArray
    hist: IntArray
    units: int
    incidence: IntArray
    k_heldout: IntArray | None = None

    def f(self, s: int) -> FloatArray:
        """``f_s`` of each sample."""
        return self.hist[:, s].astype(np.float64)

    def q(self, s: int) -> FloatArray:
        """``Q_s`` of each sample."""
        return self.incidence[:, s].astype(np.float64)


def _histograms(matrix: sp.csr_matrix, cap: int) -> IntArray:
    """``(B, cap + 2)`` histograms of the rows of a ``(B, items)`` sparse count matrix (one
    ``bincount`` over the stored counts: the cost follows the items seen, not the items × samples).
    The bin of each stored count is written in place into its row's offset, so the stored counts are
    read once and never copied to a wider type."""
    rows, width = matrix.shape[0], cap + 2
    lengths = np.diff(matrix.indptr)
    key = np.repeat(np.arange(0, rows * width, width, dtype=np.intp), lengths)
    key += np.minimum(matrix.data, cap + 1, dtype=np.intp)
    hist = np.bincount(key, minlength=rows * width).reshape(rows, width)
    hist[:, 0] = matrix.shape[1] - lengths
    return hist


def _rows(matrix: NDArray[np.integer] | sp.spmatrix) -> sp.csr_matrix:
    """A ``(B, items)`` count matrix as CSR without stored zeros (an integer CSR matrix is taken as it
    is, copied only when it stores a zero; anything else is converted to ``int64``)."""
    out: sp.csr_matrix
    if isinstance(matrix, sp.csr_matrix) and np.issubdtype(matrix.dtype, np.integer):
        out = matrix
    else:
        out = sp.csr_matrix(matrix, dtype=np.int64)
    if out.nnz and not np.all(out.data):
        out = out.copy()
        out.eliminate_zeros()
    return out


def _good_toulmin(p: Panel) -> FloatArray:
    """``−Σ_s (−t)^s f_s`` of each sample (Good & Toulmin 1956); NaN where it overflows."""
    s = np.arange(p.hist.shape[1], dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        weights = np.where(s % 2 == 1, 1.0, -1.0) * np.exp(s * math.log(p.t))
        weights[0] = 0.0
        total = np.where(p.hist > 0, p.hist * weights, 0.0).sum(axis=1)
    return np.where(np.isfinite(total), total, np.nan)


INCIDENCE_PREDICTORS = frozenset({"inext-incidence", "chao2"})
"""Predictors that read :attr:`Panel.incidence` (the others leave ``presence`` unused)."""
FULL_HISTOGRAM = frozenset({"good-toulmin", "preseq", "pitman-yor"})
"""Predictors that read every count ``f_s``, not only ``s ≤ MAX_K + 1`` (``panel(full=True)``)."""
LINEAR = frozenset({*(f"sgt-k{k}" for k in SGT_KS), "sgt-heldout", "good-toulmin"})
"""Predictors ``Û = Σ_s h_s f_s`` whose variance has the closed form :func:`linear_variance`
(any ``sgt-k<k>`` name is linear too)."""


def panel(
    counts: NDArray[np.integer] | sp.spmatrix,
    presence: NDArray[np.integer] | sp.spmatrix | None,
    t: float,
    units: int,
    k_heldout: IntArray | None = None,
    full: bool = True,
) -> Panel:
    """Summaries of a batch: ``counts`` and ``presence`` are ``(B, items)``, one row per sample
    (mentions, and the number of queries naming each item; ``None`` when no incidence predictor is
    asked), dense or sparse, every sample of ``units`` queries. ``full = False`` cuts the histograms at
    ``MAX_K + 1`` (all but Good–Toulmin).

    Raises:
        StatsError: mismatched shapes, ``t ≤ 0`` or ``units < 1``.
    """
    if np.ndim(counts) != 2 if not sp.issparse(counts) else False:
        raise StatsError(f"counts must be a 2-D (samples, items) matrix, got shape {np.shape(counts)}")
    rows = _rows(counts)
    present = sp.csr_matrix((rows.shape[0], 0), dtype=np.int64) if presence is None else _rows(presence)
    if present.shape[0] != rows.shape[0]:
        raise StatsError(f"counts {rows.shape} and presence {present.shape} must have one row per sample")
    if not (math.isfinite(t) and t > 0) or units < 1:
        raise StatsError(f"need t > 0 and units >= 1, got t = {t!r}, units = {units!r}")
    return Panel(
        t=float(t),
        n=np.asarray(rows.sum(axis=1), dtype=np.float64).ravel(),
        hist=_histograms(rows, max(int(rows.data.max(initial=0)), _CAP) if full else _CAP),
        units=int(units),
        incidence=_histograms(present, _CAP),
        k_heldout=k_heldout,
    )


def sgt(p: Panel, k: int) -> FloatArray:
    """Smoothed Good–Turing at truncation ``k`` (KnowSum eq. 1) for every sample of ``p``."""
    h = binomial_tail_weights(p.t, k, et_q(p.t))
    return np.asarray(p.hist[:, 1 : k + 1] @ h[1 : k + 1], dtype=np.float64)


def _sgt_heldout(p: Panel) -> FloatArray:
    if p.k_heldout is None:
        raise StatsError("sgt-heldout needs each sample's held-out k (panel(..., k_heldout=...))")
    out = np.empty(p.n.size)
    for k in np.unique(p.k_heldout).tolist():
        rows = p.k_heldout == k
        out[rows] = sgt(p, int(k))[rows]
    return out


def _f0(f1: FloatArray, f2: FloatArray, size: FloatArray | float) -> FloatArray:
    """iNEXT's ``f̂0``: ``(N−1)/N · f1²/(2 f2)``, or ``(N−1)/N · f1(f1−1)/2`` when ``f2 = 0``."""
    with np.errstate(divide="ignore", invalid="ignore"):  # an empty sample (N = 0) has f1 = 0: no f̂0 used
        ratio = (np.asarray(size, dtype=np.float64) - 1.0) / size
        return np.where(f2 > 0, ratio * f1 * f1 / (2.0 * np.maximum(f2, 1.0)), ratio * f1 * (f1 - 1.0) / 2.0)


def _q0_extrapolation(
    f1: FloatArray, f2: FloatArray, size: FloatArray | float, extra: FloatArray
) -> FloatArray:
    """``f̂0 (1 − (1 − f1/(N f̂0 + f1))^{extra})`` (Chao et al. 2014; 0 when ``f1 = 0``)."""
    f0 = _f0(f1, f2, size)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = np.where(f1 > 0, 1.0 - f1 / (size * f0 + f1), 1.0)
        grown = -np.expm1(extra * np.log(np.clip(base, 1e-300, 1.0)))
    return np.where(f1 > 0, f0 * grown, 0.0)


def _sgt_k(name: str) -> int | None:
    """``k`` of a name ``sgt-k<k>`` (``None``: another predictor)."""
    tail = name.removeprefix("sgt-k")
    return int(tail) if tail != name and tail.isdigit() else None


FUTURE_VARIANCES: Mapping[str, Callable[[Panel], FloatArray]] = MappingProxyType(
    {"pitman-yor": pitman_yor_variance}
)
"""Predictors whose model states the variance of the future new items ``U`` itself (the Pitman–Yor
predictive's ``Var(K_m | data)``), used in the prediction interval instead of the Poisson bound ``Û``."""


def future_variance_of(name: str) -> bool:
    """Whether predictor ``name`` states ``Var(U)`` itself (:data:`FUTURE_VARIANCES`)."""
    return name in FUTURE_VARIANCES


def future_variance(name: str, p: Panel) -> FloatArray | None:
    """``Var(U)`` of every sample under predictor ``name``'s own model, or ``None`` (Poisson bound)."""
    found = FUTURE_VARIANCES.get(name)
    return None if found is None else found(p)


def linear_variance_of(name: str) -> bool:
    """Whether predictor ``name`` is linear in the counts (:data:`LINEAR` or any ``sgt-k<k>``)."""
    return name in LINEAR or _sgt_k(name) is not None


def linear_variance(name: str, p: Panel) -> FloatArray | None:
    """``Σ_s h_s² f_s`` of each sample for a linear predictor (:data:`LINEAR`, ``sgt-k<k>``), the
    Poisson plug-in variance of ``Û = Σ_s h_s f_s`` (Orlitsky, Suresh & Wu 2016;
    :func:`~knowsum.stats.prediction.plugin_variance`); ``None`` for any other predictor.

    Smoothed Good–Turing: ``h_s = −(−t)^s P(Bin(k, 1/(t+1)) ≥ s)`` (KnowSum eq. 1);
    Good–Toulmin: ``h_s² = t^{2s}`` (infinite, then NaN, where it leaves the float range).
    """
    k = _sgt_k(name)
    if k is not None:
        return plugin_variance(p.hist, binomial_tail_weights(p.t, k, et_q(p.t)))
    if name == "sgt-heldout":
        if p.k_heldout is None:
            raise StatsError("sgt-heldout needs each sample's held-out k (panel(..., k_heldout=...))")
        out = np.empty(p.n.size)
        for kk in np.unique(p.k_heldout).tolist():
            rows = p.k_heldout == kk
            out[rows] = plugin_variance(p.hist[rows], binomial_tail_weights(p.t, int(kk), et_q(p.t)))
        return out
    if name == "good-toulmin":
        s = np.arange(p.hist.shape[1], dtype=np.float64)
        with np.errstate(over="ignore", invalid="ignore"):
            h2 = np.exp(2.0 * s * math.log(p.t))
            h2[0] = 0.0
            total = np.where(p.hist > 0, p.hist * h2, 0.0).sum(axis=1)
        return np.where(np.isfinite(total), total, np.nan)
    return None


def _sgt_fixed(k: int, p: Panel) -> FloatArray:
    return sgt(p, k)


def _corrected_f1(p: Panel) -> FloatArray:
    return np.maximum(singleton_estimate(p.f(2), p.f(3), p.f(4)), 0.0)


def _chao1_bc(f1: FloatArray, f2: FloatArray) -> FloatArray:
    return f1 * np.maximum(f1 - 1.0, 0.0) / (2.0 * (f2 + 1.0))


PREDICTORS: Mapping[str, Callable[[Panel], FloatArray]] = MappingProxyType(
    {
        **{f"sgt-k{k}": partial(_sgt_fixed, k) for k in SGT_KS},
        "sgt-heldout": _sgt_heldout,
        "good-toulmin": _good_toulmin,
        "inext-abundance": lambda p: _q0_extrapolation(p.f(1), p.f(2), p.n, p.n * p.t),
        "inext-incidence": lambda p: _q0_extrapolation(
            p.q(1), p.q(2), float(p.units), np.full_like(p.n, p.units * p.t)
        ),
        "chao1": lambda p: _chao1_bc(p.f(1), p.f(2)),
        "chao2": lambda p: (p.units - 1.0) / p.units * _chao1_bc(p.q(1), p.q(2)),
        "chao1-sc": lambda p: _chao1_bc(_corrected_f1(p), p.f(2)),
        "inext-abundance-sc": lambda p: _q0_extrapolation(_corrected_f1(p), p.f(2), p.n, p.n * p.t),
        "preseq": preseq_panel,
        "pitman-yor": pitman_yor_panel,
    }
)
"""Predictor name → ``Û`` of every sample of a panel (raw: may be negative or NaN). Explicit table."""

FAMILIES: Mapping[str, str] = MappingProxyType(
    {
        "sgt-k6": "smoothed Good–Turing (KnowSum eq. 1)",
        "sgt-k8": "smoothed Good–Turing (KnowSum eq. 1)",
        "sgt-k10": "smoothed Good–Turing (KnowSum eq. 1)",
        "sgt-heldout": "smoothed Good–Turing (KnowSum eq. 1)",
        "good-toulmin": "Good–Toulmin",
        "inext-abundance": "iNEXT q = 0 extrapolation",
        "inext-incidence": "iNEXT q = 0 extrapolation",
        "inext-abundance-sc": "iNEXT q = 0 extrapolation",
        "chao1": "Chao asymptotes",
        "chao2": "Chao asymptotes",
        "chao1-sc": "Chao asymptotes",
        "preseq": "rational-function Good–Toulmin (preseq)",
        "pitman-yor": "Pitman–Yor predictive",
    }
)
"""Predictor → the panel of the back-test figure it is drawn in."""


def lognormal_bounds(
    point: FloatArray, variance: FloatArray, level: float = 0.95
) -> tuple[FloatArray, FloatArray]:
    """Chao's (1987) log-normal interval of ``Û`` for each sample: ``[Û/C, Û·C]``,
    ``C = exp(z · sqrt(ln(1 + v/Û²)))`` — the census's interval (:mod:`knowsum.stats.intervals`).

    Where ``Û ≤ 0``, the variance is not finite or zero (the bootstrap could not vary), the interval
    is n/a and both ends are NaN.
    """
    if not 0 < level < 1:
        raise StatsError(f"level must be in (0, 1), got {level!r}")
    z = NormalDist().inv_cdf(0.5 + level / 2)
    u = np.asarray(point, dtype=np.float64)
    v = np.asarray(variance, dtype=np.float64)
    ok = (u > 0) & np.isfinite(u) & np.isfinite(v) & (v > 0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        c = np.exp(z * np.sqrt(np.log1p(v / (u * u))))
        return np.where(ok, u / c, np.nan), np.where(ok, u * c, np.nan)


def predictor(name: str) -> Callable[[Panel], FloatArray] | None:
    """The predictor called ``name``: one of :data:`PREDICTORS`, or ``sgt-k<k>`` for any ``k`` in
    ``1 … MAX_K`` (the trust horizon of a census run with ``--k k`` back-tests that one), else ``None``."""
    if name in PREDICTORS:
        return PREDICTORS[name]
    k = _sgt_k(name)
    return None if k is None or not 1 <= k <= MAX_K else partial(sgt, k=k)


def family(name: str) -> str:
    """The panel of the back-test figure that predictor ``name`` belongs to (:data:`FAMILIES`; any
    ``sgt-k<k>`` is smoothed Good–Turing)."""
    return FAMILIES.get(name) or (FAMILIES["sgt-k6"] if _sgt_k(name) is not None else name)
