"""Popularity buckets over the distinct observed values (Bombieri et al. §5.2, their released code).

The rule (one rule everywhere buckets are made in knowsum: recall, genebench's attention curve,
the plots): sort the *distinct* popularity values; with ``D`` of them and ``n`` buckets, each
bucket takes ``floor(D / n)`` consecutive distinct values and the last bucket also takes the
remainder. Every concept goes to the bucket of its value, so equal values always share a bucket,
and with a long-tailed popularity the low buckets hold far more concepts than the high ones, as
the paper reports. This is the rule of the authors' ``subdivide_into_percentile`` (``D // perc``
values per bucket, the last one capped): on their released GO files it puts each of the 1,000
concepts of their §6.2 sample (20 per bucket) into the bucket they report.

Beyond the paper: with fewer distinct values than buckets (``D < n``; the authors' code divides
by zero there), each distinct value is its own bucket and there are ``D`` buckets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from numpy.typing import NDArray

from knowsum.stats._errors import StatsError

__all__ = ["assign_buckets", "bucket_edges"]


def bucket_edges(values: Iterable[float], n_buckets: int = 50) -> NDArray[np.float64]:
    """Bucket boundaries of the distinct-value rule (module docstring): ``min(n_buckets, D) + 1`` values.

    ``edges[i]`` (``i < n``) is the smallest distinct value of bucket ``i + 1`` and ``edges[-1]``
    the largest value, so bucket ``i`` holds ``edges[i-1] <= v < edges[i]`` (the last bucket also
    ``v == edges[-1]``) — the layout :func:`assign_buckets` reads.

    Raises:
        StatsError: no values, non-finite values or ``n_buckets < 1``.

    Example:
        >>> bucket_edges([0, 0, 1, 2, 3, 4, 5, 9], n_buckets=3).tolist()  # 7 distinct: 2, 2, 3
        [0.0, 2.0, 4.0, 9.0]
    """
    arr = np.unique(np.asarray(list(values), dtype=np.float64))
    if arr.size == 0:
        raise StatsError("no popularity values to bucket")
    if not np.all(np.isfinite(arr)):
        raise StatsError("popularity values must be finite")
    if n_buckets < 1:
        raise StatsError(f"n_buckets must be >= 1, got {n_buckets}")
    n = min(n_buckets, arr.size)
    per = arr.size // n
    edges: NDArray[np.float64] = np.append(arr[np.arange(n) * per], arr[-1])
    return edges


def assign_buckets(
    values: Sequence[float] | NDArray[np.float64], edges: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Bucket number (1-based) of each value: bucket ``i`` holds ``edges[i-1] <= v < edges[i]``.

    The last bucket also holds ``v == edges[-1]``; values below the first edge go to bucket 1 and
    above the last to the last bucket. Equal values always land in the same bucket.

    Example:
        >>> e = bucket_edges([0, 0, 1, 2, 3, 4, 5, 9], n_buckets=3)
        >>> assign_buckets([0, 1, 2, 3, 4, 9], e).tolist()
        [1, 1, 2, 2, 3, 3]
    """
    arr = np.asarray(values, dtype=np.float64)
    n = edges.size - 1
    idx = np.searchsorted(edges[1:-1], arr, side="right") + 1
    out: NDArray[np.int64] = np.clip(idx, 1, n).astype(np.int64)
    return out
