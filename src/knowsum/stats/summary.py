"""One call for the whole estimate: held-out ``k`` → ``Û(t)`` → bootstrap interval.

This is what ``knowsum estimate`` and the census instrument call::

    prev = Prevalence.from_items(items, queries=query_ids)
    result = summarize(prev, t=100, k="auto", n_bootstrap=1000, seed=0)
    result.n_total, result.skr, result.interval
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from knowsum.stats.bootstrap import BootstrapResult, bootstrap_plan
from knowsum.stats.heldout import DEFAULT_CANDIDATES, DEFAULT_FRACTIONS, KSelection, select_k
from knowsum.stats.intervals import IntervalMethod
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.unseen import DEFAULT_K, DEFAULT_T, HAS_K, UnseenEstimate, apply_plan, plan_estimator

__all__ = ["KSource", "Summary", "summarize"]

KSource = Literal["held-out", "given", "default", "formula", "none"]


@dataclass(frozen=True, slots=True)
class Summary:
    """The result record of :func:`summarize`.

    Attributes:
        estimate: The point estimate; its ``interval`` is the bootstrap interval of ``Û(t)``.
        k_source: How ``k`` was set: ``held-out`` (selected), ``given``, ``default`` (8),
            ``formula`` (OSW binomial derives it from n and t) or ``none`` (no k).
        selection: The held-out selection table when ``k`` was selected, else ``None``.
        bootstrap: The bootstrap result, or ``None`` when ``n_bootstrap == 0``.
        notes: Human-readable remarks (e.g. "k is not used by good-toulmin").
        n_queries: Number of queries, when the observations were grouped by query.
    """

    estimate: UnseenEstimate
    k_source: KSource
    selection: KSelection | None
    bootstrap: BootstrapResult | None
    notes: tuple[str, ...]
    n_queries: int | None

    @property
    def estimator(self) -> str:
        """Estimator name."""
        return self.estimate.estimator

    @property
    def n_observations(self) -> int:
        """``n``."""
        return self.estimate.n_observations

    @property
    def n_seen(self) -> int:
        """``N_seen``."""
        return self.estimate.n_seen

    @property
    def n_unseen(self) -> float:
        """``Û(t)`` as reported, ``max(Û, 0)``."""
        return self.estimate.estimate

    @property
    def n_unseen_raw(self) -> float:
        """``Û(t)`` as the estimator computed it (may be negative)."""
        return self.estimate.raw

    @property
    def n_total(self) -> float:
        """``N̂_tot``."""
        return self.estimate.n_total

    @property
    def skr(self) -> float:
        """``SKR(t)``."""
        return self.estimate.skr

    @property
    def interval(self) -> tuple[float, float] | None:
        """Bootstrap interval of ``Û(t)`` (``None`` without bootstrap)."""
        return self.estimate.interval

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (keys ``n_observations, n_seen, n_unseen, n_unseen_raw, n_total, skr, t,
        k, estimator, interval`` and more detail; ``n_unseen`` is ``max(n_unseen_raw, 0)``)."""
        est, boot, sel = self.estimate, self.bootstrap, self.selection
        return {
            "n_observations": est.n_observations,
            "n_queries": self.n_queries,
            "n_seen": est.n_seen,
            "n_unseen": est.estimate,
            "n_unseen_raw": est.raw,
            "n_total": est.n_total,
            "skr": est.skr,
            "t": est.t,
            "k": est.k,
            "k_source": self.k_source,
            "estimator": est.estimator,
            "interval": None if est.interval is None else list(est.interval),
            "interval_total": None if boot is None else list(boot.total),
            "interval_skr": None if boot is None else list(boot.skr),
            "interval_method": None if boot is None else boot.interval,
            "level": None if boot is None else boot.level,
            "n_bootstrap": 0 if boot is None else boot.n_resamples,
            "bootstrap_method": None if boot is None else boot.method,
            "parameters": dict(est.parameters),
            "diagnostics": {
                "negative": est.diagnostics.negative,
                "theorem1_bound": est.diagnostics.theorem1_bound,
                "within_bound": est.diagnostics.within_bound,
                "std_error": est.diagnostics.std_error,
            },
            "selection": None
            if sel is None
            else {
                "candidates": list(sel.candidates),
                "nmse": list(sel.nmse),
                "fractions": list(sel.fractions),
                "n_shuffles": sel.n_shuffles,
                "method": sel.method,
                "seed": sel.seed,
            },
            "notes": list(self.notes),
        }


def _resolve_k(
    prev: Prevalence, estimator: str, k: int | Literal["auto"] | None, select: dict[str, Any]
) -> tuple[int | None, KSource, KSelection | None, list[str]]:
    if estimator not in HAS_K:
        notes = [] if k is None else [f"k = {k} ignored: estimator {estimator} has no user-given k"]
        return None, ("formula" if estimator == "osw-binomial" else "none"), None, notes
    if k == "auto":
        selection = select_k(prev, **select)
        return selection.k, "held-out", selection, []
    if k is None:
        return DEFAULT_K, "default", None, []
    return k, "given", None, []


def summarize(
    prev: Prevalence,
    estimator: str = "et",
    t: float = DEFAULT_T,
    k: int | Literal["auto"] | None = "auto",
    n_bootstrap: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    candidates: Sequence[int] = DEFAULT_CANDIDATES,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    n_shuffles: int = 100,
    interval: IntervalMethod = "lognormal",
) -> Summary:
    """Held-out choice of ``k`` (when ``k="auto"``), the estimate, and its bootstrap interval.

    Args:
        prev: The sample.
        estimator: Estimator name (default ``et``, KnowSum eq. 1).
        t: Extrapolation factor (default 100).
        k: ``"auto"`` (held-out selection among ``candidates``), an integer, or ``None`` for the
            default 8. Ignored (with a note) by estimators that have no user-given ``k``.
        n_bootstrap: Bootstrap resamples; 0 skips the interval.
        level: Interval coverage.
        seed: One seed for the held-out splits and the bootstrap.
        candidates: Candidate ``k`` for the held-out selection.
        fractions: Observed fractions for the held-out selection.
        n_shuffles: Random splits per fraction.
        interval: ``lognormal`` (Chao 1987's log-transformed interval, whose lower end of ``N̂_tot``
            is never below ``N_seen``) or ``percentile`` (re-centred bootstrap percentiles); see
            :mod:`knowsum.stats.intervals`.
    """
    plan = plan_estimator(prev, estimator, t, None if k == "auto" else k)
    select = {"candidates": candidates, "fractions": fractions, "n_shuffles": n_shuffles, "seed": seed}
    k_used, k_source, selection, notes = _resolve_k(prev, estimator, k, select)
    if k_used is not None and k_used != plan.k:
        plan = plan_estimator(prev, estimator, t, k_used)
    estimate = apply_plan(plan, prev)
    boot = None
    if n_bootstrap:
        boot = bootstrap_plan(prev, plan, n_bootstrap, level, seed, estimate, interval)
        estimate = estimate.with_interval(boot.unseen)
    if estimator == "chao1":
        notes.append("t is not used by chao1 (it estimates the total richness)")
    return Summary(estimate, k_source, selection, boot, tuple(notes), prev.n_queries)
