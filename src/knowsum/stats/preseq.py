"""preseq's rational-function approximation of the Good–Toulmin series, on a batch of histograms.

Good & Toulmin (1956) write the items that ``t·n`` further observations add as the power series
``U(t) = Σ_{j≥1} (−1)^{j+1} f_j t^j = t · Σ_{j≥0} a_j t^j`` with ``a_j = (−1)^j f_{j+1}``; it diverges
beyond ``t = 1``. Daley & Smith (2013, Nature Methods 10:325, "Predicting the molecular complexity of
sequencing libraries", Online Methods) replace ``Σ a_j t^j`` by its Padé approximant on the diagonal,
built as a continued fraction ``a_0 / (1 + c_1 t / (1 + c_2 t / …))`` from the first ``d`` coefficients
by the quotient–difference algorithm (DLMF §3.10), and choose ``d`` so that the curve is sane. This
module reproduces what ``preseq lc_extrap -Q`` (its single-estimate mode; preseq 3.2.0) computes:

- ``max_terms`` = ``min(100, first s with f_s = 0, minus 1)``, made even (``-x 100``);
- refused when ``f_1 − f_2 + f_3 − … < 0`` ("saturation expected at double initial sample size") or
  when ``max_terms < 4``;
- ``max_terms ≤ 6``: only ``d = max_terms`` is tried; otherwise ``d = 8, 10, …, max_terms`` and the first
  *stable* one is kept: ``t·CF_d(t)`` on ``t = 0, 0.05, …, 100`` is finite, ``≥ 0``, non-decreasing and
  concave (``check_yield_estimates_stability``);
- no stable ``d``: no estimate ("single estimate failed"; preseq then needs its bootstrap mode);
- ``defects = True`` (``-D``) takes ``d = max_terms`` without any check.

``Û(t) = t · CF_d(t)``: the expected distinct items after ``(1 + t)·n`` observations is ``N_seen + Û(t)``,
preseq's ``EXPECTED_DISTINCT`` at ``TOTAL_READS = (1 + t)·n``. Everything is vectorised over the rows
of a ``(B, s_max + 1)`` histogram matrix (``hist[b, s] = f_s``); the continued fraction is evaluated by
the same Euler–Wallis recursion with the same rescaling as preseq's ``evaluate_on_diagonal``.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError

__all__ = [
    "MAX_TERMS",
    "MIN_TERMS",
    "STATUS_REASONS",
    "RationalFit",
    "RfaStatus",
    "fit_rational",
    "rational_unseen",
]

MAX_TERMS = 100
"""preseq ``lc_extrap``'s default ``-x`` (maximum terms of the power series)."""
MIN_TERMS = 4
"""preseq's ``min_required_counts``: fewer usable terms are refused."""
_SEARCH_STEP = 0.05
_SEARCH_MAX = 100.0
_RESCALE_TOL = 1e-20


class RfaStatus(IntEnum):
    """Why a histogram has (or has not) a rational-function estimate."""

    OK = 0
    SATURATED = 1
    FEW_TERMS = 2
    UNSTABLE = 3


STATUS_REASONS: dict[RfaStatus, str] = {
    RfaStatus.OK: "",
    RfaStatus.SATURATED: "f1 − f2 + f3 − … < 0: saturation expected at twice the sample (preseq refuses)",
    RfaStatus.FEW_TERMS: f"fewer than {MIN_TERMS} leading non-zero f_s (f_1 … f_{MIN_TERMS}): too few "
    "terms for a rational function",
    RfaStatus.UNSTABLE: "no stable rational function (every degree tried is negative, decreasing or "
    "convex somewhere on 0 < t ≤ 100)",
}
"""The ``n/a`` reason of each status."""


def _search_grid() -> FloatArray:
    """preseq's stability grid ``t = 0.05, 0.10, …`` up to 100, accumulated as preseq does (``t += step``)."""
    values: list[float] = []
    t = _SEARCH_STEP
    while t <= _SEARCH_MAX:
        values.append(t)
        t += _SEARCH_STEP
    return np.asarray(values)


_GRID = _search_grid()
_COARSE = np.arange(19, _GRID.size, 20)
"""Every 20th point of the grid, counted from ``t = 0`` (index −1 of :data:`_GRID`)."""


