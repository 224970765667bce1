"""The validated configuration of a genebench run (one object in, one :class:`GenebenchResult` out)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from knowsum.genebench._build import TASKS

__all__ = ["DEFAULT_MAX_TOKENS", "GenebenchConfig"]

#: Generated tokens per reply by question type: enough for the format the instruction asks for.
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "single_choice": 16,
    "multiple_choice": 24,
    "expression": 160,
    "go_annotation": 320,
    "summary": 256,
}


class GenebenchConfig(BaseModel):
    """How to run SciHorizon-GENE on a model (defaults: the paper's protocol, §4.2 and App. B)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

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
    max_tokens: int | None = Field(None, ge=1, description="Override the per-type token budgets.")
    expression: Path | None = Field(None, description="User expression file (Q6).")
    summaries: Path | None = Field(None, description="User summaries file (Q8).")
    abstracts: Path | None = Field(None, description="User abstracts file (with-abstracts Q7/Q8).")
    max_abstracts: int = Field(3, ge=1, le=50, description="Abstracts joined into one context.")
    n_buckets: int = Field(10, ge=1, le=1000, description="PubMed-count buckets of the attention curve.")
    n_perm: int = Field(10_000, ge=1, description="Permutations of the attention Spearman test.")

    @field_validator("tasks")
    @classmethod
    def _tasks(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [t for t in value if t not in TASKS]
        if bad:
            raise ValueError(f"unknown task(s) {bad}; known: {', '.join(TASKS)}")
        return value

    def tokens(self, question_type: str) -> int:
        """Token budget of a reply to ``question_type``."""
        return self.max_tokens or DEFAULT_MAX_TOKENS[question_type]
