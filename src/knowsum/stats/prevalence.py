"""The frequency-of-frequencies ("prevalence") of a sample of observations.

For a sample of ``n`` observations of items (species, words, theorems, disease names …), ``n_s`` is
the number of *distinct* items seen exactly ``s`` times, so that ``N_seen = Σ_s n_s`` and
``n = Σ_s s·n_s`` (KnowSum, Li et al. 2025, §3.1). :class:`Prevalence` keeps the per-item counts
(from which ``n_s`` follows) and, when the observations came grouped by query (one LLM response =
one query), the query × item count matrix, which the held-out selection of ``k`` and the bootstrap
resample by query.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import scipy.sparse as sp

from knowsum.stats._arrays import IntArray
from knowsum.stats._errors import StatsError

__all__ = ["Prevalence"]

MAX_COUNT = 2**53
"""Largest accepted count (exact in float64; sums of counts stay within int64)."""
MAX_ITEMS = 10**8
"""Largest number of distinct items (one int64 count is kept per item)."""


def _to_count(value: object, what: str) -> int:
    """One validated non-negative integer count (``bool`` and non-integral numbers are refused)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise StatsError(f"{what} must be a non-negative integer, got {value!r}")
    as_float = float(value)
    if not math.isfinite(as_float) or not as_float.is_integer():
        raise StatsError(f"{what} must be a non-negative integer, got {value!r}")
    as_int = int(value) if isinstance(value, Integral) else int(as_float)
    if as_int < 0:
        raise StatsError(f"{what} must be a non-negative integer, got {value!r}")
    if as_int > MAX_COUNT:
        raise StatsError(f"{what} is too large ({value!r} > 2^53)")
    return as_int


def _count_array(values: Any, what: str) -> IntArray:
    """Validate a sequence/array of counts into an int64 array (vectorized for numpy input)."""
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise StatsError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.dtype.kind in "iu":
        out = arr.astype(np.int64)
    elif arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.floor(arr)):
            bad = arr[~(np.isfinite(arr) & (arr == np.floor(arr)))][0]
            raise StatsError(f"{what} must be non-negative integers, got {bad!r}")
        if arr.size and float(np.max(np.abs(arr))) > MAX_COUNT:
            raise StatsError(f"{what} too large: {float(np.max(np.abs(arr)))!r} > 2^53")
        out = arr.astype(np.int64)
    else:
        out = np.array([_to_count(v, what) for v in arr.tolist()], dtype=np.int64)
    if out.size and out.min() < 0:
        raise StatsError(f"{what} must be non-negative integers, got {int(out.min())}")
    if out.size and out.max() > MAX_COUNT:
        raise StatsError(f"{what} too large: {int(out.max())} > 2^53")
    return out


def _factorize(values: Iterable[Hashable]) -> tuple[IntArray, tuple[Hashable, ...]]:
    """Integer codes and the distinct labels (first-appearance order; sorted for numpy input)."""
    if isinstance(values, np.ndarray) and values.ndim == 1 and values.dtype.kind in "iuU":
        uniques, inverse = np.unique(values, return_inverse=True)
        return inverse.astype(np.int64).ravel(), tuple(uniques.tolist())
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(v, len(index)) for v in values), dtype=np.int64)
    return codes, tuple(index)