@dataclass(frozen=True, slots=True, eq=False)
class RationalFit:
    """The continued fraction chosen for each row of a histogram matrix.

    Attributes:
        cf: ``(B, D)`` continued-fraction coefficients ``c_0 … c_{D−1}`` (only the first
            ``degree[b]`` of row ``b`` are used).
        degree: ``d`` of each row (0 where there is no estimate).
        max_terms: preseq's ``max_terms`` of each row.
        status: :class:`RfaStatus` of each row (see :data:`STATUS_REASONS`).
    """

    cf: FloatArray
    degree: IntArray
    max_terms: IntArray
    status: IntArray

    def __call__(self, t: FloatArray | float) -> FloatArray:
        """``Û(t) = t · CF_d(t)`` for every row (``(B,)`` for a scalar ``t``, ``(B, P)`` for ``P`` values);
        NaN for a row without an estimate."""
        ts = np.atleast_1d(np.asarray(t, dtype=np.float64))
        out = ts[None, :] * _evaluate(self.cf, self.degree, ts)
        out[self.status != RfaStatus.OK] = np.nan
        return out[:, 0] if np.ndim(t) == 0 else out

    def reasons(self) -> tuple[str, ...]:
        """The ``n/a`` reason of each row (``""`` where there is an estimate)."""
        return tuple(STATUS_REASONS[RfaStatus(int(s))] for s in self.status)


