"""The records of the richness toolkit: every number ``knowsum estimate`` prints beside the KnowSum
estimate (richness, Hill numbers, R/E curves, shared species, sampling targets).

:func:`knowsum.estimate.richness` fills a :class:`RichnessReport`; :mod:`knowsum.estimate.page`
renders it as the terminal table and as the JSON object of ``--json``. The estimate's whole result
family lives here: :class:`EstimateReport` (what :func:`knowsum.estimate.estimate` returns, the
statistics layer's :class:`~knowsum.stats.Summary` with the file it was read from) and
:class:`RichnessReport` (what :func:`knowsum.estimate.richness` returns, the KnowSum estimate among
its figures).

The reports are not written to disk, so they are frozen value objects rather than versioned
:class:`~knowsum.records.Record` s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields

from knowsum.records import Caveat
from knowsum.stats import Summary

__all__ = [
    "CurveSummary",
    "EstimateReport",
    "HillSummary",
    "PointSummary",
    "RichnessReport",
    "RichnessSummary",
    "SharedSummary",
    "TargetSummary",
]

Interval = tuple[float, float]


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
        interval: iNEXT's bootstrap confidence interval of ``q0`` (``None`` without replicates), cut to
            the attainable range at ``m ≥ n`` (:data:`knowsum.stats.q0_prediction.Q0_FLOOR`).
        prediction: The prediction interval of the richness ``N_tot(m)`` that ``m − n`` further
            observations show (:mod:`knowsum.stats.q0_prediction`), or ``None`` (n/a).
        prediction_reason: Why :attr:`prediction` is n/a, or ``None``.
        prediction_method: How it is formed.
        level: Coverage of both intervals.
        interval_inext: iNEXT's own interval where it leaves the attainable range at ``m ≥ n``
            (``None``: :attr:`interval` is iNEXT's).
    """

    base: str
    coverage: float
    size: float
    diversity: tuple[float, float, float]
    method: str
    caveats: tuple[Caveat, ...] = ()
    target: float | None = None
    interval: Interval | None = None
    prediction: Interval | None = None
    prediction_reason: str | None = None
    prediction_method: str | None = None
    level: float = 0.95
    interval_inext: Interval | None = None


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
    caveats: tuple[Caveat, ...] = ()


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
        lower: Lower bands per order (``None`` without bootstrap); q = 0's cut to the attainable
            range at ``m ≥ N`` (:data:`knowsum.stats.q0_prediction.Q0_FLOOR`).
        upper: Upper bands per order (q = 0's cut likewise).
        cov_coverage: Coverages of the coverage-based curve.
        cov_size: The size at each of those coverages.
        cov_diversity: ``qD`` at those coverages per order.
        cov_lower: Lower bands per order.
        cov_upper: Upper bands per order.
        reference_size: ``N`` (extrapolation beyond ``2N`` is marked).
        n_bootstrap: Replicates of the bands.
        level: Coverage of the bands.
        prediction: The q = 0 prediction interval of ``N_tot(m)`` at each size of the size-based curve
            (``None``: n/a; :mod:`knowsum.stats.q0_prediction`).
        prediction_reasons: Why each is n/a, or ``None``.
        cov_prediction: The same at each size of the coverage-based curve.
        cov_prediction_reasons: Why each is n/a.
        prediction_method: How they are formed.
        s_obs: Observed richness (``U = N_tot − S_obs``).
        inext_q0: iNEXT's own q = 0 band ``(lower, upper)`` of the size-based curve (cut at 0 only).
        inext_cov_q0: The same of the coverage-based curve.
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
    prediction: tuple[Interval | None, ...] = ()
    prediction_reasons: tuple[str | None, ...] = ()
    cov_prediction: tuple[Interval | None, ...] = ()
    cov_prediction_reasons: tuple[str | None, ...] = ()
    prediction_method: str | None = None
    s_obs: int = 0
    inext_q0: tuple[tuple[float, ...], tuple[float, ...]] | None = None
    inext_cov_q0: tuple[tuple[float, ...], tuple[float, ...]] | None = None


@dataclass(frozen=True, slots=True)
class EstimateReport(Summary):
    """What ``knowsum estimate`` prints: a :class:`Summary`, its notes with the warnings the estimators
    raised (``warning: …``), and the file it was read from (``knowsum.estimate.page`` renders it).

    Attributes:
        source: The observation file as given, or ``None`` when the sample was passed in memory.
        format: Format the file was read in (``items``, ``counts``, ``prevalence``), or ``None``.
        format_detected: Whether that format was auto-detected (``None`` without a file).
        format_reason: Why that format was chosen (``None`` without a file).
    """

    source: str | None = None
    format: str | None = None
    format_detected: bool | None = None
    format_reason: str | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        """Bootstrap interval of ``Û(t)``; ``None`` without bootstrap or when :attr:`interval_reason`
        says why it is not shown."""
        return None if self.interval_reason else self.estimate.interval

    @classmethod
    def of(
        cls,
        summary: Summary,
        notes: tuple[str, ...],
        source: str | None = None,
        format_read: tuple[str, bool, str] | None = None,
    ) -> EstimateReport:
        """``summary`` (every field as it is, ``notes`` replacing its notes) with the file details;
        ``format_read`` is ``(format, detected, reason)`` when the sample was read from a file."""
        figures = {f.name: getattr(summary, f.name) for f in fields(Summary)} | {"notes": notes}
        fmt, detected, reason = format_read or (None, None, None)
        return cls(**figures, source=source, format=fmt, format_detected=detected, format_reason=reason)


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
    caveats: tuple[Caveat, ...] = ()
