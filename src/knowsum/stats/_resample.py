"""Vectorized resampling engine shared by the held-out selection of k and the bootstrap.

A batch of B resamples is an ``(n_items, B)`` integer matrix of item counts. With queries, it is
one sparse × dense product ``Mᵀ · W`` of the item × query count matrix with a query × resample
weight matrix (0/1 masks for held-out splits, multinomial query multiplicities for the bootstrap);
without queries, it is a binomial thinning or a multinomial draw of the item counts. Statistics of a
batch come from per-column histograms of the clipped counts (one ``bincount``), so there is no
Python loop over items or resamples; batches are processed by a small thread pool (the sparse
product and ``bincount`` release the GIL).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats.prevalence import Prevalence

BATCH = 100
"""Resamples per batch: keeps an ``(n_items, BATCH)`` matrix small while the product stays fast."""

A = TypeVar("A")
T = TypeVar("T")
IntMatrix = NDArray[np.int64] | NDArray[np.int32]


def item_query_matrix(prev: Prevalence) -> sp.csr_matrix:
    """``Mᵀ``: the items × queries count matrix (int32 when no product can overflow it)."""
    assert prev.by_query is not None
    matrix = prev.by_query.T.tocsr()
    bound = int(matrix.shape[1]) * int(matrix.max()) if matrix.nnz else 0
    dtype = np.int32 if bound < np.iinfo(np.int32).max else np.int64
    return matrix.astype(dtype)


def query_counts(item_query: sp.csr_matrix, weights: NDArray[np.integer]) -> IntMatrix:
    """Item counts of B resamples from query weights ``(n_queries, B)``: ``Mᵀ · W``."""
    out = item_query @ np.ascontiguousarray(weights, dtype=item_query.dtype)
    return np.asarray(out)


def batches(total: int, size: int = BATCH) -> Iterator[slice]:
    """Consecutive slices of at most ``size`` covering ``range(total)``."""
    for start in range(0, total, size):
        yield slice(start, min(start + size, total))


def parallel_map(fn: Callable[[A], T], args: list[A]) -> list[T]:
    """``[fn(a) for a in args]`` on up to two threads (results in order; ``fn`` must not draw
    random numbers, so that results do not depend on scheduling)."""
    workers = min(2, os.cpu_count() or 1, len(args))
    if workers <= 1:
        return [fn(a) for a in args]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(fn, args))


def column_histograms(counts: IntMatrix, cap: int) -> NDArray[np.int64]:
    """``hist[b, s]`` = number of items with count ``s`` in column ``b``, for ``s = 0..cap``;
    ``hist[b, cap+1]`` counts the items above ``cap``. Shape ``(B, cap + 2)``."""
    n_cols = counts.shape[1]
    clipped = np.minimum(counts, cap + 1)
    clipped += np.arange(n_cols, dtype=clipped.dtype) * (cap + 2)
    flat = np.bincount(clipped.ravel(), minlength=n_cols * (cap + 2))
    return flat.reshape(n_cols, cap + 2).astype(np.int64)


def multinomial_query_weights(
    rng: np.random.Generator, n_queries: int, n_resamples: int
) -> NDArray[np.int32]:
    """``(n_queries, B)`` multiplicities of queries drawn with replacement (n_queries draws each)."""
    draws = rng.integers(0, n_queries, size=(n_resamples, n_queries))
    draws += np.arange(n_resamples)[:, None] * n_queries
    flat = np.bincount(draws.ravel(), minlength=n_resamples * n_queries)
    return np.ascontiguousarray(flat.reshape(n_resamples, n_queries).T.astype(np.int32))


def multinomial_counts(
    rng: np.random.Generator, counts: NDArray[np.int64], n_resamples: int
) -> NDArray[np.int64]:
    """``(n_items, B)`` counts of B multinomial resamples of ``n = Σ counts`` observations."""
    n = int(counts.sum())
    return np.ascontiguousarray(rng.multinomial(n, counts / n, size=n_resamples).T)
