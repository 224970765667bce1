"""Seeded, vectorized bootstrap intervals for ``Û(t)``, ``N̂_tot`` and ``SKR``.

Resampling unit: whole queries (drawn with replacement) when the sample is grouped by query, so
that within-response dependence is preserved; otherwise the item counts are redrawn from a
multinomial with the observed frequencies (Efron 1979; as copia and SpadeR do for Chao1). The
estimator is resolved once on the original sample (same ``k``, ``q``, ``r``) and re-applied to each
resample through per-resample histograms, in batches — no Python loop over items or resamples.

Intervals (:mod:`knowsum.stats.intervals`): by default Chao's log-transformed interval (Chao 1987)
with ``v`` the bootstrap variance of ``Û*`` — its lower end of ``N̂_tot`` is never below
``N_seen``; or (``interval="percentile"``) percentile intervals *re-centred on the point
estimate*, ``[θ̂ − (mean* − q*_{α/2}), θ̂ + (q*_{1−α/2} − mean*)]``, as copia reports them: the
bootstrap world contains no unseen items, so the resampled ``Û*`` are biased low and the raw
percentile interval can miss ``θ̂`` altogether (it does on Fisher's butterflies).

An interval that cannot vary is not shown as a 95 % interval: when every resample gives the same
``Û*`` (one observation, one item, or every resample alike) the bootstrap cannot say how uncertain
the estimate is, and its ``[Û, Û]`` says nothing (:data:`DEGENERATE_REASON`, with a ``degenerate
bootstrap`` :class:`~knowsum.stats.StatsWarning`); a log-normal interval around ``Û = 0`` is the
point ``[0, 0]`` whatever the resamples do (:data:`ZERO_REASON`). :attr:`BootstrapResult.reason`
carries the reason and pages print ``n/a: REASON`` instead of the interval.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from knowsum.stats import _resample as rs
from knowsum.stats._errors import StatsError, StatsWarning
from knowsum.stats._smallsample import TINY_SAMPLE
from knowsum.stats.intervals import IntervalMethod, intervals
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.unseen import (
    DEFAULT_T,
    EstimatorPlan,
    UnseenEstimate,
    apply_plan,
    chao1_total,
    plan_estimator,
)

__all__ = [
    "ALIKE_REASON",
    "DEGENERATE_REASON",
    "ZERO_REASON",
    "BootstrapResult",
    "bootstrap",
    "bootstrap_plan",
    "bootstrap_plans",
    "check_resamples",
]

Interval = tuple[float, float]

DEGENERATE_REASON = "too few observations"
"""Why the interval of a degenerate bootstrap of a tiny sample (fewer than ``TINY_SAMPLE``
observations) is not shown (pages print ``n/a: too few observations``)."""
ALIKE_REASON = "every resample gives the same Û(t)"
"""Why the interval of a degenerate bootstrap of a larger sample is not shown: its size is not the
cause (``n/a: every resample gives the same Û(t)``)."""
MIN_SHARE = 4
"""A nonlinear estimator's interval needs an estimate on at least 1/MIN_SHARE of the resamples."""
ZERO_REASON = "Û(t) = 0, where a log-normal interval is a point"
"""Why a log-normal interval around ``Û = 0`` is not shown (a percentile interval follows the
resamples)."""


@dataclass(frozen=True, slots=True, eq=False)
class BootstrapResult:
    """Bootstrap intervals (log-normal or re-centred percentile) from ``n_resamples`` resamples.

    Attributes:
        estimator: The estimator re-applied to each resample.
        level: Coverage of the intervals (e.g. 0.95).
        n_resamples: Number of resamples used (a nonlinear estimator's resamples without an estimate
            are left out, as preseq does).
        method: ``"queries"`` (resampled whole queries) or ``"multinomial"`` (redrew counts).
        seed: The seed used.
        interval: How the intervals were formed: ``lognormal`` (Chao 1987) or ``percentile``.
        unseen: Interval for ``Û(t)``.
        total: Interval for ``N̂_tot``.
        skr: Interval for ``SKR(t)``.
        unseen_se: Bootstrap standard error of ``Û(t)``.
        unseen_draws: ``Û(t)`` of every resample (read-only).
        seen_draws: ``N_seen`` of every resample (read-only).
        n_nonfinite: Resamples whose SKR was undefined (``N̂_tot = 0``); left out of its interval.
        reason: Why the intervals say nothing about the uncertainty and are shown as
            ``n/a: REASON`` (:data:`DEGENERATE_REASON`: every resample gave the same ``Û*``;
            :data:`ZERO_REASON`: a log-normal interval around ``Û = 0``), or ``None``.
    """

    estimator: str
    level: float
    n_resamples: int
    method: Literal["queries", "multinomial"]
    seed: int | None
    interval: IntervalMethod
    unseen: Interval
    total: Interval
    skr: Interval
    unseen_se: float
    unseen_draws: NDArray[np.float64]
    seen_draws: NDArray[np.int64]
    n_nonfinite: int
    reason: str | None = None

    def __eq__(self, other: object) -> bool:
        """Equal when every field is (the draws compared element by element): the same sample, plan
        and seed give equal results."""
        if not isinstance(other, BootstrapResult):
            return NotImplemented
        return all(
            np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
            for a, b in ((getattr(self, f.name), getattr(other, f.name)) for f in fields(self))
        )

    @property
    def degenerate(self) -> bool:
        """Whether the intervals cannot vary and are not to be shown (see :attr:`reason`)."""
        return self.reason is not None


