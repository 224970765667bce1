"""Rarefaction and extrapolation (R/E) of Hill numbers q = 0, 1, 2, by sample size and by coverage.

iNEXT's method (Chao et al. 2014, Ecol. Monogr. 84:45; Hsieh, Ma & Chao 2016, Methods Ecol. Evol.
7:1451; iNEXT 3.0.2): the diversity expected in a sample of ``m`` observations (``t`` units) is
interpolated below the reference size ``N`` (``n`` or ``T``) from the hypergeometric subsample and
extrapolated above it (formulas in :mod:`knowsum.stats._recurve`). The coverage-based curve solves
``Ĉ(m) = C`` — linear interpolation of ``Ĉ`` between integer sizes below ``N``, and
``m = N + (log(total/f1) + log(1 − C))/log(A) − 1`` above ``Ĉ(N)`` (Chao & Jost 2012) — and
evaluates the diversity at that ``m`` (a target below ``Ĉ(1)`` gives ``m = 1``, as iNEXT).

Sizes above ``2N`` are flagged (:attr:`CurvePoints.beyond_double`): Chao et al. (2014) show the
richness extrapolation is reliable up to about double the reference sample, and iNEXT warns beyond.

Bootstrap bands follow iNEXT: replicates drawn from the estimated assemblage
(:func:`~knowsum.stats.bootstrap_assemblage`), ``estimate ± z·sd`` clipped at 0 (coverage in
[0, 1]). All replicates are evaluated together: the per-species expectations depend only on a
species' count, so they are tabulated once over the distinct counts of all replicates and summed
by one sparse product per size. Coverage-based replicate values are interpolated on a grid of
sizes: every integer below ``N`` when ``N − 1 ≤ 2048`` (then exactly iNEXT's computation), otherwise
the size knots plus 240 geometrically and linearly spaced sizes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats import _rarefy, _recurve
from knowsum.stats._arrays import BoolArray, FloatArray
from knowsum.stats._errors import StatsError
from knowsum.stats.hill import as_matrix, bootstrap_sd, check_bootstrap, check_orders, draw_replicates
from knowsum.stats.samples import Abundance, Incidence

__all__ = [
    "CurvePoints",
    "RarefactionExtrapolation",
    "coverage_at_size",
    "default_sizes",
    "diversity_at_size",
    "rarefaction_extrapolation",
    "size_at_coverage",
]

_EXACT_GRID = 2048


@dataclass(frozen=True, slots=True)
class CurvePoints:
    """Points of a size- or coverage-based R/E curve.

    Attributes:
        size: Sample sizes ``m`` (individuals, or sampling units for incidence data).
        coverage: Sample coverage ``Ĉ(m)`` (for the coverage-based curve: the targets).
        method: ``"rarefaction"``, ``"observed"`` or ``"extrapolation"`` per point.
        beyond_double: ``m > 2N``: extrapolated beyond the reliable range.
        q: The orders.
        diversity: ``qD(m)``, shape ``(len(q), len(size))``.
        std_error: Bootstrap s.d. of :attr:`diversity` (``None`` without bootstrap).
        lower: Lower band, clipped at 0.
        upper: Upper band.
        coverage_lower: Lower band of :attr:`coverage` (size-based curve only), clipped to [0, 1].
        coverage_upper: Upper band of :attr:`coverage`.
    """

    size: FloatArray
    coverage: FloatArray
    method: tuple[str, ...]
    beyond_double: BoolArray
    q: tuple[int, ...]
    diversity: FloatArray
    std_error: FloatArray | None = None
    lower: FloatArray | None = None
    upper: FloatArray | None = None
    coverage_lower: FloatArray | None = None
    coverage_upper: FloatArray | None = None


@dataclass(frozen=True, slots=True)
class RarefactionExtrapolation:
    """Size- and coverage-based R/E curves of one sample.

    Attributes:
        datatype: ``"abundance"`` or ``"incidence"``.
        reference_size: ``N`` (``n`` or ``T``).
        s_obs: Observed richness.
        size_based: The size-based curve.
        coverage_based: The coverage-based curve.
        n_bootstrap: Replicates used (0: no bands).
        conf: Confidence level of the bands.
    """

    datatype: str
    reference_size: int
    s_obs: int
    size_based: CurvePoints
    coverage_based: CurvePoints
    n_bootstrap: int
    conf: float


def default_sizes(reference: int, knots: int = 40, endpoint: int | None = None) -> FloatArray:
    """iNEXT's sizes: ``⌊knots/2⌋ − 1`` sizes from 1 to ``N − 1``, ``N``, then ``⌊knots/2⌋`` sizes
    from ``N + 1`` to ``endpoint`` (default ``2N``); floored, the first set to 1, duplicates dropped."""
    if isinstance(knots, bool) or not isinstance(knots, int) or knots < 4:
        raise StatsError(f"knots must be an integer >= 4, got {knots!r}")
    end = 2 * reference if endpoint is None else endpoint
    if isinstance(end, bool) or not isinstance(end, int | np.integer) or end < 1:
        raise StatsError(f"endpoint must be a positive integer, got {endpoint!r}")
    if end <= reference:
        m = np.floor(np.linspace(1, end, knots))
    else:
        m = np.concatenate(
            [
                np.floor(np.linspace(1, reference - 1, knots // 2 - 1)),
                [reference],
                np.floor(np.linspace(reference + 1, end, knots // 2)),
            ]
        )
    m[0] = 1
    return np.array(list(dict.fromkeys(m[m >= 1].tolist())), dtype=np.float64)


def _check_sizes(sizes: Sequence[float] | FloatArray, reference: int) -> FloatArray:
    arr = np.asarray(sizes, dtype=np.float64).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or arr.min() < 1:
        raise StatsError("sizes must be finite numbers >= 1 (at least one)")
    if not np.any(arr == reference):
        arr = np.sort(np.append(arr, reference))
    return arr


def _check_coverages(coverages: Sequence[float] | FloatArray) -> FloatArray:
    arr = np.asarray(coverages, dtype=np.float64).ravel()
    if arr.size == 0 or not np.all((arr > 0) & (arr < 1)):
        raise StatsError(f"coverage targets must lie strictly between 0 and 1, got {coverages!r}")
    return arr


def diversity_at_size(
    data: Abundance | Incidence, sizes: Sequence[float] | FloatArray, q: Sequence[int] | int = (0, 1, 2)
) -> FloatArray:
    """Rarefied/extrapolated ``qD(m)``, shape ``(len(q), len(sizes))`` (sizes ≥ 1)."""
    orders = check_orders(q)
    arr = np.asarray(sizes, dtype=np.float64).ravel()
    _check_sizes(arr, data.size)
    hill, _ = _evaluate_point(data, arr)
    return hill[list(orders)]


def coverage_at_size(data: Abundance | Incidence, sizes: Sequence[float] | FloatArray) -> FloatArray:
    """Sample coverage ``Ĉ(m)`` at each size (Chao & Jost 2012; iNEXT ``Chat.Ind``/``Chat.Sam``)."""
    arr = np.asarray(sizes, dtype=np.float64).ravel()
    _check_sizes(arr, data.size)
    return _evaluate_point(data, arr)[1]


def _evaluate_point(data: Abundance | Incidence, sizes: FloatArray) -> tuple[FloatArray, FloatArray]:
    counts, totals = as_matrix(data)
    values, hist = _recurve.histogram(counts)
    prof = _recurve.profile(counts, totals, data.size)
    hill, cover = _recurve.evaluate(values, hist, prof, sizes, isinstance(data, Incidence), math.inf)
    return hill[0], cover[0]


def _sizes_at_coverage(data: Abundance | Incidence, targets: FloatArray) -> FloatArray:
    """Solve ``Ĉ(m) = C`` for each target: closed form at or above ``Ĉ(N)``; below it, bisection
    over the integer sizes (``Ĉ`` increases with ``m``; ``Ĉ(0) = 0``) and linear interpolation."""
    size = data.size
    values = np.unique(data.counts)
    weight = np.bincount(np.searchsorted(values, data.counts)).astype(np.float64) * values
    total = float(data.counts.sum())
    counts, totals = as_matrix(data)
    prof = _recurve.profile(counts, totals, size)
    reference = float(prof.coverage[0])
    cov: dict[int, float] = {0: 0.0, size: reference}

    def coverage(m: int) -> float:
        if m not in cov:
            cov[m] = float(1 - size / (total * (size - m)) * np.sum(weight * _rarefy.absent(values, size, m)))
        return cov[m]

    out = np.empty(targets.size)
    for j, target in enumerate(targets):
        if target >= reference:
            out[j] = _recurve.extrapolation_size(prof, np.array([target]))[0, 0]
            continue
        lo, hi = 0, size  # Ĉ(lo) ≤ target < Ĉ(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if coverage(mid) <= target else (lo, mid)
        out[j] = 1.0 if lo == 0 else lo + (target - cov[lo]) / (coverage(hi) - cov[lo])
    return out


def size_at_coverage(data: Abundance | Incidence, coverage: float) -> float:
    """The size ``m`` at which ``Ĉ(m) = coverage`` (module docstring; iNEXT ``invChat``)."""
    return float(_sizes_at_coverage(data, _check_coverages([coverage]))[0])


def _labels(sizes: FloatArray, reference: int) -> tuple[tuple[str, ...], BoolArray]:
    method = tuple(
        "rarefaction" if m < reference else "observed" if m == reference else "extrapolation" for m in sizes
    )
    return method, sizes > 2 * reference


def _grid(reference: int, sizes: FloatArray) -> FloatArray:
    if reference - 1 <= _EXACT_GRID:
        return np.arange(1, reference, dtype=np.float64)
    extra = np.concatenate([np.geomspace(1, reference - 1, 120), np.linspace(1, reference - 1, 120)])
    points = set(_recurve.integer_points(sizes, reference)) | {round(m) for m in extra}
    return np.array(sorted(p for p in points if 1 <= p < reference), dtype=np.float64)


def _invert(
    grid_cover: FloatArray, grid_hill: FloatArray, grid: FloatArray, targets: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Per row, the size and ``qD`` where the grid's coverage crosses each target (linear)."""
    rows = grid_cover.shape[0]
    sizes = np.empty((rows, targets.size))
    hill = np.empty((rows, 3, targets.size))
    for b in range(rows):
        cover = np.maximum.accumulate(grid_cover[b])
        j = np.clip(np.searchsorted(cover, targets, side="right") - 1, 0, grid.size - 2)
        span = cover[j + 1] - cover[j]
        w = np.clip(np.where(span > 0, (targets - cover[j]) / np.where(span > 0, span, 1.0), 0.0), 0.0, 1.0)
        w = np.where(targets < cover[0], 0.0, w)
        sizes[b] = grid[j] + w * (grid[j + 1] - grid[j])
        hill[b] = grid_hill[b][:, j] * (1 - w) + grid_hill[b][:, j + 1] * w
    return sizes, hill


