"""A census's error at its own ``t``, by parametric bootstrap from a community fitted to it.

**The fitted community** (:func:`fit_community`) is iNEXT's estimated assemblage (Chao et al. 2014,
Ecol. Monogr. 84:45, App. S2; Chao & Jost 2015, Methods Ecol. Evol. 6:873; iNEXT ``EstiBootComm.Ind``,
:func:`knowsum.stats.hill.bootstrap_assemblage`): the detected items with coverage-adjusted relative
abundances ``p̃_i = X_i/n (1 − λ(1 − X_i/n)^n)`` and ``⌈f̂0⌉`` undetected items (Chao1's
``f̂0 = (n−1)/n · f1²/(2f2)``) sharing the undetected mass ``1 − Ĉ`` equally. It keeps the census's
**per-query structure**: the empirical distribution of counted mentions per query, empty answers
included, and whether a query ever repeats an item (if never, items are drawn without replacement
within a query: duplicates of a draw are redrawn, up to :data:`REDRAWS` times, then dropped).

**A simulated census** (:func:`simulate`) draws ``Q`` answer lengths from that distribution and the
items of each answer from ``p̃``. The **truth** it is scored against is an independent continuation of
``t·Q`` queries: item ``i`` appears in one query with probability ``π_i = E_L[1 − (1 − p̃_i)^L]``,
so in the continuation with ``P_i = 1 − (1 − π_i)^{tQ}``; the realised new items
``U(t) = Σ_{i unseen in the census} Bernoulli(P_i)`` (items independent: a query's fixed length makes
them slightly negatively dependent, which this ignores), and ``N_tot(t) = N_seen + U(t)``.

**The check** (:func:`own_t_check`) applies the census's own linear estimator (its weights ``h_s``,
resolved once on the census — its ``k`` too, not re-selected per replicate) to every simulated census
and scores ``Û(t)`` and its plug-in prediction interval (:func:`score_linear`) against the truth:
relative RMSE against ``E U`` and ``E N_tot``, relative bias, coverage, each with its MC s.e.

What it assumes: the census's items are a sample from ``p̃``; the unseen part is ``f̂0`` items of equal
probability — Chao1's ``f̂0`` is a *lower* bound of the undetected richness, and a flat tail is the
easiest tail to extrapolate — so at large ``t`` the simulated error is optimistic (a lower bound of
the error on a longer, more uneven tail). Vectorised: no Python loop over queries or replicates.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from knowsum.stats import _spade
from knowsum.stats._arrays import FloatArray, IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats.prediction import plugin_variance, prediction_bounds
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.unseen import EstimatorPlan

__all__ = [
    "MAX_DRAWS",
    "OWN_T_REPLICATES",
    "REDRAWS",
    "Community",
    "OwnTCheck",
    "SimulatedCensuses",
    "check_at_own_t",
    "fit_community",
    "own_t_check",
    "score_linear",
    "simulate",
]

OWN_T_REPLICATES = 200
"""Simulated censuses of the check at the census's own ``t`` (coverage ±1.5 % near 95 %)."""
MAX_DRAWS = 20_000_000
"""Largest number of simulated mentions (replicates × n) the check draws; fewer replicates beyond,
down to 20, and no check for larger samples (the check must stay well under a second)."""

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


@dataclass(frozen=True, slots=True)
class OwnTCheck:
    """A linear estimator's error at one ``t`` over simulated censuses (each figure with its MC s.e.).

    Attributes:
        t: The extrapolation factor.
        n_queries: Queries of each simulated census.
        replicates: Simulated censuses.
        mean_new: ``E U(t)`` (mean realised new items).
        mean_total: ``E N_tot(t)``.
        error: ``sqrt(E(Û − U)²) / E U``; NaN when ``E U = 0``.
        error_total: ``sqrt(E(Û − U)²) / E N_tot``.
        error_se: Monte Carlo s.e. of :attr:`error_total` (delta method on the mean squared error).
        bias: ``E(Û − U) / E U``.
        bias_items: ``E(Û − U)`` in items (``b̂``, whose square widens the census's prediction interval).
        coverage: Share of replicates whose plug-in prediction interval (``v = Σ h_s² f_s + Û + b̂²``,
            see :func:`score_linear`) holds the realised ``U`` (n/a intervals count as misses).
        coverage_se: Its binomial s.e.
        unavailable: Share of replicates whose prediction interval is n/a.
        noise_floor: ``1/sqrt(E U)``: the relative s.d. of ``U`` itself (Poisson), below which no
            estimator's error can go.
        community_size: Items of the community simulated from.
        undetected: Of those, the undetected ones added (``⌈f̂0⌉``; 0 for a community given outright).
        coverage_hat: The detected items' share of the community (``Ĉ``).
        distinct: Whether items were drawn without replacement within a query.
        seed: Seed of the simulation.
        estimator: The estimator scored, as resolved on the sample (``plan.name``).
        k: Its truncation level, kept for every replicate (``None`` for an estimator without one).
        seconds: Time the simulation took.
    """

    t: float
    n_queries: int
    replicates: int
    mean_new: float
    mean_total: float
    error: float
    error_total: float
    error_se: float
    bias: float
    bias_items: float
    coverage: float
    coverage_se: float
    unavailable: float
    noise_floor: float
    community_size: int = 0
    undetected: int = 0
    coverage_hat: float = 1.0
    distinct: bool = False
    seed: int | None = None
    estimator: str = ""
    k: int | None = None
    seconds: float = field(default=0.0, compare=False)


