"""The back-test of a census (``knowsum census backtest``) and the trust horizon every census carries.

::

    Backtest            backtest.json: one run's queries split again and again, every predictor scored
    ├── rows            BacktestRow per (t, predictor): bias, RMSE (to U and N_tot), both intervals'
    │                   coverage and interval score, noise floor, Monte Carlo s.e. of each
    ├── skipped         the t a run is too small for, and why
    ├── size_curve      SizePoint per (t, kept): the error against kept size, extrapolated to the run
    └── horizon         TrustHorizon of the census's own estimator
    TrustHorizon        CensusRecord.horizon: how far this run's own data back-tests its estimate

Version 2 added the prediction interval, the scores against N_tot, the noise floor, the Monte Carlo
errors and the size curve; every added field has a default, so version-1 files still load.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from knowsum.census._record_domains import Count, Factor, Share, Size

__all__ = ["BACKTEST_VERSION", "Backtest", "BacktestRow", "BacktestSkip", "SizePoint", "TrustHorizon"]

BACKTEST_VERSION = 2


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class TrustHorizon(_Record):
    """The largest ``t`` at which the run's own queries back-test its estimator within the limits.

    Fields after ``message`` were added with the prediction-interval test; records written before
    it load with them unset (their ``error``/``coverage`` were the RMSE and the confidence interval's
    coverage against a 20 % / 90 % rule).
    """

    status: Literal["back-tested", "fails", "too-small", "not-applicable", "exact", "no-interval"] = Field(
        description="back-tested: some t passes; fails: the first t checked already fails; too-small: no "
        "t can be checked; not-applicable: the estimator has no back-test; exact: every query named the "
        "same items, nothing new to predict; no-interval: the census prints no prediction interval to "
        "back-test (all singletons, or a nonlinear estimator without a bootstrap)"
    )
    t: Factor | None = Field(
        description="largest t the splits reached (held-back / kept queries) passing the test, as every "
        "smaller t"
    )
    error: Size | None = Field(description="relative RMSE (to U) at that t (or at the first t when it fails)")
    coverage: Share | None = Field(
        description="share of splits whose 95 % prediction interval covered the truth, there"
    )
    target_t: Factor = Field(description="the census's t (the extrapolation the estimate makes)")
    max_error: Size = Field(description="limit on |bias| / N_tot (before: on the relative RMSE)")
    min_coverage: Share = Field(description="limit on the prediction interval's coverage (99 % upper bound)")
    estimator: str = Field(description="the predictor back-tested (the census's estimator and k)")
    checked: list[Factor] = Field(description="the t that could be checked")
    repeats: Count = Field(description="random splits per t")
    resamples: Count = Field(description="bootstrap resamples per split (the interval)")
    message: str = Field(description="the sentence every surface prints")
    t_asked: Factor | None = Field(
        default=None, description="the grid t behind t (t is what the splits reached)"
    )
    kept_queries: Count | None = Field(default=None, description="kept queries of a split at t")
    bias: float | None = Field(default=None, description="bias / mean N_tot of the splits at t")
    bias_se: Size | None = Field(default=None, description="its Monte Carlo standard error")
    coverage_bound: Share | None = Field(
        default=None, description="one-sided 99 % Wilson upper bound of the prediction-interval coverage"
    )
    noise_floor: Size | None = Field(
        default=None, description="sqrt(mean U) / mean U at t: the relative RMSE an oracle would still have"
    )
    splits: Count | None = Field(default=None, description="splits of the deciding t (added in blocks)")
    decided: bool | None = Field(
        default=None, description="the test decided before the split cap (False: decided at the cap)"
    )


class SizePoint(_Record):
    """The error at one ``t`` of splits keeping ``kept`` queries (the size curve)."""

    t: float
    kept_queries: int
    relative_rmse: float | None
    relative_rmse_se: float | None
    observed: float
    estimator: str | None = Field(
        None, description="the census's own estimator, measured here (None: older file)"
    )


class BacktestRow(_Record):
    """One predictor at one ``t``, over every split."""

    estimator: str
    family: str = Field(description="panel of the figure")
    t: float = Field(description="the t asked for")
    t_effective: float = Field(description="held-back queries / kept queries")
    kept_queries: int
    predicted: float | None = Field(description="mean prediction, max(Û, 0); None: diverged")
    observed: float = Field(description="mean new items the held-back queries showed")
    bias: float | None
    relative_bias: float | None
    relative_rmse: float | None
    coverage: float = Field(description="share of splits whose interval covered the observed value")
    no_interval: float = Field(description="share of splits whose interval was n/a")
    band: tuple[float, float] | None = Field(description="2.5 %–97.5 % of the predictions")
    diverged: float = Field(description="share of splits whose prediction is not finite")
    repeats: int | None = Field(default=None, description="splits behind this row")
    ci_method: str | None = Field(default=None, description="what the confidence interval is")
    pi_method: str | None = Field(default=None, description="what the prediction interval is")
    pi_coverage: float | None = Field(
        default=None, description="share of splits whose prediction interval covered U"
    )
    pi_no_interval: float | None = Field(
        default=None, description="share of splits whose prediction interval was n/a"
    )
    ci_score: float | None = Field(default=None, description="mean interval score of the confidence interval")
    pi_score: float | None = Field(default=None, description="mean interval score of the prediction interval")
    n_total: float | None = Field(default=None, description="mean N_tot of a split: kept N_seen + U")
    relative_bias_total: float | None = Field(default=None, description="bias / mean N_tot")
    relative_rmse_total: float | None = Field(default=None, description="RMSE / mean N_tot")
    noise_floor: float | None = Field(
        default=None, description="sqrt(mean U): the Poisson estimate of sd(U | kept)"
    )
    bias_se: float | None = Field(default=None, description="Monte Carlo s.e. of bias")
    relative_rmse_se: float | None = Field(default=None, description="Monte Carlo s.e. of relative_rmse")
    coverage_se: float | None = Field(default=None, description="Monte Carlo s.e. of coverage")
    pi_coverage_se: float | None = Field(default=None, description="Monte Carlo s.e. of pi_coverage")

    @model_validator(mode="after")
    def _no_se_from_one_split(self) -> BacktestRow:
        """A Monte Carlo standard error needs two splits: from one it is n/a (``None``), never the
        ``0`` the binomial formula gives (a file written before this rule is read so too)."""
        if self.repeats is not None and self.repeats < 2:
            for name in ("bias_se", "relative_rmse_se", "coverage_se", "pi_coverage_se"):
                object.__setattr__(self, name, None)
        return self


class BacktestSkip(_Record):
    """A ``t`` the run cannot check."""

    t: float
    reason: str


class Backtest(_Record):
    """What ``knowsum census backtest`` computed (``backtest.json``)."""

    FROM_CENSUS: ClassVar[tuple[str, ...]] = ("task", "model", "counting", "n_queries", "n_seen")
    """The fields a back-test repeats from its census, by name (``CensusRecord.carried``)."""

    version: int = BACKTEST_VERSION
    run: str = Field(description="the census run directory")
    task: str
    model: str
    counting: str
    n_queries: int
    n_seen: int
    ts: list[float]
    repeats: int
    resamples: int
    level: float
    seed: int
    heldout_shuffles: int = Field(description="splits of the held-out choice of k inside each split")
    estimators: list[str]
    rows: list[BacktestRow]
    skipped: list[BacktestSkip]
    horizon: TrustHorizon
    seconds: float
    size_curve: list[SizePoint] = Field(default_factory=list, description="error against kept size")
    size_extrapolation: dict[str, float] = Field(
        default_factory=dict,
        description="t → relative RMSE extrapolated to kept = all queries (an extrapolation of the fit)",
    )
