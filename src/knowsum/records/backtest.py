"""The back-test of a census (``knowsum census backtest``) and the trust horizon every census carries.

::

    Backtest            backtest.json: one run's queries split again and again, every predictor scored
    ├── rows            BacktestRow per (t, predictor): bias, relative RMSE, interval coverage, band
    ├── skipped         the t a run is too small for, and why
    └── horizon         TrustHorizon of the census's own estimator
    TrustHorizon        CensusResult.horizon: how far this run's own data back-tests its estimate
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["BACKTEST_VERSION", "Backtest", "BacktestRow", "BacktestSkip", "TrustHorizon"]

BACKTEST_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class TrustHorizon(_Record):
    """The largest ``t`` at which the run's own queries back-test its estimator within the limits."""

    status: Literal["back-tested", "fails", "too-small", "not-applicable"] = Field(
        description="back-tested: some t passes; fails: t = 1 already misses a limit; too-small: no t "
        "can be checked; not-applicable: the estimator has no back-test"
    )
    t: float | None = Field(description="largest t of the grid passing both limits, as every smaller t")
    error: float | None = Field(description="relative RMSE at that t (or at the first t when it fails)")
    coverage: float | None = Field(description="share of splits whose 95 % interval covered the truth, there")
    target_t: float = Field(description="the census's t (the extrapolation the estimate makes)")
    max_error: float = Field(description="limit on the relative RMSE")
    min_coverage: float = Field(description="limit on the interval coverage")
    estimator: str = Field(description="the predictor back-tested (the census's estimator and k)")
    checked: list[float] = Field(description="the t that could be checked")
    repeats: int = Field(description="random splits per t")
    resamples: int = Field(description="bootstrap resamples per split (the interval)")
    message: str = Field(description="the sentence every surface prints")


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
    diverged: float = Field(description="share of splits whose prediction overflowed")


class BacktestSkip(_Record):
    """A ``t`` the run cannot check."""

    t: float
    reason: str


class Backtest(_Record):
    """What ``knowsum census backtest`` computed (``backtest.json``)."""

    FROM_CENSUS: ClassVar[tuple[str, ...]] = ("task", "model", "counting", "n_queries", "n_seen")
    """The fields a back-test repeats from its census, by name (``CensusResult.carried``)."""

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
