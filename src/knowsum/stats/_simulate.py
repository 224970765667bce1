"""The community a census is fitted to and the censuses simulated from it (the first two parts of
:mod:`knowsum.stats.community`'s module docstring: the fitted community and a simulated census)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats import _spade
from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats.prevalence import Prevalence

__all__ = ["REDRAWS", "Community", "SimulatedCensuses", "fit_community", "simulate"]

REDRAWS = 30
"""Rounds of redrawing an item a query already named (drawing without replacement within a query)."""


@dataclass(frozen=True, slots=True, eq=False)
class Community:
    """A community fitted to a census.

    Attributes:
        p: Relative abundance of each item (detected ones, then the undetected), summing to 1.
        n_detected: Items the census saw (the first ``n_detected`` of :attr:`p`).
        f0: Undetected items added (``⌈f̂0⌉``).
        coverage: Sample coverage ``Ĉ = 1 − f1/n · A`` (Chao & Jost 2012): the detected items' share.
        lengths: Counted mentions of each census query (empty answers as 0).
        distinct: Whether no query names an item twice (then drawn without replacement within a query).
    """

    p: FloatArray
    n_detected: int
    f0: int
    coverage: float
    lengths: IntArray
    distinct: bool

    @property
    def size(self) -> int:
        """Items in the community, ``N_seen + ⌈f̂0⌉``."""
        return int(self.p.size)

    def query_rates(self) -> FloatArray:
        """``π_i = E_L[1 − (1 − p_i)^L]``: the chance that one query names item ``i``."""
        values, freq = np.unique(self.lengths, return_counts=True)
        w = freq / freq.sum()
        log_miss = np.log1p(-np.minimum(self.p, 1 - 1e-15))
        return np.asarray(1.0 - np.exp(np.outer(log_miss, values)) @ w, dtype=np.float64)


def fit_community(prev: Prevalence) -> Community:
    """The community of :mod:`this module <knowsum.stats.community>`'s docstring, fitted to ``prev``.

    Without per-query structure (``prev.by_query is None``) every observation is its own query.

    Raises:
        StatsError: No singletons or no doubletons (``f1 = 0`` or ``f2 = 0``): the sample says nothing
            of its unseen tail (``f1 = 0``) or cannot bound it (``f2 = 0``), so no community can be fitted.
    """
    n = prev.n_observations
    f1, f2 = prev.f(1), prev.f(2)
    if f1 == 0 or f2 == 0:
        which = "no singletons" if f1 == 0 else "no doubletons"
        raise StatsError(
            f"cannot fit a community to this sample: {which} (f1 = {f1}, f2 = {f2}), so the sample cannot "
            "bound its unseen items; collect more observations until items are seen once and twice"
        )
    x = prev.counts.astype(np.float64)
    f0_hat = float(_spade.chao1_f0(f1, f2, (n - 1) / n))
    undetected = f1 / n * _spade.chao_jost_factor(f1, f2, n)
    b = float(np.sum(x / n * (1 - x / n) ** n))
    lam = undetected / b if b > 0 else 0.0
    seen = x / n * (1 - lam * (1 - x / n) ** n)
    f0 = max(math.ceil(f0_hat), 1)
    p = np.concatenate([seen, np.full(f0, undetected / f0)])
    p = p / p.sum()
    if prev.by_query is not None:
        matrix = prev.by_query
        lengths = np.asarray(matrix.sum(axis=1)).ravel().astype(np.int64)
        distinct = bool(matrix.data.size == 0 or matrix.data.max() <= 1)
    else:
        lengths, distinct = np.ones(n, dtype=np.int64), False
    return Community(p, prev.n_seen, f0, 1.0 - undetected, lengths, distinct)


@dataclass(frozen=True, slots=True, eq=False)
class SimulatedCensuses:
    """``B`` simulated censuses of ``Q`` queries and the truth of their continuation.

    Attributes:
        counts: ``(B, S)`` counts of each community item in each census.
        hist: ``(B, s_max + 1)`` frequency counts ``f_s`` of each census (``hist[:, 0] = 0``).
        n_seen: ``N_seen`` of each census.
        n_observations: ``n`` of each census.
        new: Realised new items ``U(t)`` of each census's continuation of ``t·Q`` queries.
        queries: ``(B, Q)`` per-query counted mentions (the answer lengths drawn).
        query_ids: Query of every mention, ``b·Q + j`` (replicate ``b``, query ``j``); ``None`` when
            drawn without the mentions (:func:`simulate`'s ``mentions=False``).
        items: Item of every mention (aligned with :attr:`query_ids`), or ``None``.
        new_at: ``U(s)`` for each ``s`` of :func:`simulate`'s ``more_t`` (the draws of :attr:`new`).
    """

    counts: NDArray[np.int64]
    hist: NDArray[np.int64]
    n_seen: NDArray[np.int64]
    n_observations: NDArray[np.int64]
    new: NDArray[np.int64]
    queries: NDArray[np.int64]
    query_ids: NDArray[np.int64] | None
    items: NDArray[np.int64] | None
    new_at: tuple[NDArray[np.int64], ...] = ()

    def census(self, b: int) -> Prevalence:
        """Replicate ``b`` as a :class:`Prevalence` grouped by query (empty queries included).

        Raises:
            StatsError: the censuses were drawn without their mentions.
        """
        if self.query_ids is None or self.items is None:
            raise StatsError("these censuses were simulated without their mentions (simulate(mentions=True))")
        n_queries = self.queries.shape[1]
        pick = (self.query_ids // n_queries) == b
        rows = self.query_ids[pick] - b * n_queries
        cols = self.items[pick]
        used, codes = np.unique(cols, return_inverse=True)
        matrix = sp.csr_matrix(
            (np.ones(rows.size, dtype=np.int64), (rows, codes)), shape=(n_queries, used.size)
        )
        matrix.sum_duplicates()
        return Prevalence(np.bincount(codes, minlength=used.size).astype(np.int64), None, matrix)


def _draw_items(
    community: Community, lengths: NDArray[np.int64], rng: np.random.Generator
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``(query id, item)`` of every mention of queries with ``lengths`` (flattened ``B·Q``)."""
    qid = np.repeat(np.arange(lengths.size, dtype=np.int64), lengths.ravel())
    cdf = np.cumsum(community.p)
    items = np.minimum(np.searchsorted(cdf, rng.random(qid.size) * cdf[-1], side="right"), community.size - 1)
    if not community.distinct:
        return qid, items.astype(np.int64)
    size = community.size
    sub = np.arange(qid.size)  # the mentions still to check: after the first round, only the queries
    for _ in range(REDRAWS):  # that held a duplicate
        key = qid[sub] * size + items[sub]
        _, first = np.unique(key, return_index=True)
        dup = np.ones(sub.size, dtype=bool)
        dup[first] = False
        if not dup.any():
            return qid, items.astype(np.int64)
        where = sub[dup]
        redraw = rng.random(where.size) * cdf[-1]
        items[where] = np.minimum(np.searchsorted(cdf, redraw, side="right"), size - 1)
        hit = np.zeros(lengths.size, dtype=bool)
        hit[qid[where]] = True
        sub = np.flatnonzero(hit[qid])
    key = qid * size + items  # still repeating after the last round: drop the repeats
    _, first = np.unique(key, return_index=True)
    keep = np.zeros(qid.size, dtype=bool)
    keep[first] = True
    return qid[keep], items[keep].astype(np.int64)


def simulate(
    community: Community,
    n_queries: int,
    t: float,
    replicates: int,
    rng: np.random.Generator,
    more_t: Sequence[float] = (),
    *,
    mentions: bool = True,
) -> SimulatedCensuses:
    """``replicates`` censuses of ``n_queries`` queries from ``community`` and the new items of an
    independent continuation of ``t·n_queries`` queries (module docstring), and of ``s·n_queries`` for
    each ``s`` in ``more_t``: the draws do not depend on ``t``, so one seed scores every ``t`` alike.

    ``mentions=False``: only the counts are needed (not :meth:`SimulatedCensuses.census`). Where
    items are drawn with replacement, a census's counts are then one multinomial draw of its total
    length over ``p̃`` — the same distribution as its mentions' counts, ``S`` binomials instead of
    ``n`` look-ups in the CDF (a 10⁶-observation sample: about 25× faster); other draws, so other
    values at the same seed. Without replacement the mentions are drawn either way."""
    if n_queries < 1 or replicates < 1 or not t > 0 or not all(s > 0 for s in more_t):
        raise StatsError("need n_queries >= 1, replicates >= 1 and t > 0")
    size = community.size
    lengths = rng.choice(community.lengths, size=(replicates, n_queries))
    qid: NDArray[np.int64] | None = None
    items: NDArray[np.int64] | None = None
    if mentions or community.distinct:
        qid, items = _draw_items(community, lengths, rng)
        cells = qid // n_queries * size + items
        counts = np.bincount(cells, minlength=replicates * size).reshape(replicates, size)
        per_query = np.bincount(qid, minlength=replicates * n_queries).reshape(replicates, n_queries)
    else:
        counts = rng.multinomial(lengths.sum(axis=1), community.p / community.p.sum())
        per_query = lengths
    top = int(counts.max()) if counts.size else 0
    hist = np.bincount(
        (np.arange(replicates)[:, None] * (top + 1) + counts).ravel(), minlength=replicates * (top + 1)
    ).reshape(replicates, top + 1)
    hist[:, 0] = 0
    log_miss = np.log1p(-np.minimum(community.query_rates(), 1 - 1e-15))
    draw = rng.random((replicates, size))
    cuts = [1.0 - np.exp(s * n_queries * log_miss) for s in (t, *more_t)]
    new, *new_at = (((counts == 0) & (draw < cut)).sum(axis=1) for cut in cuts)
    return SimulatedCensuses(
        counts=counts.astype(np.int64),
        hist=hist.astype(np.int64),
        n_seen=(counts > 0).sum(axis=1).astype(np.int64),
        n_observations=counts.sum(axis=1).astype(np.int64),
        new=new.astype(np.int64),
        queries=per_query.astype(np.int64),
        query_ids=qid,
        items=items,
        new_at=tuple(x.astype(np.int64) for x in new_at),
    )
