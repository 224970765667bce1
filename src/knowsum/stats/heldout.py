"""Choice of the truncation level ``k`` by held-out validation (KnowSum §5.1).

The sample is split into an observed fraction ``r`` and the rest; the smoothed Good–Turing
estimator with extrapolation factor ``t_r = (1 − r)/r`` is applied to the observed part and
compared with the truth, the number of distinct items that appear *only* in the held-out part.
This is repeated over ``n_shuffles`` random splits for each ``r ∈ {1/2, 1/3, 1/4}``; the candidate
``k`` with the smallest normalized mean squared error wins:

    NMSE_r(k) = mean_b (Û_b − U_b)² / max(mean_b U_b, 1)²,      NMSE(k) = mean_r NMSE_r(k).

When the observations are grouped by query, whole queries are split (``t_r`` = held-out queries /
observed queries), as in the paper; with counts only, each item's count is thinned binomially,
``c_obs ~ Bin(c, r)``, which gives the same split distribution for exchangeable observations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from knowsum.stats import _resample as rs
from knowsum.stats._errors import StatsError
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.weights import binomial_tail_weights, check_k, et_q

__all__ = ["DEFAULT_CANDIDATES", "DEFAULT_FRACTIONS", "KSelection", "select_k"]

DEFAULT_CANDIDATES: tuple[int, ...] = (6, 8, 10)
DEFAULT_FRACTIONS: tuple[float, ...] = (1 / 2, 1 / 3, 1 / 4)
MIN_QUERIES = 8
"""Fewer queries than this cannot be split sensibly; binomial thinning is used instead."""

SplitMethod = Literal["queries", "thinning"]


@dataclass(frozen=True, slots=True)
class KSelection:
    """Outcome of :func:`select_k`.

    Attributes:
        k: The selected truncation level.
        candidates: The candidates tried, in order.
        nmse: Mean over fractions of the normalized MSE of each candidate.
        nmse_by_fraction: ``nmse_by_fraction[i][j]`` for fraction ``i`` and candidate ``j``.
        fractions: The observed fractions ``r``.
        t_by_fraction: The extrapolation factor of each split.
        n_shuffles: Random splits per fraction.
        method: ``"queries"`` (whole queries split) or ``"thinning"`` (binomial thinning).
        seed: The seed of the random splits.
    """

    k: int
    candidates: tuple[int, ...]
    nmse: tuple[float, ...]
    nmse_by_fraction: tuple[tuple[float, ...], ...]
    fractions: tuple[float, ...]
    t_by_fraction: tuple[float, ...]
    n_shuffles: int
    method: SplitMethod
    seed: int | None


def _validate(candidates: Sequence[int], fractions: Sequence[float], n_shuffles: int) -> tuple[int, ...]:
    ks = tuple(check_k(k) for k in candidates)
    if not ks:
        raise StatsError("select_k needs at least one candidate k")
    for r in fractions:
        if not 0 < r < 1:
            raise StatsError(f"observed fractions must be in (0, 1), got {r!r}")
    if not fractions:
        raise StatsError("select_k needs at least one observed fraction")
    if isinstance(n_shuffles, bool) or not isinstance(n_shuffles, int) or n_shuffles < 1:
        raise StatsError(f"n_shuffles must be an integer >= 1, got {n_shuffles!r}")
    return ks


def _split_counts(
    prev: Prevalence, fractions: Sequence[float], n_shuffles: int, rng: np.random.Generator
) -> tuple[SplitMethod, list[float], list[rs.IntMatrix]]:
    """Observed-part item counts ``(n_items, n_shuffles)`` per fraction, and each split's ``t``."""
    n_queries = prev.n_queries
    if n_queries is None or n_queries < MIN_QUERIES:
        ts = [(1 - r) / r for r in fractions]
        return (
            "thinning",
            ts,
            [rng.binomial(prev.counts[:, None], r, size=(prev.n_seen, n_shuffles)) for r in fractions],
        )
    item_query = rs.item_query_matrix(prev)
    sizes = [min(max(round(r * n_queries), 1), n_queries - 1) for r in fractions]
    masks = _first_of_shuffles(rng.random((n_queries, n_shuffles)), sizes)
    counts = rs.parallel_map(lambda mask: rs.query_counts(item_query, mask), masks)
    return "queries", [(n_queries - m) / m for m in sizes], counts


def _first_of_shuffles(keys: NDArray[np.float64], sizes: Sequence[int]) -> list[rs.IntMatrix]:
    """For each ``m`` of ``sizes``, the ``(n_queries, n_shuffles)`` 0/1 mask of the ``m`` queries that
    come first in each column's shuffle, the shuffle being the column's order of ``keys``. Only the
    set matters, so a partition finds each column's ``m``-th key (linear time) instead of sorting;
    where keys tie the mask is taken from the sorted order, which breaks ties by index."""
    kth = np.partition(keys, sorted({m - 1 for m in sizes}), axis=0)
    masks = [(keys <= kth[m - 1]).astype(np.int32) for m in sizes]
    if all((mask.sum(axis=0) == m).all() for mask, m in zip(masks, sizes, strict=True)):
        return masks
    order = np.argsort(keys, axis=0, kind="stable")
    for mask, m in zip(masks, sizes, strict=True):
        mask[:] = 0
        np.put_along_axis(mask, order[:m], 1, axis=0)
    return masks


def select_k(
    prev: Prevalence,
    candidates: Sequence[int] = DEFAULT_CANDIDATES,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    n_shuffles: int = 100,
    seed: int | None = 0,
) -> KSelection:
    """Pick ``k`` for the smoothed Good–Turing estimator by held-out validation (KnowSum §5.1).

    Args:
        prev: The sample (split by query when it has queries, else binomially thinned).
        candidates: Candidate truncation levels (default 6, 8, 10).
        fractions: Observed fractions ``r`` (default 1/2, 1/3, 1/4, i.e. ``t`` = 1, 2, 3).
        n_shuffles: Random splits per fraction (default 100).
        seed: Seed of the random splits; the same seed gives the same selection.

    Returns:
        The selected ``k`` and the error table (ties go to the earlier candidate).
    """
    ks = _validate(candidates, fractions, n_shuffles)
    rng = np.random.default_rng(seed)
    method, ts, observed = _split_counts(prev, fractions, n_shuffles, rng)
    cap = max(max(ks), 1)
    table: list[tuple[float, ...]] = []
    for t, counts in zip(ts, observed, strict=True):
        hist = rs.column_histograms(counts, cap)  # (n_shuffles, cap + 2)
        truth = hist[:, 0].astype(np.float64)  # items seen only in the held-out part
        scale = max(float(truth.mean()), 1.0) ** 2
        row = []
        for k in ks:
            h: NDArray[np.float64] = binomial_tail_weights(t, k, et_q(t))
            estimate = hist[:, 1 : k + 1] @ h[1:]
            row.append(float(np.mean((estimate - truth) ** 2)) / scale)
        table.append(tuple(row))
    nmse = tuple(float(x) for x in np.mean(np.array(table), axis=0))
    best = int(np.argmin(nmse))
    return KSelection(
        k=ks[best],
        candidates=ks,
        nmse=nmse,
        nmse_by_fraction=tuple(table),
        fractions=tuple(float(r) for r in fractions),
        t_by_fraction=tuple(float(t) for t in ts),
        n_shuffles=n_shuffles,
        method=method,
        seed=seed,
    )
