"""Parts of a census record that describe how the run went: where an adaptive run stopped, how an
open-ended task was clustered, and the disease KB's categories (:class:`~knowsum.census.record.CensusRecord`
holds them; re-exported there)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DiversityInfo", "KBCategories", "StopInfo"]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", ser_json_inf_nan="null")


class StopInfo(_Record):
    """Where and why an adaptive (``until_new_rate`` or ``until_coverage``) run stopped."""

    reason: Literal["rate", "coverage", "max-queries"]
    rule: Literal["new-rate", "coverage"] = Field(
        "new-rate", description="new-rate: predicted new items per query < EPS; coverage: Ĉ ≥ C"
    )
    queries: int = Field(description="queries used when it stopped")
    threshold: float = Field(description="the EPS (new verified items per query) or the coverage C asked for")
    history: list[tuple[int, float]] = Field(
        description="(queries so far, predicted new items per query or Ĉ); -1 = nothing verified yet"
    )
    message: str


class DiversityInfo(_Record):
    """Embedding clustering of an open-ended task (paper §4.3, App. B.3.3)."""

    embedding_model: str
    quantile: float
    neighbours: int
    threshold: float = Field(description="cosine distance below which two responses are equivalent")
    pooled_runs: list[str] = Field(description="other runs whose k-NN distances were pooled")
    n_distances: int


class KBCategories(_Record):
    """The disease KB's top-level categories, one per term (paper Fig. 10 right)."""

    kb: str = Field(description="knowledge base (doid)")
    rule: str = Field(description="how a term with several is_a paths gets one category")
    counts: dict[str, int] = Field(description="category name → number of terms, largest first")
    total: int = Field(description="terms classified (non-obsolete, below the root)")
    strict: str = Field(description="the category the strict criterion keeps")
    paper: dict[str, int] = Field(
        description="what the paper's text gives of its Fig. 10 right: category name → count, and 'total'"
    )
