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

from knowsum.records._caveats import CaveatNote

__all__ = [
    "BootstrapSummary",
    "CurveSummary",
    "EstimateReport",
    "HillSummary",
    "KSelectionSummary",
    "PointSummary",
    "RichnessReport",
    "RichnessSummary",
    "SharedSummary",
    "TargetSummary",
]

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
        reason: Why the intervals are not shown (``"too few observations"``: every resample gave
            the same ``Û*``, so ``[Û, Û]`` is no interval at all; or a log-normal interval around
            ``Û = 0``, a point whatever the resamples), or ``None`` when they are shown.
    """

    n_resamples: int
    method: str
    seed: int | None
    level: float
    interval: str
    unseen: Interval
    total: Interval
    skr: Interval
    reason: str | None = None


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
        caveats: What makes the figures say less than they seem (``knowsum.stats.caveats``).
        interval_reason: Why no interval is shown (printed ``n/a: REASON``), or ``None``.
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
    caveats: tuple[CaveatNote, ...] = ()
    interval_reason: str | None = None


@dataclass(frozen=True, slots=True)
class RichnessSummary:
    """One species-richness estimate (Chao1, ACE, Chao2, ICE, jackknife …).

    Attributes:
        estimator: Its CLI name (``chao1-bc``, ``ace``, ``chao2``, ``jack1`` …).
        title: The formula and its source, printed beside the value.
        estimate: ``Ŝ``.
        std_error: Analytic standard error (``None`` when undefined).
        interval: Log-normal interval (``None`` without a standard error).
        level: Coverage of the interval.
        parameters: Quantities the estimator used (``f1``, ``f2``, ``CV_rare`` …).
    """

    estimator: str
    title: str
    estimate: float
    std_error: float | None
    interval: Interval | None
    level: float
    parameters: Mapping[str, float]


@dataclass(frozen=True, slots=True)
class HillSummary:
    """Hill numbers of order q = 0, 1, 2: observed and asymptotic (Chao et al. 2014).

    Attributes:
        q: The orders.
        observed: Empirical ``qD``.
        estimated: Asymptotic ``qD``.
        lower: Lower ends of the bootstrap intervals (``None`` without bootstrap).
        upper: Upper ends.
        n_bootstrap: Bootstrap replicates.
        level: Coverage of the intervals.
    """

    q: tuple[int, ...]
    observed: tuple[float, ...]
    estimated: tuple[float, ...]
    lower: tuple[float, ...] | None
    upper: tuple[float, ...] | None
    n_bootstrap: int
    level: float


@dataclass(frozen=True, slots=True)
class PointSummary:
    """Diversity at one sample size or coverage (iNEXT ``estimateD``).

    Attributes:
        base: ``coverage`` (the coverage was given) or ``size`` (the size was given).
        coverage: Sample coverage ``Ĉ(m)``.
        size: Sample size ``m`` (observations, or sampling units for incidence data).
        diversity: ``qD(m)`` for q = 0, 1, 2.
        method: ``rarefaction``, ``observed`` or ``extrapolation``.
        caveats: ``beyond 2n`` (the size more than twice the sample), ``beyond supported range`` (a
            coverage the sample cannot reach)…
        target: The coverage asked for when ``base`` is ``coverage`` (:attr:`coverage` is ``Ĉ(m)``).
    """

    base: str
    coverage: float
    size: float
    diversity: tuple[float, float, float]
    method: str
    caveats: tuple[CaveatNote, ...] = ()
    target: float | None = None


@dataclass(frozen=True, slots=True)
class SharedSummary:
    """Species shared with a second sample (SpadeR ``ChaoShared``).

    Attributes:
        other: The second file.
        s_obs: Observed richness of the two samples.
        observed: ``D12``, detected in both.
        estimates: Name → (estimate, s.e., interval) for ``chao1_shared``, ``chao1_shared_bc``,
            ``ace_shared``.
        own: Each sample's own estimated richness (Chao1-bc), which a shared estimate cannot exceed.
        caveats: ``shared above own richness`` for each estimate that does.
    """

    other: str
    s_obs: tuple[int, int]
    observed: int
    estimates: Mapping[str, tuple[float, float | None, Interval | None]]
    own: tuple[float, float] | None = None
    caveats: tuple[CaveatNote, ...] = ()


@dataclass(frozen=True, slots=True)
class TargetSummary:
    """Extra sampling to reach a coverage or a fraction of the estimated richness (Chao et al. 2009).

    Attributes:
        kind: ``coverage`` or ``richness``.
        target: ``C`` or ``g``.
        current: ``Ĉ`` or ``S_obs/Ŝ`` now.
        additional: Observations (or units) still needed.
        total: ``N + m``.
    """

    kind: str
    target: float
    current: float
    additional: float
    total: float


@dataclass(frozen=True, slots=True)
class CurveSummary:
    """Size- and coverage-based rarefaction/extrapolation curves of q = 0, 1, 2 (iNEXT) with bands.

    Attributes:
        size: Sizes ``m`` of the size-based curve.
        coverage: ``Ĉ(m)`` at those sizes.
        method: ``rarefaction`` / ``observed`` / ``extrapolation`` per size.
        diversity: ``qD(m)`` per order (rows q = 0, 1, 2).
        lower: Lower bands per order (``None`` without bootstrap).
        upper: Upper bands per order.
        cov_coverage: Coverages of the coverage-based curve.
        cov_size: The size at each of those coverages.
        cov_diversity: ``qD`` at those coverages per order.
        cov_lower: Lower bands per order.
        cov_upper: Upper bands per order.
        reference_size: ``N`` (extrapolation beyond ``2N`` is marked).
        n_bootstrap: Replicates of the bands.
        level: Coverage of the bands.
    """

    size: tuple[float, ...]
    coverage: tuple[float, ...]
    method: tuple[str, ...]
    diversity: tuple[tuple[float, ...], ...]
    lower: tuple[tuple[float, ...], ...] | None
    upper: tuple[tuple[float, ...], ...] | None
    cov_coverage: tuple[float, ...]
    cov_size: tuple[float, ...]
    cov_diversity: tuple[tuple[float, ...], ...]
    cov_lower: tuple[tuple[float, ...], ...] | None
    cov_upper: tuple[tuple[float, ...], ...] | None
    reference_size: int
    n_bootstrap: int
    level: float


@dataclass(frozen=True, slots=True)
class RichnessReport:
    """Everything ``knowsum estimate`` prints with the richness toolkit's options.

    Attributes:
        datatype: ``abundance`` (observations) or ``incidence`` (sampling units).
        size: ``n`` (observations) or ``T`` (sampling units).
        n_incidences: ``U`` for incidence data, else ``None``.
        s_obs: Observed richness.
        f: ``f1..f4`` (or ``Q1..Q4``).
        coverage: Sample coverage ``Ĉ`` (Chao & Jost 2012).
        richness: The richness estimate asked for with ``--estimator`` (or ``None``).
        unseen: The KnowSum-family estimate when its estimator was asked for (or ``None``).
        hill: Hill numbers (``--hill``).
        points: ``--at-coverage`` / ``--at-size`` results.
        curve: ``--curve`` curves.
        shared: ``--shared-with`` result.
        targets: ``--target-coverage`` / ``--target-fraction`` results.
        source: The file read.
        format: The format it was read in.
        notes: Remarks for the user.
        caveats: Every caveat of the figures (the KnowSum estimate's, the richness estimate's, Hill
            numbers out of order, targets beyond 2n, a shared estimate above a sample's own richness).
    """

    datatype: str
    size: int
    n_incidences: int | None
    s_obs: int
    f: tuple[int, ...]
    coverage: float
    richness: RichnessSummary | None
    unseen: EstimateReport | None
    hill: HillSummary | None
    points: tuple[PointSummary, ...]
    curve: CurveSummary | None
    shared: SharedSummary | None
    targets: tuple[TargetSummary, ...]
    source: str | None
    format: str | None
    notes: tuple[str, ...] = ()
    caveats: tuple[CaveatNote, ...] = ()