def _coverage_curve(
    values: NDArray[np.int64],
    hist: sp.csr_matrix,
    prof: _recurve.Profile,
    targets: FloatArray,
    incidence: bool,
    mu_cut: float,
    grid: FloatArray,
    cache: dict[int, tuple[FloatArray, FloatArray]],
    shannon: bool,
) -> tuple[FloatArray, FloatArray]:
    """Sizes ``(B, K)`` and ``qD`` ``(B, 3, K)`` at each coverage target, for every row."""
    reference = prof.size
    full = np.append(grid, reference)
    hill_g, cover_g = _recurve.evaluate(values, hist, prof, full, incidence, mu_cut, cache, shannon)
    below_sizes, below_hill = _invert(cover_g, hill_g, full, targets)
    ext_sizes = _recurve.extrapolation_size(prof, targets)
    above = targets[None, :] >= prof.coverage[:, None]
    ext_hill = _recurve.extrapolate(prof, ext_sizes, incidence)[0]
    return np.where(above, ext_sizes, below_sizes), np.where(above[:, None, :], ext_hill, below_hill)


def rarefaction_extrapolation(
    data: Abundance | Incidence,
    q: Sequence[int] | int = (0, 1, 2),
    *,
    sizes: Sequence[float] | FloatArray | None = None,
    knots: int = 40,
    endpoint: int | None = None,
    coverages: Sequence[float] | FloatArray | None = None,
    n_bootstrap: int = 200,
    conf: float = 0.95,
    seed: int | np.random.Generator | None = None,
) -> RarefactionExtrapolation:
    """Size- and coverage-based R/E curves with bootstrap bands (module docstring; iNEXT ``iNEXT``).

    Args:
        data: Abundance or incidence sample.
        q: Orders among 0, 1, 2.
        sizes: Sizes ``m ≥ 1`` (``N`` is added); default :func:`default_sizes` (``knots``, ``endpoint``).
        knots: Number of default sizes.
        endpoint: Largest default size (default ``2N``).
        coverages: Coverage targets in (0, 1); default the coverage at each size (as iNEXT); empty:
            no coverage-based curve (the size-based one alone, without its cost).
        n_bootstrap: Bootstrap replicates (0: no bands).
        conf: Confidence level of the bands.
        seed: Seed or NumPy ``Generator``.
    """
    orders, idx = check_orders(q), list(check_orders(q))
    shannon = 1 in orders
    z = check_bootstrap(n_bootstrap, conf)
    reference, incidence = data.size, isinstance(data, Incidence)
    grid_sizes = (
        default_sizes(reference, knots, endpoint) if sizes is None else _check_sizes(sizes, reference)
    )
    counts, totals = as_matrix(data)
    values, hist = _recurve.histogram(counts)
    prof = _recurve.profile(counts, totals, reference)
    hill, cover = _recurve.evaluate(values, hist, prof, grid_sizes, incidence, math.inf, None, shannon)
    targets = (
        np.array(list(dict.fromkeys(cover[0].tolist())))
        if coverages is None
        else np.empty(0)
        if len(coverages) == 0
        else _check_coverages(coverages)
    )
    targets = targets[(targets > 0) & (targets < 1)]
    c_sizes = _sizes_at_coverage(data, targets)
    c_hill = (
        _recurve.evaluate(values, hist, prof, c_sizes, incidence, math.inf, None, shannon)[0][0]
        if targets.size
        else np.empty((3, 0))
    )
    s_method, s_beyond = _labels(grid_sizes, reference)
    c_method, c_beyond = _labels(c_sizes, reference)
    size_curve = CurvePoints(grid_sizes, cover[0], s_method, s_beyond, orders, hill[0][idx])
    cover_curve = CurvePoints(c_sizes, targets, c_method, c_beyond, orders, c_hill[idx])
    used = 0
    if n_bootstrap > 0:
        draws = draw_replicates(data, n_bootstrap, np.random.default_rng(seed))
        used = int(draws.shape[0])
        b_values, b_hist = _recurve.histogram(draws)
        b_prof = _recurve.profile(
            draws, draws.sum(axis=1) if incidence else np.full(used, float(data.counts.sum())), reference
        )
        cache: dict[int, tuple[FloatArray, FloatArray]] = {}
        mu = _rarefy.BOOTSTRAP_MU_CUT
        b_hill, b_cover = _recurve.evaluate(
            b_values, b_hist, b_prof, grid_sizes, incidence, mu, cache, shannon
        )
        sd = bootstrap_sd(b_hill[:, idx])
        sd_c = bootstrap_sd(b_cover)
        est = size_curve.diversity
        size_curve = CurvePoints(
            grid_sizes,
            cover[0],
            s_method,
            s_beyond,
            orders,
            est,
            sd,
            np.maximum(est - z * sd, 0),
            est + z * sd,
            np.clip(cover[0] - z * sd_c, 0, 1),
            np.clip(cover[0] + z * sd_c, 0, 1),
        )
        if targets.size:
            grid = _grid(reference, grid_sizes)
            _, bc_hill = _coverage_curve(
                b_values, b_hist, b_prof, targets, incidence, mu, grid, cache, shannon
            )
            sd = bootstrap_sd(bc_hill[:, idx])
            est = cover_curve.diversity
            cover_curve = CurvePoints(
                c_sizes,
                targets,
                c_method,
                c_beyond,
                orders,
                est,
                sd,
                np.maximum(est - z * sd, 0),
                est + z * sd,
            )
    return RarefactionExtrapolation(
        "incidence" if incidence else "abundance", reference, data.s_obs, size_curve, cover_curve, used, conf
    )
