"""The validated configuration of a recall run (one object in, one :class:`RecallRecord` out)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knowsum._util import known_values
from knowsum.recall._templates import LANGUAGES, Api, check_template

__all__ = ["PI2_TEMPERATURES", "POLYSEMY_KBS", "InvarianceMethod", "RecallConfig", "polysemy_default"]

InvarianceMethod = Literal["pi1", "pi2", "pi3"]

#: PI-2 temperatures of the paper (§6.2): 0.0 … 1.0 in steps of 0.1.
PI2_TEMPERATURES: tuple[float, ...] = tuple(round(0.1 * i, 1) for i in range(11))


POLYSEMY_KBS = frozenset({"theorems"})
"""KBs whose IDs are Wikidata Q-IDs: the paper accepts any ID carrying the label only there (§4.1)."""


def polysemy_default(kb: str) -> bool:
    """Whether ``kb`` accepts another concept's ID with the same label by default (Wikidata only)."""
    return kb in POLYSEMY_KBS


class RecallConfig(BaseModel):
    """How to probe a model for the IDs of an ontology (defaults: the paper's setting, §4.2–§6.2)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    kb: str = Field(description="Knowledge base to probe (go, uberon, icd10, doid, hpo, mesh, mondo…).")
    api: Api = Field("chat", description="chat prompt (instruct models) or completion prompt (base models).")
    template: str | None = Field(None, description="Prompt template overriding the shipped one ({label}…).")
    select: Literal["all", "sample", "stratified"] = Field("all", description="Which concepts to probe.")
    sample: int | None = Field(None, ge=1, description="Sample size for select='sample'.")
    per_bucket: int | None = Field(None, ge=1, description="K concepts per bucket for select='stratified'.")
    popularity: str = Field("auto", description="auto, web, annotations, pubmed, none, or a table file.")
    n_buckets: int = Field(50, ge=1, le=1000, description="Popularity buckets (paper: 50).")
    top_k: int = Field(500, ge=1, description="Top-k repeated wrong IDs for R_B (paper: 500).")
    n_perm: int = Field(10_000, ge=1, description="Permutations per Spearman test.")
    seed: int = Field(0, ge=0, description="Seed of selection, permutations and sampling.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Temperature of the main run (paper: 0).")
    max_tokens: int | None = Field(
        None, ge=1, description="Generated tokens per answer (default: 32 chat, 10 completions as in §4.2)."
    )
    polysemy: bool | None = Field(
        None,
        description="Accept the ID of any term carrying the same label (None: the paper's rule, "
        "on for Wikidata Q-IDs only).",
    )
    invariance: tuple[InvarianceMethod, ...] = Field((), description="PI-1/2/3 methods to run (§6).")
    pi1_repeats: int = Field(10, ge=2, description="M of PI-1: repetitions at temperature 0.")
    pi2_temperatures: tuple[float, ...] = Field(PI2_TEMPERATURES, description="Temperatures of PI-2.")
    pi3_languages: tuple[str, ...] = Field(LANGUAGES, description="Prompt languages of PI-3.")

    @field_validator("template")
    @classmethod
    def _template(cls, value: str | None) -> str | None:
        return None if value is None else check_template(value)

    @field_validator("pi3_languages")
    @classmethod
    def _languages(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if len(known_values(value, LANGUAGES, "PI-3 language(s)", "shipped")) < 2:
            raise ValueError("PI-3 needs at least two languages")
        return value

    @field_validator("pi2_temperatures")
    @classmethod
    def _temperatures(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if len(value) < 2 or any(not 0.0 <= t <= 2.0 for t in value):
            raise ValueError("PI-2 needs at least two temperatures in [0, 2]")
        return value

    @model_validator(mode="after")
    def _selection(self) -> RecallConfig:
        if self.select == "sample" and self.sample is None:
            raise ValueError("select='sample' needs sample=N")
        if self.select == "stratified" and self.per_bucket is None:
            raise ValueError("select='stratified' needs per_bucket=K")
        for key, want in (("sample", "sample"), ("per_bucket", "stratified")):
            if self.select != want and getattr(self, key) is not None:
                raise ValueError(
                    f"{key}={getattr(self, key)} is for select='{want}', and select='{self.select}' here: "
                    "give one selection"
                )
        return self

    @property
    def use_polysemy(self) -> bool:
        """Effective polysemy (:func:`polysemy_default` when not set)."""
        return polysemy_default(self.kb) if self.polysemy is None else self.polysemy

    @property
    def tokens(self) -> int:
        """Effective ``max_tokens``."""
        if self.max_tokens is not None:
            return self.max_tokens
        return 32 if self.api == "chat" else 10
