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
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from knowsum.stats._arrays import FloatArray
from knowsum.stats._errors import StatsError
from knowsum.stats._simulate import REDRAWS, Community, SimulatedCensuses, fit_community, simulate
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
    each replicate would cost ``replicates`` times the census's own) against the realised ``U(t)``.

    Raises:
        StatsError: Some simulated ``Û(t)`` or its squared error is not a finite float (the weights
            ``t^s`` of Good–Toulmin at large ``t``): no error or coverage can be scored. All the float
            arithmetic here is numpy's, so an overflow gives ``inf``/NaN, caught here, never a Python
            ``OverflowError``."""
    width = min(sims.hist.shape[1], weights.size)
    f = sims.hist[:, :width].astype(np.float64)
    h = np.asarray(weights[:width], dtype=np.float64)
    truth = sims.new.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        raw = f @ h
        est = np.maximum(raw, 0.0)
        sq = (est - truth) ** 2
        mse = float(sq.mean())
    if not math.isfinite(mse):
        raise StatsError(_not_finite(raw, t))
    bias_items = float((est - truth).mean())  # |b̂| ≤ sqrt(mse): b̂² is finite
    lo, hi = prediction_bounds(est, plugin_variance(f, h) + bias_items * bias_items, level)
    formed = np.isfinite(lo) & np.isfinite(hi) & (f[:, 1] > 0)
    covered = formed & (lo <= truth) & (truth <= hi)
    b = truth.size
    rmse = math.sqrt(mse)
    mean_new = float(truth.mean())
    mean_total = float((sims.n_seen + truth).mean())
    with np.errstate(over="ignore", invalid="ignore"):  # sq² may pass the float range: its s.e. is then n/a
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


def _not_finite(raw: FloatArray, t: float) -> str:
    """Why no check is scored when a simulated ``Û(t)`` (or its square) leaves the float range."""
    finite = raw[np.isfinite(raw)]
    peak = f"reaches {float(np.abs(finite).max()):.3g}" if finite.size == raw.size else "is not finite"
    return (
        f"the simulated Û(t) at t = {t:g} {peak} and its squared error overflows a float, so its "
        "error and coverage cannot be scored (the estimator's weights grow without bound at this t: "
        "take a smaller t or the smoothed estimator 'et')"
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
        StatsError: ``plan`` is not linear (Chao1 estimates ``t = ∞``) or has no ``t``; its weights
            overflow on the simulated censuses' longer histograms; or the scored ``Û(t)`` is not
            finite (:func:`score_linear`).
    """
    if plan.weights is None or plan.t is None:
        raise StatsError(f"{plan.name} is not a linear estimator of U(t): no simulated check at its t")
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    sims = simulate(community, n_queries, plan.t, replicates, rng, mentions=False)
    try:
        weights = plan.weights(max(sims.hist.shape[1] - 1, 1))
    except StatsError as exc:  # a simulated census counts an item more often than the sample does
        raise StatsError(f"on the simulated censuses, {exc}") from exc
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
    singletons or doubletons, a sample too large to simulate within :data:`MAX_DRAWS`, or an estimator
    whose weights or ``Û(t)`` overflow on the simulated censuses (the reason says which)."""
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
    try:
        return own_t_check(community, plan, n_queries, replicates, seed), community, None
    except StatsError as exc:  # a diverging estimator (Good–Toulmin at large t): the check is n/a
        return None, community, str(exc)