def _quotient_difference(ps: FloatArray) -> FloatArray:
    """Continued-fraction coefficients of each row of ``ps`` (``(B, depth)`` power-series coefficients) by
    the quotient–difference algorithm, with the signs and the zero-filled table of preseq's
    ``quotdiff_algorithm`` (divisions by zero give ``inf``/``NaN`` there as here)."""
    rows, depth = ps.shape
    q = np.zeros((rows, depth, depth + 1))
    e = np.zeros((rows, depth, depth + 1))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if depth > 1:
            q[:, 1, : depth - 1] = ps[:, 1:] / ps[:, :-1]
            e[:, 1, : depth - 1] = q[:, 1, 1:depth] - q[:, 1, : depth - 1] + e[:, 0, 1:depth]
        for i in range(2, depth):
            q[:, i, :depth] = q[:, i - 1, 1 : depth + 1] * e[:, i - 1, 1 : depth + 1] / e[:, i - 1, :depth]
            e[:, i, :depth] = q[:, i, 1 : depth + 1] - q[:, i, :depth] + e[:, i - 1, 1 : depth + 1]
    cf = np.empty((rows, depth))
    cf[:, 0] = ps[:, 0]
    for i in range(1, depth):
        cf[:, i] = -e[:, i // 2, 0] if i % 2 == 0 else -q[:, (i + 1) // 2, 0]
    return cf


def _evaluate(cf: FloatArray, degree: IntArray, x: FloatArray) -> FloatArray:
    """``CF(x)`` of each row at each ``x`` (``(B, P)``): preseq's ``evaluate_on_diagonal``, Euler's recursion
    ``A_i = A_{i−1} + c_i x A_{i−2}`` (same for ``B``), rescaled when ``|A| + |B|`` leaves
    ``[1e−20, 1e20]``; row ``b`` stops after ``degree[b]`` coefficients."""
    rows, points = cf.shape[0], x.size
    num1 = np.repeat(cf[:, :1], points, axis=1)
    num2 = np.zeros((rows, points))
    den1 = np.ones((rows, points))
    den2 = np.ones((rows, points))
    num = np.zeros((rows, points))
    den = np.zeros((rows, points))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(1, int(degree.max(initial=0))):
            live = (i < degree)[:, None]
            step = cf[:, i : i + 1] * x[None, :]
            new_num = num1 + step * num2
            new_den = den1 + step * den2
            size = np.abs(new_num) + np.abs(new_den)
            scale = np.where((size > 1.0 / _RESCALE_TOL) | (size < _RESCALE_TOL), 1.0 / size, 1.0)
            num = np.where(live, new_num * scale, num)
            den = np.where(live, new_den * scale, den)
            num2, num1 = np.where(live, num1 * scale, num2), np.where(live, new_num * scale, num1)
            den2, den1 = np.where(live, den1 * scale, den2), np.where(live, new_den * scale, den1)
        return np.asarray(num / den)


def _stable(values: FloatArray) -> IntArray:
    """preseq's ``check_yield_estimates_stability`` on each row of ``[0, t_1·CF(t_1), …]``."""
    full = np.concatenate([np.zeros((values.shape[0], 1)), values], axis=1)
    finite = np.all(np.isfinite(full) & (full >= 0.0), axis=1)
    with np.errstate(invalid="ignore"):
        diff = np.diff(full, axis=1)
        rising = np.all(diff >= 0.0, axis=1)
        concave = np.all(diff[:, :-1] >= diff[:, 1:], axis=1)
    return np.asarray(finite & rising & concave)


def _max_terms(hist: FloatArray, max_terms: int) -> IntArray:
    """``min(max_terms, first zero − 1)`` made even, per row (preseq's ``lc_extrap_main``)."""
    nonzero = hist[:, 1:] > 0
    first_zero = np.where(nonzero.all(axis=1), nonzero.shape[1] + 1, np.argmin(nonzero, axis=1) + 1)
    terms = np.minimum(max_terms, first_zero - 1)
    return np.asarray(terms - (terms % 2), dtype=np.int64)


def fit_rational(
    hist: IntArray | FloatArray, max_terms: int = MAX_TERMS, defects: bool = False
) -> RationalFit:
    """preseq's continued fraction for each row of ``hist`` (``hist[b, s] = f_s``, the *whole* histogram:
    a column that lumps the counts above a cap would be read as one count).

    Args:
        hist: ``(B, s_max + 1)`` or ``(s_max + 1,)`` frequency counts (``hist[:, 0]`` is ignored).
        max_terms: preseq's ``-x`` (default 100).
        defects: preseq's ``-D``: take ``d = max_terms`` with no stability check.

    Raises:
        StatsError: ``hist`` is not a non-negative 1-D or 2-D array, or ``max_terms < 1``.
    """
    h = np.atleast_2d(np.asarray(hist, dtype=np.float64))
    if h.ndim != 2 or h.shape[1] < 2 or not np.all(np.isfinite(h)) or np.any(h < 0):
        raise StatsError(f"hist must hold non-negative counts f_0 … f_s per row, got shape {np.shape(hist)}")
    if max_terms < 1:
        raise StatsError(f"max_terms must be >= 1, got {max_terms!r}")
    rows = h.shape[0]
    terms = _max_terms(h, max_terms)
    signs = np.where(np.arange(h.shape[1]) % 2 == 1, 1.0, -1.0)
    saturated = (h[:, 1:] * signs[1:]).sum(axis=1) < 0.0
    status = np.full(rows, RfaStatus.OK, dtype=np.int64)
    status[terms < MIN_TERMS] = RfaStatus.FEW_TERMS
    status[saturated] = RfaStatus.SATURATED
    width = int(terms.max(initial=0))
    if width < MIN_TERMS:
        return RationalFit(np.zeros((rows, 1)), np.zeros(rows, dtype=np.int64), terms, status)
    cf = np.zeros((rows, width))
    for m in np.unique(terms[status == RfaStatus.OK]).tolist():
        sel = (terms == m) & (status == RfaStatus.OK)
        ps = h[sel, 1 : m + 1] * signs[1 : m + 1]
        cf[sel, :m] = _quotient_difference(ps)
    degree = np.where(status == RfaStatus.OK, terms, 0)
    if not defects:
        degree = _search_degree(cf, terms, status)
        status[(status == RfaStatus.OK) & (degree == 0)] = RfaStatus.UNSTABLE
    return RationalFit(cf, degree.astype(np.int64), terms, status)


def _search_degree(cf: FloatArray, terms: IntArray, status: IntArray) -> IntArray:
    """preseq's ``optimal_cont_frac_distinct``: ``d = max_terms`` when it is at most 6, else the first stable
    ``d`` of ``8, 10, …, max_terms`` (0 when none is stable)."""
    chosen = np.zeros(terms.size, dtype=np.int64)
    todo = status == RfaStatus.OK
    for d in range(MIN_TERMS, int(terms.max(initial=0)) + 1, 2):
        try_rows = todo & (terms == d) if d in (4, 6) else todo & (terms >= d) & (terms > 6)
        if not try_rows.any():
            continue
        idx = np.flatnonzero(try_rows)
        # a row unstable on every 20th point of the grid (from t = 0) is unstable on the whole grid: a
        # subsequence of a non-negative, non-decreasing, concave sequence is one too
        coarse = _GRID[_COARSE]
        idx = idx[_stable(coarse[None, :] * _evaluate(cf[idx], np.full(idx.size, d), coarse))]
        values = _GRID[None, :] * _evaluate(cf[idx], np.full(idx.size, d), _GRID)
        ok = idx[_stable(values)]
        chosen[ok] = d
        todo[ok] = False
    return chosen


def rational_unseen(
    hist: IntArray | FloatArray, t: float, max_terms: int = MAX_TERMS, defects: bool = False
) -> tuple[FloatArray, tuple[str, ...]]:
    """``Û(t)`` of each row of ``hist`` by preseq's rational function, and each row's ``n/a`` reason (NaN
    and a reason where preseq gives no estimate; see :func:`fit_rational`).

    Raises:
        StatsError: ``t`` is not finite and ``> 0``, or ``hist`` is not a histogram matrix.
    """
    if not (np.isfinite(t) and t > 0):
        raise StatsError(f"t must be finite and > 0, got {t!r}")
    fit = fit_rational(hist, max_terms, defects)
    return fit(float(t)), fit.reasons()