@dataclass(frozen=True, slots=True, eq=False)
class Prevalence:
    """Counts of distinct items in a sample, and their frequency-of-frequencies ``n_s``.

    Build it with :meth:`from_items` (raw observations, optionally grouped by query),
    :meth:`from_counts` (item → count) or :meth:`from_table` (``(s, n_s)`` pairs). It is
    validated once, here, and immutable afterwards (its arrays are read-only).

    Attributes:
        counts: Count of each distinct seen item (all ≥ 1).
        labels: The item labels, aligned with ``counts`` (``None`` for a prevalence table).
        by_query: Optional sparse ``(n_queries, n_items)`` matrix of counts per query and item
            (row sums over queries equal ``counts``).
        n_s: ``n_s[s]`` = number of items seen exactly ``s`` times (``n_s[0] == 0``).
    """

    counts: IntArray
    labels: tuple[Hashable, ...] | None = None
    by_query: sp.csr_matrix | None = None
    n_s: IntArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        counts = _count_array(self.counts, "counts")
        if counts.size == 0 or counts.sum() == 0:
            raise StatsError("empty input: there are no observations to estimate from")
        if counts.min() == 0:
            raise StatsError("counts of seen items must be >= 1 (drop the items seen 0 times)")
        if self.labels is not None and len(self.labels) != counts.size:
            raise StatsError(f"{len(self.labels)} labels for {counts.size} counts")
        if self.by_query is not None:
            matrix = sp.csr_matrix(self.by_query, dtype=np.int64)
            if matrix.shape[1] != counts.size or not np.array_equal(
                np.asarray(matrix.sum(axis=0)).ravel(), counts
            ):
                raise StatsError("by_query column sums must equal counts")
            object.__setattr__(self, "by_query", matrix)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)
        n_s = np.bincount(counts).astype(np.int64)
        n_s.setflags(write=False)
        object.__setattr__(self, "n_s", n_s)

    # -- constructors -------------------------------------------------------------------------

    @classmethod
    def from_items(cls, items: Iterable[Hashable], queries: Iterable[Hashable] | None = None) -> Prevalence:
        """From raw observations: one item label per observation.

        Args:
            items: The observed item labels, repeated as often as observed.
            queries: Optional query id of each observation (same length as ``items``); when
                given, held-out splits and the bootstrap resample whole queries.

        Raises:
            StatsError: On empty input or mismatched lengths.
        """
        item_codes, labels = _factorize(items)
        counts = np.bincount(item_codes, minlength=len(labels)).astype(np.int64)
        if queries is None:
            return cls(counts, labels)
        query_codes, _ = _factorize(queries)
        if query_codes.size != item_codes.size:
            raise StatsError(f"{query_codes.size} query ids for {item_codes.size} observations")
        matrix = sp.csr_matrix(
            (np.ones(item_codes.size, dtype=np.int64), (query_codes, item_codes)),
            shape=(int(query_codes.max(initial=-1)) + 1, len(labels)),
        )
        matrix.sum_duplicates()
        return cls(counts, labels, matrix)

    @classmethod
    def from_counts(cls, counts: Mapping[Hashable, Any] | Iterable[Any]) -> Prevalence:
        """From an item → count mapping (or a plain sequence of counts); zero counts are dropped.

        Raises:
            StatsError: On a negative or non-integer count, or when every count is zero.
        """
        if isinstance(counts, Mapping):
            labels: tuple[Hashable, ...] | None = tuple(counts)
            values = _count_array([_to_count(v, f"count of {k!r}") for k, v in counts.items()], "counts")
        else:
            labels, values = None, _count_array(list(counts), "counts")
        keep = values > 0
        if labels is not None:
            labels = tuple(lab for lab, kept in zip(labels, keep.tolist(), strict=True) if kept)
        return cls(values[keep], labels)

    @classmethod
    def from_table(cls, pairs: Mapping[Any, Any] | Iterable[tuple[Any, Any]]) -> Prevalence:
        """From a prevalence table: pairs ``(s, n_s)`` (or a mapping ``s → n_s``).

        Raises:
            StatsError: If some ``s < 1``, an ``n_s < 0``, a repeated ``s``, or no item at all.
        """
        items = pairs.items() if isinstance(pairs, Mapping) else pairs
        table: dict[int, int] = {}
        for s_raw, n_raw in items:
            s = _to_count(s_raw, "s")
            if s < 1:
                raise StatsError(f"s must be >= 1 in a prevalence table, got {s_raw!r}")
            if s in table:
                raise StatsError(f"s = {s} appears twice in the prevalence table")
            table[s] = _to_count(n_raw, f"n_s for s = {s}")
        if sum(table.values()) > MAX_ITEMS:
            raise StatsError(f"the prevalence table describes more than {MAX_ITEMS:,} distinct items")
        s_values = np.fromiter(table.keys(), dtype=np.int64, count=len(table))
        n_values = np.fromiter(table.values(), dtype=np.int64, count=len(table))
        return cls(np.repeat(s_values, n_values))

    # -- derived quantities -------------------------------------------------------------------

    @property
    def n_seen(self) -> int:
        """``N_seen = Σ_s n_s``, the number of distinct items observed."""
        return int(self.counts.size)

    @property
    def n_observations(self) -> int:
        """``n = Σ_s s·n_s``, the number of observations."""
        return int(self.counts.sum())

    @property
    def max_count(self) -> int:
        """The largest ``s`` with ``n_s > 0``."""
        return int(self.n_s.size - 1)

    @property
    def n_queries(self) -> int | None:
        """Number of queries when the observations were grouped by query, else ``None``."""
        return None if self.by_query is None else int(self.by_query.shape[0])

    @property
    def coverage(self) -> float:
        """Good's (1953) sample coverage ``1 − n_1 / n``: the estimated probability mass of the
        seen items (the Good–Turing estimate of the unseen mass is ``n_1 / n``)."""
        return 1.0 - self.f(1) / self.n_observations

    def f(self, s: int) -> int:
        """``n_s`` for one ``s`` (0 beyond the largest count)."""
        return int(self.n_s[s]) if 0 <= s < self.n_s.size else 0

    def table(self) -> dict[int, int]:
        """The non-zero part of the prevalence table, ``{s: n_s}``."""
        nonzero = np.flatnonzero(self.n_s)
        return {int(s): int(self.n_s[s]) for s in nonzero}

    def __repr__(self) -> str:
        queries = "" if self.by_query is None else f", n_queries={self.n_queries}"
        return f"Prevalence(n_observations={self.n_observations}, n_seen={self.n_seen}{queries})"
