"""Popularity buckets: percentiles of the distinct observed values (Bombieri et al. §5.2).

The paper groups ontology concepts into 50 buckets by the percentiles of their observed web
popularity; taking the percentiles over the *distinct* values makes low buckets hold far more
concepts than high ones when popularity is long-tailed, as the paper reports.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from knowsum.stats._errors import StatsError

__all__ = ["assign_buckets", "bucket_edges"]


def bucket_edges(values: Iterable[float], n_buckets: int = 50) -> NDArray[np.float64]:
    """Bucket boundaries: ``n_buckets + 1`` percentiles of the distinct observed values (§5.2).

    The percentiles are taken over the *distinct* values (NumPy's linear interpolation), so each
    bucket spans about the same number of distinct popularity values; with a long-tailed
    popularity, low buckets then hold far more concepts than high ones, as in the paper.

    Raises:
        StatsError: no values, non-finite values or ``n_buckets < 1``.
    """
    arr = np.unique(np.asarray(list(values), dtype=np.float64))
    if arr.size == 0:
        raise StatsError("no popularity values to bucket")
    if not np.all(np.isfinite(arr)):
        raise StatsError("popularity values must be finite")
    if n_buckets < 1:
        raise StatsError(f"n_buckets must be >= 1, got {n_buckets}")
    edges: NDArray[np.float64] = np.percentile(arr, np.linspace(0.0, 100.0, n_buckets + 1))
    return edges


def assign_buckets(
    values: Sequence[float] | NDArray[np.float64], edges: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Bucket number (1-based) of each value: bucket ``i`` holds ``edges[i-1] <= v < edges[i]``.

    The last bucket also holds ``v == edges[-1]``; values below the first edge go to bucket 1 and
    above the last to the last bucket. Equal values always land in the same bucket.

    Example:
        >>> e = bucket_edges([0, 1, 2, 3, 4], n_buckets=4)
        >>> assign_buckets([0, 0, 1, 3.5, 4], e).tolist()
        [1, 1, 2, 4, 4]
    """
    arr = np.asarray(values, dtype=np.float64)
    n = edges.size - 1
    idx = np.searchsorted(edges[1:-1], arr, side="right") + 1
    out: NDArray[np.int64] = np.clip(idx, 1, n).astype(np.int64)
    return out
