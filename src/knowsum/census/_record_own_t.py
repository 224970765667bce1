"""The census's error at its own ``t`` (``own_t_check`` of a census ``result.json``): a parametric
bootstrap from a community fitted to the census (:mod:`knowsum.stats.community`), scoring the census's
own estimator and prediction interval against simulated truth. Optional: records written before it
load with ``own_t_check = None``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["OwnTCheck"]


class OwnTCheck(BaseModel):
    """How far off the census's ``Û(t)`` is expected to be at its own ``t``, simulated."""

    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")

    t: float = Field(description="the census's t")
    n_queries: int = Field(description="queries of each simulated census (the census's own)")
    replicates: int = Field(description="simulated censuses")
    seed: int | None = Field(description="seed of the simulation")
    estimator: str = Field(description="the census's estimator, as resolved on the census (its k kept)")
    k: int | None = Field(description="truncation level, the census's own (not re-selected per replicate)")
    community_size: int = Field(description="items of the fitted community: N_seen + f0")
    undetected: int = Field(description="f0: undetected items added, of equal probability (Chao1's f̂0)")
    coverage_hat: float = Field(description="sample coverage Ĉ of the census (detected items' share)")
    distinct: bool = Field(description="queries never repeat an item: drawn without replacement within one")
    mean_new: float = Field(description="E U(t): mean new items of the simulated continuations")
    mean_total: float = Field(description="E N_tot(t)")
    error: float | None = Field(description="RMSE of Û(t) / E U(t)")
    error_total: float | None = Field(description="RMSE of Û(t) / E N_tot(t): the error of N̂_tot")
    error_se: float | None = Field(description="Monte Carlo s.e. of error_total")
    bias: float | None = Field(description="E(Û − U) / E U")
    bias_items: float | None = Field(
        None, description="E(Û − U) in items (b̂, whose square widens the prediction interval); None before"
    )
    coverage: float = Field(description="share of the 95 % prediction intervals holding the realised U")
    coverage_se: float = Field(description="binomial s.e. of coverage")
    unavailable: float = Field(description="share of replicates whose prediction interval is n/a (a miss)")
    noise_floor: float | None = Field(description="1/sqrt(E U): relative s.d. of U itself (Poisson)")
    message: str = Field(description="the sentence printed beside N̂_tot")
