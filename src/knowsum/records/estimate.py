"""The record of one unseen-species estimate: every number ``knowsum estimate`` prints.

:func:`knowsum.estimate.estimate` fills an :class:`EstimateReport`; :mod:`knowsum.report.estimate`
renders it as the terminal table and as the JSON object of ``--json``. The record lives here, below
both, so the report layer reads it without importing the instrument. It holds plain values copied
from the statistics layer's results (this package does not import :mod:`knowsum.stats`), exactly as
computed and under the names of ``knowsum.stats.Summary``'s flat view, so the table and the JSON
(laid out once, by ``knowsum.stats.summary.summary_dict``) print the same digits as the estimators
returned.

The estimate is not written to disk, so the record is a frozen value object rather than a
versioned :class:`~knowsum.records.Record`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["BootstrapSummary", "EstimateReport", "KSelectionSummary"]

Interval = tuple[float, float]


@dataclass(frozen=True, slots=True)
class KSelectionSummary:
    """How ``k`` was chosen on held-out splits (KnowSum §5.1).

    Attributes:
        candidates: The candidate ``k``, in the order tried.
        nmse: Mean normalized MSE of each candidate (same order).
        fractions: The observed fractions ``r`` of the splits.
        n_shuffles: Random splits per fraction.
        method: ``queries`` (whole queries split) or ``thinning`` (binomial thinning of the counts).
        seed: Seed of the random splits.
    """

    candidates: tuple[int, ...]
    nmse: tuple[float, ...]
    fractions: tuple[float, ...]
    n_shuffles: int
    method: str
    seed: int | None


@dataclass(frozen=True, slots=True)
class BootstrapSummary:
    """The bootstrap intervals of the estimate.

    Attributes:
        n_resamples: Number of resamples.
        method: ``queries`` (whole queries resampled) or ``multinomial`` (counts redrawn).
        seed: Seed of the resamples.
        level: Coverage of the intervals (e.g. 0.95).
        interval: How the intervals were formed: ``lognormal`` (Chao 1987) or ``percentile``.
        unseen: Interval of ``Û(t)``.
        total: Interval of ``N̂_tot``.
        skr: Interval of ``SKR(t)``.
    """

    n_resamples: int
    method: str
    seed: int | None
    level: float
    interval: str
    unseen: Interval
    total: Interval
    skr: Interval


@dataclass(frozen=True, slots=True)
class EstimateReport:
    """One estimate of how many items a source still holds unseen.

    Attributes:
        estimator: Estimator name (a key of ``knowsum.stats.ESTIMATORS``).
        n_observations: ``n``.
        n_queries: Number of queries when the observations were grouped by query, else ``None``.
        n_seen: ``N_seen``.
        n_unseen: ``Û(t)`` as reported, ``max(n_unseen_raw, 0)``.
        n_unseen_raw: ``Û(t)`` as the estimator computed it (negative on some small samples).
        n_total: ``N̂_tot = N_seen + Û(t)``.
        skr: ``SKR(t) = N_seen / N̂_tot`` (NaN when nothing was seen).
        t: Extrapolation factor (``None`` for Chao1).
        k: Truncation level used (``None`` when the estimator has none).
        k_source: How ``k`` was set: ``held-out``, ``given``, ``default``, ``formula`` or ``none``.
        interval: Bootstrap interval of ``Û(t)`` (``None`` without bootstrap).
        parameters: Every parameter the estimator used (q, r, form, …).
        negative: Whether the raw ``Û(t)`` was negative.
        theorem1_bound: ``e^{kt/(t+1)}·N_seen`` (KnowSum Theorem 1) when it applies, else ``None``.
        within_bound: Whether the raw ``Û(t)`` respects that bound (``None`` when it does not apply).
        std_error: Poisson-model standard error of a linear estimator (``None`` for Chao1).
        selection: The held-out choice of ``k`` when ``k`` was selected, else ``None``.
        bootstrap: The bootstrap intervals, or ``None`` when no resample was drawn.
        notes: Remarks for the user, warnings last (prefixed ``warning:``).
        source: The observation file as given, or ``None`` when the sample was passed in memory.
        format: Format the file was read in (``items``, ``counts``, ``prevalence``), or ``None``.
        format_detected: Whether that format was auto-detected (``None`` without a file).
        format_reason: Why that format was chosen (``None`` without a file).
    """

    estimator: str
    n_observations: int
    n_queries: int | None
    n_seen: int
    n_unseen: float
    n_unseen_raw: float
    n_total: float
    skr: float
    t: float | None
    k: int | None
    k_source: str
    interval: Interval | None
    parameters: Mapping[str, float | int | str]
    negative: bool
    theorem1_bound: float | None
    within_bound: bool | None
    std_error: float | None
    selection: KSelectionSummary | None
    bootstrap: BootstrapSummary | None
    notes: tuple[str, ...]
    source: str | None = None
    format: str | None = None
    format_detected: bool | None = None
    format_reason: str | None = None
