"""The richness part of a census record, and what ``census compare --at-coverage`` and
``census overlap`` produce: the numbers ecologists read beside the KnowSum headline.

- :class:`RichnessInfo` (the ``richness`` field of a census ``result.json``, schema version 5):
  sample coverage ``Ĉ`` (Chao & Jost 2012), the bias-corrected Chao estimate of the run's counting
  mode (Chao1-bc on mentions, Chao2-bc on incidences) with its s.e. and log-normal interval, and
  asymptotic Hill numbers ``q = 0, 1, 2`` (Chao et al. 2014) with bootstrap intervals;
- :class:`CoverageRank` — one run ranked at equal sample coverage (iNEXT ``estimateD``);
- :class:`Overlap` — the items two runs share (observed, Chao1-shared / Chao2-shared and their
  bias-corrected forms).

Each number carries the name of its method, so a page or a table never shows an unnamed figure.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from knowsum.records import Caveat

__all__ = [
    "ChaoEstimate",
    "CoverageRank",
    "EqualCoverage",
    "HillEstimate",
    "Overlap",
    "RichnessInfo",
    "SharedValue",
]

DataKind = Literal["abundance", "incidence"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class ChaoEstimate(_Record):
    """One richness estimate with its standard error and interval."""

    name: str = Field(description="estimator: chao1-bc (mentions) or chao2-bc (incidences)")
    method: str = Field(description="its formula and reference")
    estimate: float = Field(description="Ŝ (≥ S_obs = N_seen)")
    std_error: float | None = Field(description="standard error (None when the variance is undefined)")
    interval: tuple[float, float] | None = Field(description="log-normal interval (Chao 1987)")
    level: float = Field(description="confidence level of the interval")


class HillEstimate(_Record):
    """Hill numbers ``qD = (Σ p_i^q)^{1/(1−q)}``, observed and asymptotic (Chao et al. 2014)."""

    q: list[int] = Field(description="orders: 0 richness, 1 exp(Shannon), 2 inverse Simpson")
    observed: list[float] = Field(description="qD of the sample (p_i = X_i/n)")
    estimated: list[float | None] = Field(
        description="asymptotic qD (Chao et al. 2014; iNEXT AsyD); None where undefined (q = 2 needs an "
        "item seen twice)"
    )
    lower: list[float | None] | None = Field(description="lower ends of the bootstrap intervals")
    upper: list[float | None] | None = Field(description="upper ends of the bootstrap intervals")
    n_bootstrap: int = Field(description="bootstrap replicates used (0: no interval)")
    level: float
    method: str = Field(description="the estimators and their references")


class RichnessInfo(_Record):
    """Coverage, Chao estimate and Hill numbers of a census sample (module docstring)."""

    data: DataKind = Field(description="abundance (counting = mention) or incidence (counting = incidence)")
    size: int = Field(description="n observations (abundance) or T responses as sampling units (incidence)")
    coverage: float = Field(description="sample coverage Ĉ in [0, 1]")
    coverage_method: str = Field(description="the coverage formula and reference")
    chao: ChaoEstimate
    hill: HillEstimate
    notes: list[str] = Field(default_factory=list, description="what could not be computed, and why")
    caveats: list[Caveat] = Field(
        default_factory=list,
        description="tiny sample, Hill numbers out of order… (also in the run's caveats)",
    )


class CoverageRank(_Record):
    """One run at the comparison's common coverage ``C`` (iNEXT ``estimateD``, ``q = 0``)."""

    model: str
    task: str
    data: DataKind
    size: int = Field(description="the run's reference size n (or T)")
    coverage: float = Field(description="the run's sample coverage Ĉ(n)")
    coverage_double: float = Field(description="Ĉ(2n), the coverage of the doubled sample")
    n_total: float | None = Field(description="the KnowSum N̂_tot(t) of the run")
    t: float
    at_size: float = Field(description="the size m with Ĉ(m) = C")
    method: str = Field(description="rarefaction, observed or extrapolation (beyond 2n: flagged)")
    beyond_double: bool = Field(description="m > 2n: past the reliable extrapolation range")
    richness: float = Field(description="q = 0 diversity (richness) at coverage C")
    lower: float | None = Field(
        None,
        description="lower end of the bootstrap band, cut to the attainable range where m ≥ n (band_method)",
    )
    upper: float | None = Field(None, description="upper end of the bootstrap band (cut likewise)")
    band_inext: tuple[float, float] | None = Field(
        None,
        description="iNEXT's own band where it leaves the attainable range (None: lower/upper are iNEXT's)",
    )
    prediction_interval: tuple[float, float] | None = Field(
        None, description="prediction interval of the new items U the m − n further observations show"
    )
    prediction_interval_total: tuple[float, float] | None = Field(
        None, description="prediction interval of the richness N_tot(m) = N_seen + U (None: n/a)"
    )
    prediction_reason: str | None = Field(None, description="why the prediction interval is n/a")
    prediction_method: str | None = Field(None, description="how the prediction interval was formed")
    caveats: list[Caveat] = Field(
        default_factory=list, description="beyond 2n, a tiny sample at m, and the run's own caveats"
    )


class EqualCoverage(_Record):
    """Runs ranked at one sample coverage next to their KnowSum ranking."""

    coverage: float = Field(description="the common coverage C")
    source: str = Field(description="given, or the lowest Ĉ(2n) among the runs (iNEXT's default)")
    level: float
    n_bootstrap: int
    rows: list[CoverageRank] = Field(description="the runs in the order given")


class SharedValue(_Record):
    """One estimate of the number of shared items."""

    name: str
    method: str
    estimate: float
    std_error: float | None
    interval: tuple[float, float] | None


class Overlap(_Record):
    """What two census runs share (``knowsum census overlap``)."""

    runs: tuple[str, str] = Field(description="the two run directories")
    models: tuple[str, str]
    task: str
    criterion: str
    data: DataKind
    sizes: tuple[int, int] = Field(description="n (or T) of each run")
    n_seen: tuple[int, int] = Field(description="N_seen of each run")
    observed_shared: int = Field(description="D12: items counted in both runs")
    estimates: list[SharedValue]
    level: float
    caveats: list[Caveat] = Field(
        default_factory=list, description="a shared estimate above a run's own richness, tiny samples…"
    )
