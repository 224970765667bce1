"""The census configuration: the method's settings, validated once, from CLI options or a TOML file.

Defaults follow the KnowSum paper where they make sense (temperature 1, nucleus sampling off,
``t = 100``, ``k`` chosen from {6, 8, 10} by held-out validation, fuzzy cut-off 0.9), with query
counts sized for the embedded local model on a laptop (the paper uses 3,000 × 50 diseases and
30,000 × 20 theorems on hosted models).

:class:`CensusConfig` holds only what the method needs (task, sampling, estimation, verification).
Which model answers, how it is reached and where things are written are the caller's: the command
line opens the backend and the response store and passes them to
:func:`knowsum.census.run_census`. A TOML file may still carry those run settings (``model``,
``base_url``, ``server_kind``, ``concurrency``, ``timeout``, ``retries``, ``out``, ``store``);
:func:`load_config` returns them apart, as :class:`RunSettings`.

TOML example (every key optional except ``task``)::

    task = "diseases"
    model = "qwen2.5-coder-1.5b-instruct"
    queries = 40
    criterion = "strict"
    until_new_rate = 0.5

A custom task sets ``task = "custom"`` and describes itself::

    task = "custom"
    prompt = "List {n} human bones, one per line."
    answers = 20
    decoder = "lines"
    kb = "uberon"
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from knowsum._util import config_error, no_quoted_values, read_text_file
from knowsum.errors import ConfigError, InputFileError
from knowsum.models import ModelOptions
from knowsum.stats.bootstrap import check_resamples
from knowsum.stats.unseen import MAX_T, T_ABOVE

__all__ = [
    "RUN_KEYS",
    "CensusConfig",
    "ConfigFile",
    "CountUnit",
    "Criterion",
    "DecoderName",
    "IntervalName",
    "PromptVariant",
    "RunSettings",
    "load_config",
]

Criterion = Literal["strict", "relaxed"]
DecoderName = Literal["lines", "comma", "whole"]
CountUnit = Literal["mention", "incidence"]
IntervalName = Literal["lognormal", "percentile"]
PromptVariant = Literal["full", "simple"]


class CensusConfig(BaseModel):
    """What defines a census as a measurement: task, sampling, estimation, verification."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    task: str = Field(
        description="diseases | theorems | ontology:KB | diversity[:applications|:dream-jobs] | custom"
    )
    queries: int = Field(
        30, ge=1, le=10_000_000, description="N_query: independent queries (the maximum with a stop rule)"
    )
    answers: int | None = Field(None, ge=1, le=1000, description="N_ans per query; None = task default")
    temperature: float = Field(1.0, ge=0.0, le=2.0, description="sampling temperature (paper: 1)")
    top_p: float = Field(1.0, gt=0.0, le=1.0, description="nucleus mass (paper: 1 = off)")
    max_tokens: int | None = Field(None, ge=1, description="token budget per response; None = from answers")
    seed: int = Field(0, ge=0, description="run seed (each draw's seed derives from it)")
    t: float = Field(100.0, gt=0.0, le=MAX_T, description="extrapolation factor t (paper: 100)")
    k: int | Literal["auto"] = Field("auto", description="truncation k, or 'auto' (held-out choice)")
    k_candidates: tuple[int, ...] = Field((6, 8, 10), min_length=1, description="candidates for k='auto'")
    estimator: str = Field("et", description="estimator name (knowsum.stats.ESTIMATORS); paper: et")
    n_bootstrap: Annotated[int, AfterValidator(check_resamples)] = Field(
        1000, ge=0, le=100_000, description="bootstrap resamples (0 = no interval, else at least 2)"
    )
    level: float = Field(0.95, gt=0.0, lt=1.0, description="interval coverage")
    interval: IntervalName = Field(
        "lognormal", description="lognormal (Chao 1987, never below N_seen) or percentile (re-centred)"
    )
    criterion: Criterion = Field("relaxed", description="strict or relaxed verification (paper §4.1)")
    cutoff: float = Field(0.9, gt=0.0, le=1.0, description="fuzzy match cut-off (paper App. B.3: 0.9)")
    count: CountUnit = Field(
        "mention",
        description="mention: a cluster counts once per mention (paper App. B.3, n = N_query·N_ans valid "
        "items); incidence: at most once per response",
    )
    prompt_variant: PromptVariant = Field(
        "full", description="full: the paper's Table 3 prompt; simple: its App. B.2 simplified prompt"
    )
    until_new_rate: float | None = Field(
        None, gt=0.0, description="stop when fewer than this many new verified items per query are predicted"
    )
    until_coverage: float | None = Field(
        None, gt=0.0, lt=1.0, description="stop once the sample coverage Ĉ (Chao & Jost 2012) reaches this"
    )
    batch_queries: int | None = Field(
        None, ge=1, description="queries per batch with until_new_rate or until_coverage"
    )
    quantile: float = Field(0.5, gt=0.0, lt=1.0, description="diversity: q of the pooled 10-NN distances")
    neighbours: int = Field(10, ge=1, le=100, description="diversity: nearest neighbours for the threshold")
    pool_with: tuple[Path, ...] = Field((), description="diversity: other run dirs pooled for the threshold")
    prompt: str | None = Field(None, description="prompt override ({n} = answers)")
    decoder: DecoderName | None = Field(None, description="custom: lines | comma | whole")
    separator: str | None = Field(None, description="custom: item separator (overrides decoder)")
    kb: str | None = Field(None, description="custom: verifier knowledge base")
    namespace: str | None = Field(None, description="ontology/custom: keep only terms of this namespace")
    name_words: tuple[str, ...] = Field((), description="custom strict rule: canonical name contains a word")
    top: int = Field(25, ge=1, le=1000, description="top items kept in the result")

    @model_validator(mode="before")
    @classmethod
    def _old_count_flag(cls, data: Any) -> Any:
        """The old flag ``count_duplicates`` (true = mention, false = incidence) still reads as ``count``."""
        if isinstance(data, dict) and "count_duplicates" in data:
            data = dict(data)
            flag = data.pop("count_duplicates")
            if flag is None:
                return data
            if "count" in data and data["count"] != ("mention" if flag else "incidence"):
                raise ValueError("count and count_duplicates disagree; give count only")
            data["count"] = "mention" if flag else "incidence"
        return data

    @model_validator(mode="after")
    def _one_stop_rule(self) -> CensusConfig:
        if self.until_new_rate is not None and self.until_coverage is not None:
            raise ValueError("give until_new_rate or until_coverage, not both (each is a stop rule)")
        above = T_ABOVE.get(self.estimator)
        if above is not None and self.t <= above:  # refused before a query is sent
            raise ValueError(f"estimator {self.estimator} is defined for t > {above:g}, got t = {self.t:g}")
        return self

    @field_validator("k")
    @classmethod
    def _k_range(cls, v: int | str) -> int | str:
        if isinstance(v, int) and not 1 <= v <= 50:
            raise ValueError("k must be 'auto' or an integer in [1, 50]")
        return v

    @field_validator("k_candidates")
    @classmethod
    def _cands(cls, v: tuple[int, ...]) -> tuple[int, ...]:
        if any(not 1 <= k <= 50 for k in v):
            raise ValueError("k candidates must be integers in [1, 50]")
        return v

    @field_validator("task")
    @classmethod
    def _task(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("task must not be empty")
        return v.strip()


class RunSettings(ModelOptions):
    """The run settings a TOML config may carry beside the method: who answers (the model options,
    which it extends, but ``api``, a command-line choice), and where things go.

    ``None`` (or the default) means "not set here": the command line's option applies.
    """

    out: Path | None = Field(None, description="run directory (default: ./census-runs/<task>-<model>)")
    store: Path | None = Field(None, description="response store (default: the knowsum home's)")

    def options(self, api: str) -> ModelOptions:
        """The model options of the run, with the command line's ``api``."""
        return ModelOptions(**{**self.model_dump(include=set(ModelOptions.model_fields)), "api": api})


RUN_KEYS: tuple[str, ...] = tuple(k for k in RunSettings.model_fields if k != "api")
"""The keys of a TOML config that are run settings, not method settings."""


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """What a census TOML file holds: the method, and the run settings it names."""

    config: CensusConfig
    run: RunSettings


def _resolve(data: dict[str, Any], base: Path, given: dict[str, Any]) -> None:
    """Relative ``out``, ``store`` and ``pool_with`` paths of the file are relative to its folder."""
    for key in ("out", "store"):
        if isinstance(data.get(key), str) and given.get(key) is None and not Path(data[key]).is_absolute():
            data[key] = str(base / data[key])
    if isinstance(data.get("pool_with"), list) and given.get("pool_with") is None:
        data["pool_with"] = [
            str(base / p) if isinstance(p, str) and not Path(p).is_absolute() else p
            for p in data["pool_with"]
        ]


def load_config(
    path: Path, overrides: dict[str, Any] | None = None, *, given_by: str = "the command line"
) -> ConfigFile:
    """Read a TOML config, apply ``overrides`` (non-``None`` CLI options, method or run keys) and
    validate; relative paths in the file are relative to its folder.

    Args:
        path: The TOML file.
        overrides: Values given elsewhere, which win over the file's.
        given_by: Where ``overrides`` come from (``census run``), named when one of them is invalid.

    Raises:
        InputFileError: missing, unreadable or malformed TOML.
        ConfigError: an invalid value, blamed on where it came from: the file (naming it, the key and
            the value), or ``given_by`` for an override.
    """
    if not path.exists():
        raise InputFileError(path, "config file not found")
    try:  # one wording for binary and non-UTF-8 files (knowsum._util.read_text_file)
        data = tomllib.loads(read_text_file(path, "TOML config"))
    except tomllib.TOMLDecodeError as exc:
        raise InputFileError(path, f"not valid TOML: {exc}") from None
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    own = {k: v for k, v in data.items() if k not in given}  # the file's values that are used
    data.update(given)
    _resolve(data, path.parent, given)
    run = {k: data.pop(k) for k in RUN_KEYS if k in data}
    try:
        done = ConfigFile(CensusConfig(**data), RunSettings(**run))
    except ValidationError as exc:
        loc = exc.errors()[0]["loc"]
        # a rule across fields (loc empty) may be broken by the file, the options or the two together
        where = str(path) if loc or not given else f"{path} with the options of {given_by}"
        raise config_error(exc, given_by if loc and loc[0] in given else where) from None
    except TypeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    for model in (CensusConfig, RunSettings):  # valid, but not as written: a number given as text
        no_quoted_values(model, own, str(path))
    return done