def score_linear(
    sims: SimulatedCensuses, weights: FloatArray, t: float, n_queries: int, level: float = 0.95
) -> OwnTCheck:
    """Apply ``Û = Σ h_s f_s`` (``weights[s] = h_s``, reported as ``max(Û, 0)``) to every simulated
    census, estimate its bias ``b̂ = mean(Û − U)``, and score ``Û`` and its plug-in prediction interval
    ``v = Σ h_s² f_s + Û + b̂²`` (:data:`~knowsum.stats.own_t_text.SCORED_INTERVAL`: the census's with no
    bootstrap and ``D̂ = 1``; a bootstrap ``max(Σ h_s² f_s, Var*)`` or ``D̂ > 1`` only widens it; bootstrapping
    each replicate would cost ``replicates`` times the census's own) against the realised ``U(t)``."""
    width = min(sims.hist.shape[1], weights.size)
    f = sims.hist[:, :width].astype(np.float64)
    h = np.asarray(weights[:width], dtype=np.float64)
    raw = f @ h
    est = np.maximum(raw, 0.0)
    truth = sims.new.astype(np.float64)
    bias_items = float((est - truth).mean())
    lo, hi = prediction_bounds(est, plugin_variance(f, h) + bias_items**2, level)
    formed = np.isfinite(lo) & np.isfinite(hi) & (f[:, 1] > 0)
    covered = formed & (lo <= truth) & (truth <= hi)
    b = truth.size
    sq = (est - truth) ** 2
    mse = float(sq.mean())
    rmse = math.sqrt(mse)
    mean_new = float(truth.mean())
    mean_total = float((sims.n_seen + truth).mean())
    mse_se = float(sq.std(ddof=1) / math.sqrt(b)) if b > 1 else math.nan
    rmse_se = mse_se / (2 * rmse) if rmse > 0 else 0.0
    cov = float(covered.mean())
    return OwnTCheck(
        t=t,
        n_queries=n_queries,
        replicates=b,
        mean_new=mean_new,
        mean_total=mean_total,
        error=rmse / mean_new if mean_new > 0 else math.nan,
        error_total=rmse / mean_total if mean_total > 0 else math.nan,
        error_se=rmse_se / mean_total if mean_total > 0 else math.nan,
        bias=bias_items / mean_new if mean_new > 0 else math.nan,
        bias_items=bias_items,
        coverage=cov,
        coverage_se=math.sqrt(cov * (1 - cov) / b),
        unavailable=float(1.0 - formed.mean()),
        noise_floor=1.0 / math.sqrt(mean_new) if mean_new > 0 else math.nan,
    )


def own_t_check(
    community: Community,
    plan: EstimatorPlan,
    n_queries: int,
    replicates: int = 200,
    seed: int | None = 0,
    level: float = 0.95,
) -> OwnTCheck:
    """Simulate ``replicates`` censuses of ``n_queries`` queries from ``community`` and score ``plan``
    (a linear estimator resolved on the census: its ``t``, ``k`` and weights) at its own ``t``.

    Raises:
        StatsError: ``plan`` is not linear (Chao1 estimates ``t = ∞``) or has no ``t``.
    """
    if plan.weights is None or plan.t is None:
        raise StatsError(f"{plan.name} is not a linear estimator of U(t): no simulated check at its t")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    sims = simulate(community, n_queries, plan.t, replicates, rng, mentions=False)
    weights = plan.weights(max(sims.hist.shape[1] - 1, 1))
    check = score_linear(sims, weights, plan.t, n_queries, level)
    fitted: dict[str, Any] = {"community_size": community.size, "undetected": community.f0, "seed": seed}
    fitted |= {"coverage_hat": community.coverage, "distinct": community.distinct}
    fitted |= {"estimator": plan.name, "k": plan.k}
    return replace(check, **fitted, seconds=time.perf_counter() - t0)


def check_at_own_t(
    prev: Prevalence, plan: EstimatorPlan, seed: int | None = 0, replicates: int = OWN_T_REPLICATES
) -> tuple[OwnTCheck | None, Community | None, str | None]:
    """:func:`own_t_check` of ``plan`` on a community fitted to ``prev`` with the census's own number
    of queries (``n`` when not grouped by query), or ``None`` and why not: Chao1 (``t = ∞``), no
    singletons or doubletons, or a sample too large to simulate within :data:`MAX_DRAWS`."""
    if plan.t is None:
        return None, None, f"{plan.name} estimates t = ∞: no simulated check at a finite t"
    if plan.weights is None:
        why = "it is not linear in the f_s, and the check applies a linear estimator's weights"
        return None, None, f"no simulated check for {plan.name}: {why}"
    n = prev.n_observations
    replicates = min(replicates, MAX_DRAWS // max(n, 1))
    if replicates < 20:
        return None, None, f"n = {n:,} observations is too large a sample to simulate quickly"
    try:
        community = fit_community(prev)
    except StatsError as exc:
        return None, None, str(exc)
    n_queries = prev.n_queries or n
    return own_t_check(community, plan, n_queries, replicates, seed), community, None
