"""The richness toolkit of ``knowsum estimate``: Chao1/ACE/Chao2/ICE/jackknife, coverage, Hill
numbers, diversity at equal size or coverage, R/E curves, shared species, extra sampling needed.

:func:`richness` reads a file (or takes an abundance/incidence sample), computes what the
:class:`RichnessConfig` asks for and returns one :class:`~knowsum.estimate.record.RichnessReport`
(rendered by :mod:`knowsum.estimate.page`). Statistics come from :mod:`knowsum.stats`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Annotated, Any

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from knowsum.errors import ConfigError, InputFileError, UnknownNameError
from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._richness_titles import RICHNESS_TITLES, richness_title
from knowsum.estimate._run import estimate
from knowsum.estimate._samples import (
    ALL_FORMATS,
    CountMode,
    Sample,
    Source,
    as_sample,
    read_sample,
    unseen_input,
)
from knowsum.estimate.record import (
    CurveSummary,
    HillSummary,
    PointSummary,
    RichnessReport,
    RichnessSummary,
    SharedSummary,
    TargetSummary,
)
from knowsum.records import Caveat, caveat_notes
from knowsum.stats import (
    ESTIMATORS,
    Abundance,
    Incidence,
    StatsError,
    ace_shared,
    additional_for_coverage,
    additional_for_richness,
    chao1_shared,
    chao1_shared_bc,
    coverage_at_size,
    diversity_at_size,
    estimate_richness,
    hill_numbers,
    observed_shared,
    rarefaction_extrapolation,
    sample_coverage,
    size_at_coverage,
)
from knowsum.stats.bootstrap import check_resamples
from knowsum.stats.caveats import beyond_double, shared_above_own, unreachable_coverage
from knowsum.stats.q0_prediction import Q0_METHOD, q0_attainable, q0_predict, q0_prediction
from knowsum.stats.rarefaction import CurvePoints

__all__ = ["RICHNESS_ESTIMATORS", "RICHNESS_TITLES", "RichnessConfig", "richness"]

RICHNESS_ESTIMATORS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "chao1-classic": ("chao1", "abundance"),
        "chao1-bc": ("chao1-bc", "abundance"),
        "chao1-bc-vegan": ("chao1-bc-vegan", "abundance"),
        "ichao1": ("ichao1", "abundance"),
        "ace": ("ace", "abundance"),
        "ace-1": ("ace-1", "abundance"),
        "jack1": ("jackknife1", "both"),
        "jack2": ("jackknife2", "both"),
        "chao2": ("chao2", "incidence"),
        "chao2-bc": ("chao2-bc", "incidence"),
        "ichao2": ("ichao2", "incidence"),
        "ice": ("ice", "incidence"),
        "ice-1": ("ice-1", "incidence"),
    }
)
"""CLI name → (name in ``knowsum.stats``, the data it needs)."""


class RichnessConfig(BaseModel):
    """What ``knowsum estimate`` computes beyond the KnowSum estimate (each part optional).

    ``estimator`` is a KnowSum-family name (``knowsum.stats.ESTIMATORS``: the estimate of
    :func:`knowsum.estimate.estimate` is included) or a richness name (:data:`RICHNESS_ESTIMATORS`);
    ``None`` picks ``et`` for abundance data and ``chao2`` for incidence data.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    estimator: str | None = Field(None, description="estimator name (None: et, or chao2 on incidence)")
    format: str | None = Field(None, description="file format (None = auto-detect)")
    count: CountMode = Field("abundance", description="abundance, or incidence (queries as units)")
    units: int | None = Field(None, ge=1, description="T when some sampling units yielded nothing")
    hill: bool = Field(False, description="Hill numbers q = 0, 1, 2, observed and asymptotic")
    at_coverage: tuple[float, ...] = Field((), description="coverages at which to give qD")
    at_size: tuple[float, ...] = Field((), description="sizes at which to give qD")
    curve: bool = Field(False, description="size- and coverage-based R/E curves with bands")
    shared_with: str | None = Field(None, description="second file for the shared-species estimate")
    target_coverage: float | None = Field(None, gt=0.0, lt=1.0, description="coverage to reach")
    target_fraction: float | None = Field(None, gt=0.0, lt=1.0, description="fraction g of Ŝ to reach")
    n_bootstrap: Annotated[int, AfterValidator(check_resamples)] = Field(
        200, ge=0, description="bootstrap replicates of Hill/curve intervals (0 = none, else at least 2)"
    )
    level: float = Field(0.95, gt=0.0, lt=1.0, description="interval coverage")
    seed: int = Field(0, ge=0, description="bootstrap seed")
    unseen: EstimateConfig = Field(default_factory=EstimateConfig, description="KnowSum estimate settings")

    @field_validator("estimator")
    @classmethod
    def _known_estimator(cls, value: str | None) -> str | None:
        known = (*ESTIMATORS, *RICHNESS_ESTIMATORS)
        if value is not None and value not in known:
            raise UnknownNameError("estimator", value, tuple(sorted(known)))
        return value

    @field_validator("format")
    @classmethod
    def _known_format(cls, value: str | None) -> str | None:
        if value is not None and value not in ALL_FORMATS:
            raise UnknownNameError("format", value, tuple(sorted(ALL_FORMATS)))
        return value

    @field_validator("at_coverage")
    @classmethod
    def _coverages(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        for c in value:
            if not 0.0 < c < 1.0:
                raise ValueError(f"a coverage must lie strictly between 0 and 1, got {c:g}")
        return value

    @field_validator("at_size")
    @classmethod
    def _sizes(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        for m in value:
            if not m >= 1:
                raise ValueError(f"a sample size must be >= 1, got {m:g}")
        return value


def _tuple(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def _richness(data: Abundance | Incidence, name: str, level: float) -> tuple[RichnessSummary, list[Caveat]]:
    stats_name, needs = RICHNESS_ESTIMATORS[name]
    kind = "abundance" if isinstance(data, Abundance) else "incidence"
    if needs not in ("both", kind):
        other = "--count incidence or --format incidence-freq" if needs == "incidence" else "counts"
        raise ConfigError(f"estimator {name} needs {needs} data, this is {kind} data (use {other})")
    est = estimate_richness(data, stats_name, conf=level)
    found = RichnessSummary(
        name,
        richness_title(name, est.parameters),
        est.estimate,
        est.std_error,
        est.interval,
        level,
        dict(est.parameters),
    )
    return found, caveat_notes(est.caveats)


def _hill(data: Abundance | Incidence, config: RichnessConfig) -> tuple[HillSummary, list[Caveat]]:
    h = hill_numbers(data, n_bootstrap=config.n_bootstrap, conf=config.level, seed=config.seed)
    lower = None if h.lower is None else _tuple(h.lower)
    upper = None if h.upper is None else _tuple(h.upper)
    found = HillSummary(
        h.q, _tuple(h.observed), _tuple(h.estimated), lower, upper, h.n_bootstrap, config.level
    )
    return found, caveat_notes(h.caveats)


def _point(
    data: Abundance | Incidence, base: str, coverage: float, size: float, config: RichnessConfig
) -> PointSummary:
    d = diversity_at_size(data, [size])[:, 0]
    pred, ci_lo, ci_hi = q0_predict(data, [size], config.n_bootstrap, config.level, config.seed)
    n = data.size
    method = "rarefaction" if size < n else "observed" if size == n else "extrapolation"
    figure = f"at coverage {coverage:g}" if base == "coverage" else f"at size {size:g}"
    found = [beyond_double(size, n, figure)]
    target = None
    if base == "coverage":
        target, coverage = coverage, float(coverage_at_size(data, [size])[0])
        found.append(unreachable_coverage(target, coverage, size))
    caveats = caveat_notes([c for c in found if c is not None])
    diversity = (float(d[0]), float(d[1]), float(d[2]))
    lo, hi = (float(x[0]) for x in _attainable(data, ci_lo, ci_hi, [size]))
    ci = (lo, hi) if np.isfinite(ci_lo[0]) and np.isfinite(ci_hi[0]) else None
    raw = None if ci is None or ci == (ci_lo[0], ci_hi[0]) else (float(ci_lo[0]), float(ci_hi[0]))
    return PointSummary(
        base,
        coverage,
        size,
        diversity,
        method,
        tuple(caveats),
        target,
        ci,
        pred.total(0),
        pred.reasons[0],
        pred.method,
        config.level,
        raw,
    )


def _predictions(
    data: Abundance | Incidence, curve: CurvePoints, level: float
) -> tuple[tuple[tuple[float, float] | None, ...], tuple[str | None, ...]]:
    """The q = 0 prediction interval of ``N_tot`` at each size of a curve, and why each is n/a."""
    sd = None if curve.std_error is None else curve.std_error[0]
    pred = q0_prediction(data, curve.size, curve.diversity[0], sd, level)
    return tuple(pred.total(j) for j in range(curve.size.size)), pred.reasons


def _rows(values: Any) -> tuple[tuple[float, ...], ...]:
    return tuple(_tuple(row) for row in values)


def _attainable(data: Abundance | Incidence, lower: Any, upper: Any, sizes: Any) -> tuple[Any, Any]:
    """A q = 0 band cut to the attainable range at ``m ≥ n`` (``Q0_FLOOR``)."""
    return q0_attainable(lower, upper, sizes, data.size, data.s_obs, isinstance(data, Incidence))


def _bands(curve: Any, data: Abundance | Incidence) -> tuple[Any, Any]:
    """A curve's ``(lower, upper)`` bands, q = 0's cut to the attainable range (``None`` without)."""
    if curve.lower is None or curve.upper is None:
        return None, None
    lo, hi = _attainable(data, curve.lower[0], curve.upper[0], curve.size)
    return (_tuple(lo), *_rows(curve.lower[1:])), (_tuple(hi), *_rows(curve.upper[1:]))


def _curve(data: Abundance | Incidence, config: RichnessConfig) -> CurveSummary:
    re = rarefaction_extrapolation(
        data, endpoint=3 * data.size, n_bootstrap=config.n_bootstrap, conf=config.level, seed=config.seed
    )
    s, c = re.size_based, re.coverage_based
    pred, reasons = _predictions(data, s, config.level)
    cov_pred, cov_reasons = _predictions(data, c, config.level)
    return CurveSummary(
        _tuple(s.size),
        _tuple(s.coverage),
        s.method,
        _rows(s.diversity),
        *_bands(s, data),
        _tuple(c.coverage),
        _tuple(c.size),
        _rows(c.diversity),
        *_bands(c, data),
        re.reference_size,
        re.n_bootstrap,
        config.level,
        pred,
        reasons,
        cov_pred,
        cov_reasons,
        Q0_METHOD,
        data.s_obs,
        None if s.lower is None or s.upper is None else (_tuple(s.lower[0]), _tuple(s.upper[0])),
        None if c.lower is None or c.upper is None else (_tuple(c.lower[0]), _tuple(c.upper[0])),
    )


def _shared(sample: Sample, other: str, config: RichnessConfig, label: str) -> SharedSummary:
    if os.path.realpath(other) == os.path.realpath(label):
        raise ConfigError(
            f"--shared-with {other} is the sample itself: a sample shares every item with itself; "
            "give a second sample"
        )
    second = read_sample(other, None, "abundance")
    for path, s in ((label, sample), (other, second)):
        if s.labels is None or isinstance(s.data, Incidence):
            raise InputFileError(
                path, "--shared-with needs labelled abundance data (ITEM<TAB>COUNT or items)"
            )
    a, b = sample.labels or {}, second.labels or {}
    keys = list(dict.fromkeys([*a, *b]))
    x1, x2 = [a.get(k, 0) for k in keys], [b.get(k, 0) for k in keys]
    obs = observed_shared(x1, x2)
    estimates = {}
    for name, value in (
        ("chao1_shared", chao1_shared(x1, x2, conf=config.level)),
        ("chao1_shared_bc", chao1_shared_bc(x1, x2, conf=config.level)),
        (
            "ace_shared",
            ace_shared(x1, x2, n_bootstrap=config.n_bootstrap, conf=config.level, seed=config.seed),
        ),
    ):
        estimates[name] = (value.estimate, value.std_error, value.interval)
    own = tuple(
        estimate_richness(Abundance.from_counts([c for c in x if c]), "chao1-bc").estimate for x in (x1, x2)
    )
    caveats = [
        shared_above_own(value, {label: own[0], other: own[1]}, name)
        for name, (value, _, _) in estimates.items()
    ]
    return SharedSummary(
        other,
        obs.s_obs,
        obs.observed_shared,
        estimates,
        (own[0], own[1]),
        tuple(caveat_notes([c for c in caveats if c is not None])),
    )


def _targets(data: Abundance | Incidence, config: RichnessConfig, label: str) -> tuple[TargetSummary, ...]:
    out = []
    for option, value, function in (
        ("--target-coverage", config.target_coverage, additional_for_coverage),
        ("--target-fraction", config.target_fraction, additional_for_richness),
    ):
        if value is None:
            continue
        try:
            extra = function(data, value)
        except StatsError as exc:
            raise ConfigError(f"{label}: {option} {value:g}: {exc}") from exc
        out.append(TargetSummary(extra.kind, extra.target, extra.current, extra.additional, extra.total))
    return tuple(out)


def richness(source: Source, config: RichnessConfig | None = None) -> RichnessReport:
    """Coverage, the chosen estimate and every optional part of ``config`` for ``source``.

    Raises:
        InputFileError: The file is missing or malformed.
        ConfigError: An estimator that does not fit the data, a target already reached.
        StatsError: An estimator that cannot be applied.
    """
    config = config or RichnessConfig()
    sample, label = as_sample(source, config.format, config.count, config.units)
    data = sample.data
    incidence = isinstance(data, Incidence)
    name = config.estimator or ("chao2" if incidence else "et")
    unseen = None
    if name in ESTIMATORS:
        unseen = replace(estimate(unseen_input(sample, name), config.unseen), source=label)
    rich, rich_caveats = (None, []) if name in ESTIMATORS else _richness(data, name, config.level)
    points = [_point(data, "coverage", c, size_at_coverage(data, c), config) for c in config.at_coverage]
    points += [_point(data, "size", float(coverage_at_size(data, [m])[0]), m, config) for m in config.at_size]
    hill, hill_caveats = _hill(data, config) if config.hill else (None, [])
    where = label or "sample"
    shared = None if config.shared_with is None else _shared(sample, config.shared_with, config, where)
    caveats = caveat_notes(
        unseen.caveats if unseen is not None else (),
        rich_caveats,
        hill_caveats,
        *(p.caveats for p in points),
        shared.caveats if shared is not None else (),
    )
    return RichnessReport(
        datatype="incidence" if incidence else "abundance",
        size=data.size,
        n_incidences=data.U if isinstance(data, Incidence) else None,
        s_obs=data.s_obs,
        f=tuple(data.f(k) for k in range(1, 5)),
        coverage=sample_coverage(data).coverage,
        richness=rich,
        unseen=unseen,
        hill=hill,
        points=tuple(points),
        curve=_curve(data, config) if config.curve else None,
        shared=shared,
        targets=_targets(data, config, where),
        source=label,
        format=sample.format or None,
        caveats=tuple(caveats),
    )