BatchStats = tuple[NDArray[np.float64], NDArray[np.int64]]


def _batch_stats(plan: EstimatorPlan, counts: rs.IntMatrix) -> BatchStats:
    """``(Û, N_seen)`` of each column of an ``(n_items, B)`` count matrix."""
    n_items = counts.shape[0]
    if plan.rows is not None:  # a nonlinear estimator reads each resample's whole histogram
        whole = rs.column_histograms(counts, max(int(counts.max(initial=0)), 1))
        return plan.rows(whole.astype(np.float64))[0], n_items - whole[:, 0]
    support = plan.support
    hist = rs.column_histograms(counts, max(support or 0, 2))
    seen = n_items - hist[:, 0]
    if plan.weights is None:  # Chao1
        n_obs = counts.sum(axis=0, dtype=np.int64)
        f1, f2 = hist[:, 1].astype(np.float64), hist[:, 2].astype(np.float64)
        form = plan.form or "bias-corrected"
        total = chao1_total(seen.astype(np.float64), f1, f2, n_obs.astype(np.float64), form)
        return total - seen, seen
    if support is not None:
        h = plan.weights(support)
        return hist[:, 1 : support + 1] @ h[1 : support + 1], seen
    h = plan.weights(int(counts.max()))
    return h[counts].sum(axis=0), seen


def check_resamples(n: object, name: str = "n_bootstrap") -> int:
    """``n`` as a count of bootstrap resamples: 0 (no interval) or at least 2. One resample has no
    spread, so its interval would be a point and its standard error undefined: refused here rather
    than shown as a degenerate sample.

    Raises:
        StatsError: ``n`` is not a whole number, is negative, or is 1.
    """
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0 or n == 1:
        raise StatsError(
            f"{name} must be 0 (no interval) or a whole number >= 2, got {n!r}"
            + (": one resample has no spread" if n == 1 and not isinstance(n, bool) else "")
        )
    return int(n)


def bootstrap_plan(
    prev: Prevalence,
    plan: EstimatorPlan,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    point: UnseenEstimate | None = None,
    interval: IntervalMethod = "lognormal",
) -> BootstrapResult:
    """Bootstrap an already resolved estimator (see :func:`bootstrap`); ``point`` is its estimate
    on ``prev`` when the caller already has it."""
    points = None if point is None else [point]
    return bootstrap_plans(prev, [plan], n_resamples, level, seed, points, interval)[0]


def bootstrap_plans(
    prev: Prevalence,
    plans: Sequence[EstimatorPlan],
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    points: Sequence[UnseenEstimate] | None = None,
    interval: IntervalMethod = "lognormal",
    quiet: int | None = None,
) -> list[BootstrapResult]:
    """Bootstrap several resolved estimators (e.g. one per ``t`` of a curve) on *the same*
    resamples: the one resampler behind every interval knowsum shows. ``quiet``: the plans from this
    index on give their results without a :class:`StatsWarning` (a curve bootstrapped beside its
    headline, whose warnings alone are the caller's).

    The resamples depend only on ``prev``, ``n_resamples`` and ``seed`` (batch ``i`` draws from the
    ``i``-th child of ``SeedSequence(seed)``), so a plan gets the same interval here as from
    :func:`bootstrap_plan` alone — a curve's band at the run's ``t`` *is* the headline interval.
    """
    if check_resamples(n_resamples, "n_resamples") == 0:
        raise StatsError("n_resamples must be a whole number >= 2, got 0 (the caller skips the bootstrap)")
    if not 0 < level < 1:
        raise StatsError(f"level must be in (0, 1), got {level!r}")
    # one child generator per batch: batches can be drawn in parallel, and the result depends only
    # on the seed, not on thread scheduling
    sizes = [s.stop - s.start for s in rs.batches(n_resamples)]
    jobs = list(zip(sizes, np.random.SeedSequence(seed).spawn(len(sizes)), strict=True))
    method: Literal["queries", "multinomial"]
    if prev.n_queries is not None and prev.n_queries >= 2:
        method, n_queries = "queries", prev.n_queries
        item_query = rs.item_query_matrix(prev)

        def draw(job: tuple[int, np.random.SeedSequence]) -> rs.IntMatrix:
            weights = rs.multinomial_query_weights(np.random.default_rng(job[1]), n_queries, job[0])
            return rs.query_counts(item_query, weights)
    else:
        method = "multinomial"

        def draw(job: tuple[int, np.random.SeedSequence]) -> rs.IntMatrix:
            return rs.multinomial_counts(np.random.default_rng(job[1]), prev.counts, job[0])

    def one_batch(job: tuple[int, np.random.SeedSequence]) -> list[BatchStats]:
        counts = draw(job)
        return [_batch_stats(plan, counts) for plan in plans]

    results = rs.parallel_map(one_batch, jobs)
    found = []
    for j, plan in enumerate(plans):
        unseen = np.concatenate([r[j][0] for r in results]).astype(np.float64)
        seen = np.concatenate([r[j][1] for r in results]).astype(np.int64)
        point = apply_plan(plan, prev) if points is None else points[j]
        with warnings.catch_warnings():
            if quiet is not None and j >= quiet:
                warnings.simplefilter("ignore", StatsWarning)
            found.append(_result(plan, point, unseen, seen, level, seed, method, interval))
    return found


