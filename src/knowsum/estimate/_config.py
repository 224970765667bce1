"""The estimate configuration: one validated pydantic record (the options of ``knowsum estimate``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator

from knowsum.errors import UnknownNameError
from knowsum.estimate._observations import FORMATS, Format
from knowsum.stats import ESTIMATORS, IntervalMethod
from knowsum.stats.bootstrap import check_resamples
from knowsum.stats.unseen import MAX_K, MAX_T

__all__ = ["EstimateConfig"]


class EstimateConfig(BaseModel):
    """How to estimate the unseen items of a sample (defaults: KnowSum's ``et`` at ``t = 100``).

    An unknown ``estimator`` or ``format`` raises :class:`~knowsum.errors.UnknownNameError` (it
    lists the known names); every other invalid value raises pydantic's ``ValidationError``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    estimator: str = Field("et", description="estimator name (knowsum.stats.ESTIMATORS); KnowSum: et")
    t: float = Field(
        100.0,
        gt=0.0,
        le=MAX_T,
        allow_inf_nan=False,
        description="extrapolation factor t: U(t) counts new items in t·n more observations",
    )
    k: int | Literal["auto"] | None = Field(
        "auto",
        description="truncation k for et: 'auto' (held-out choice among 6, 8, 10), an integer in "
        "[1, 50] (as in the census), or None for the default 8",
    )
    n_bootstrap: Annotated[int, AfterValidator(check_resamples)] = Field(
        1000, ge=0, description="bootstrap resamples (0 = no interval, else at least 2)"
    )
    level: float = Field(0.95, gt=0.0, lt=1.0, description="interval coverage")
    interval: IntervalMethod = Field(
        "lognormal", description="lognormal (Chao 1987, never below N_seen) or percentile (re-centred)"
    )
    seed: int = Field(0, ge=0, description="seed of the held-out splits and the bootstrap")
    format: Format | None = Field(
        None, description="observation-file format when the input is a path (None = auto-detect)"
    )

    @field_validator("estimator", mode="before")
    @classmethod
    def _known_estimator(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in ESTIMATORS:
            raise UnknownNameError("estimator", value, tuple(ESTIMATORS))
        return value

    @field_validator("format", mode="before")
    @classmethod
    def _known_format(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in FORMATS:
            raise UnknownNameError("format", value, FORMATS)
        return value

    @field_validator("k")
    @classmethod
    def _k_at_least_one(cls, value: int | str | None) -> int | str | None:
        if isinstance(value, int) and not 1 <= value <= MAX_K:
            raise ValueError(f"k must be 'auto' or an integer in [1, {MAX_K}]")
        return value
