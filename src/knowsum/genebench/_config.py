"""The validated configuration of a genebench run (one object in, one :class:`GenebenchRecord` out)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knowsum._util import known_values
from knowsum.genebench._budget import DEFAULT_MAX_TOKENS
from knowsum.genebench._build import TASKS

__all__ = ["DEFAULT_MAX_TOKENS", "GenebenchConfig"]


PER_TYPE_OR_PAPER = (
    "per_type and paper_size both set: the paper's size is 210 questions per cell whatever per_type "
    "says; give one of them"
)
"""Why a build given both sizes is refused."""


class GenebenchConfig(BaseModel):
    """How to run SciHorizon-GENE on a model (defaults: the paper's protocol, §4.2 and App. B)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    questions: Path | None = Field(
        None, description="Question file (JSONL); None builds a small default set."
    )
    tasks: tuple[str, ...] = Field(tuple(TASKS), description="Tasks to build (when building).")
    per_type: int | None = Field(2, ge=1, description="Questions per task and stratum when building.")
    genes: int | None = Field(None, ge=1, description="Draw built questions from this many random genes.")
    seed: int = Field(0, ge=0, description="Seed of building, sampling and permutation tests.")
    permutations: Literal["cyclic", "none"] = Field(
        "cyclic", description="Ask every rotation of the options (§4.2) or only the given order."
    )
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature (paper: 0).")
    max_tokens: int | None = Field(
        None, ge=1, description="One token budget for every reply (default: sized per type, see _budget)."
    )
    lenient: bool = Field(
        False, description="Lenient reply checking instead of the paper's strict rule (App. B)."
    )
    expression: Path | None = Field(None, description="User expression file (Q6).")
    summaries: Path | None = Field(None, description="User summaries file (Q8).")
    abstracts: Path | None = Field(None, description="User abstracts file (with-abstracts Q7/Q8).")
    max_abstracts: int = Field(
        10, ge=1, le=50, description="Abstracts joined into one context (the release joins 2–10)."
    )
    paper_size: bool = Field(
        False, description="Build the paper's sample: 210 questions per cell (2,710 questions, §4.2)."
    )
    n_buckets: int = Field(10, ge=1, le=1000, description="PubMed-count buckets of the attention curve.")
    n_perm: int = Field(10_000, ge=1, description="Permutations of the attention Spearman test.")

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return known_values(value, TASKS, "task(s)")

    @model_validator(mode="after")
    def _one_size(self) -> GenebenchConfig:
        """``per_type`` given beside ``paper_size``: two sizes asked, neither silently dropped."""
        if self.paper_size and "per_type" in self.model_fields_set and self.per_type is not None:
            raise ValueError(PER_TYPE_OR_PAPER)
        return self

    def tokens(self, question_type: str, budgets: dict[str, int] | None = None) -> int:
        """Token budget of a reply to ``question_type`` (``max_tokens``, else ``budgets``, else the floor)."""
        return self.max_tokens or (budgets or DEFAULT_MAX_TOKENS)[question_type]