def _result(
    plan: EstimatorPlan,
    point: UnseenEstimate,
    unseen: NDArray[np.float64],
    seen: NDArray[np.int64],
    level: float,
    seed: int | None,
    method: Literal["queries", "multinomial"],
    interval: IntervalMethod,
) -> BootstrapResult:
    finite = np.isfinite(unseen)
    missing = int(unseen.size - finite.sum())
    if missing and plan.rows is None:
        raise StatsError(f"{plan.name} gave non-finite estimates on bootstrap resamples; use 'et'")
    if missing:  # a nonlinear estimator with no estimate on some resamples: preseq skips them too
        unseen, seen = unseen[finite], seen[finite]
        warnings.warn(
            f"{plan.name} gives no estimate on {missing:,} of {missing + unseen.size:,} bootstrap resamples; "
            "its interval is formed from the others",
            StatsWarning,
            stacklevel=4,
        )
        if unseen.size < max(2, (unseen.size + missing) // MIN_SHARE):
            why = f"{plan.name} gives no estimate on {missing:,} of {missing + unseen.size:,} resamples"
            nan = (math.nan, math.nan)
            unseen.setflags(write=False)
            seen.setflags(write=False)
            return BootstrapResult(
                plan.name,
                level,
                unseen.size,
                method,
                seed,
                interval,
                nan,
                nan,
                nan,
                math.nan,
                unseen,
                seen,
                0,
                why,
            )
    total = seen + unseen
    with np.errstate(divide="ignore", invalid="ignore"):
        skr = np.where(total != 0, seen / np.where(total != 0, total, 1.0), np.nan)
    found = intervals(interval, point.n_seen, point.estimate, unseen, seen, level, point.ceiling)
    spread = float(np.ptp(unseen)) if unseen.size else 0.0
    reason = None
    if spread <= 1e-12 * max(1.0, abs(float(unseen[0]) if unseen.size else 0.0)):
        reason = DEGENERATE_REASON if point.n_observations < TINY_SAMPLE else ALIKE_REASON
        warnings.warn(
            f"degenerate bootstrap: all {unseen.size:,} resamples give {plan.name}'s Û(t) = "
            f"{float(unseen[0]) if unseen.size else math.nan:.4g}, so its spread cannot be measured "
            f"({reason}); the {level:.0%} interval is not shown",
            StatsWarning,
            stacklevel=4,
        )
    elif found.method == "lognormal" and point.estimate <= 0:
        reason = ZERO_REASON
    unseen.setflags(write=False)
    seen.setflags(write=False)
    with np.errstate(over="ignore"):  # draws past sqrt(float max) (Good–Toulmin): s.e. = inf
        se = float(np.std(unseen, ddof=1)) if unseen.size > 1 else math.nan
    return BootstrapResult(
        estimator=plan.name,
        level=float(level),
        n_resamples=int(unseen.size),
        method=method,
        seed=seed,
        interval=found.method,
        unseen=found.unseen,
        total=found.total,
        skr=found.skr,
        unseen_se=se,
        unseen_draws=unseen,
        seen_draws=seen,
        n_nonfinite=int(np.sum(~np.isfinite(skr))),
        reason=reason,
    )


def bootstrap(
    prev: Prevalence,
    estimator: str = "et",
    t: float = DEFAULT_T,
    k: int | None = None,
    n_resamples: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    interval: IntervalMethod = "lognormal",
) -> BootstrapResult:
    """Bootstrap intervals for ``Û(t)``, ``N̂_tot``, ``SKR(t)`` (log-normal by default).

    Args:
        prev: The sample (queries are resampled when known, else counts are redrawn).
        estimator: Estimator name (see :data:`knowsum.stats.ESTIMATORS`).
        t: Extrapolation factor.
        k: Truncation level for ``et`` (kept fixed across resamples).
        n_resamples: Number of bootstrap resamples (default 1,000).
        level: Interval coverage (default 0.95).
        seed: Seed; the same seed gives the same intervals.
        interval: ``lognormal`` (Chao 1987: ``N_seen + Û·C^{∓1}``, ``C = exp(z·sqrt(ln(1 + v/Û²)))``,
            ``v`` the bootstrap variance of ``Û*``) or ``percentile`` (re-centred percentiles).
    """
    plan = plan_estimator(prev, estimator, t, k)
    return bootstrap_plan(prev, plan, n_resamples, level, seed, interval=interval)
