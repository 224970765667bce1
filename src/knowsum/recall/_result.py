"""Versioned result records of the recall instrument (written as ``result.json`` / ``predictions.jsonl``).

Undefined numbers (a mean over no errors, a correlation over fewer than three buckets) are
``None`` — JSON ``null`` — never NaN.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RESULT_VERSION",
    "RULES_NOTE",
    "BucketStats",
    "InvarianceBucket",
    "InvarianceSummary",
    "PaperScores",
    "PopularityScores",
    "PredictionRecord",
    "RecallResult",
    "RecallScores",
    "Status",
]

RESULT_VERSION = 2
"""2: ``scores.paper`` (the paper's comparability rules), Granger permutation p, per-bucket paper
error means, ``warnings``; version-1 records still load (the new fields are empty)."""

RULES_NOTE = (
    "paper rules: an answer exists only if it is one of the study's concept IDs and every distinct "
    "answer (a no-ID text too) counts; knowsum rules: any ID of the installed ontology exists "
    "(obsolete and alternative IDs too) and a no-ID answer is not an invented ID"
)
"""The one-line explanation shown next to the two rule sets (terminal, JSON, report.html)."""

Status = Literal["correct", "wrong", "invented", "no_id"]
"""``correct``; ``wrong``: an existing ID of another concept; ``invented``: well formed but absent
from the whole ontology (obsolete and alternative IDs included); ``no_id``: no well-formed ID."""


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PredictionRecord(_Record):
    """One probed concept and the judged answer (one line of ``predictions.jsonl``)."""

    id: str = Field(description="Gold ID.")
    label: str = Field(description="Label given in the prompt.")
    popularity: float | None = Field(None, description="Popularity of the (ID, label) pair, if known.")
    bucket: int | None = Field(None, description="Popularity bucket (1 = least popular).")
    prompt: str = Field("", description="Prompt sent (empty when scoring a predictions file).")
    text: str = Field(description="Raw model answer.")
    predicted: str | None = Field(description="Extracted canonical ID, None for 'no ID'.")
    status: Status = Field(description="correct, wrong, invented or no_id.")
    levenshtein: int | None = Field(None, description="Edit distance gold → predicted ID (errors only).")
    jaccard: float | None = Field(
        None, description="Token Jaccard of gold and predicted labels (wrong only)."
    )
    predicted_label: str | None = Field(None, description="Label of the predicted ID, if it exists.")
    answers: dict[str, list[str | None]] = Field(
        default_factory=dict, description="Invariance answers per method (pi1/pi2/pi3), extracted IDs."
    )

    @property
    def correct(self) -> bool:
        """Whether the prediction is correct."""
        return self.status == "correct"


class BucketStats(_Record):
    """Per-bucket numbers (paper Fig. 2 and Fig. 3)."""

    bucket: int = Field(description="Bucket number, 1 = least popular.")
    lo: float = Field(description="Lower popularity edge (inclusive).")
    hi: float = Field(description="Upper popularity edge (exclusive, inclusive for the last bucket).")
    n_universe: int = Field(description="N_B: concepts of the universe in this bucket.")
    n: int = Field(description="Probed concepts in this bucket.")
    n_correct: int = Field(description="Correct predictions.")
    accuracy: float | None = Field(description="n_correct / n (None when n = 0).")
    mean_popularity: float | None = Field(description="Mean popularity of the probed concepts.")
    mean_levenshtein: float | None = Field(description="Mean Levenshtein distance of the errors.")
    mean_jaccard: float | None = Field(description="Mean Jaccard similarity of the wrong existing IDs.")
    paper_mean_levenshtein: float | None = Field(
        None, description="Paper rule 2: mean Levenshtein of every wrong prediction (None: no error)."
    )
    paper_mean_jaccard: float | None = Field(
        None, description="Paper rule 2: mean Jaccard of every wrong prediction (None: no error)."
    )
    n_top_k: int = Field(description="n_B: top-k repeated wrong IDs whose own bucket is this one.")
    r_b: float | None = Field(description="R_B = n_B / (N_B / N · k).")


class PopularityScores(_Record):
    """RQ2 statistics (paper §5, Tables 4 and 6, Fig. 2–3)."""

    source: str = Field(
        description="Popularity source (web, annotations, pubmed, a file, or the predictions file)."
    )
    n_buckets: int = Field(description="Number of buckets.")
    n_with_popularity: int = Field(description="Probed concepts with a known popularity.")
    buckets: list[BucketStats]
    bucket_spearman: float | None = Field(description="Spearman ρ of bucket rank vs bucket accuracy.")
    bucket_spearman_p: float | None = Field(description="Its permutation p-value.")
    granger_f: float | None = Field(description="Granger F: bucket mean popularity → accuracy (lag 3).")
    granger_p: float | None = Field(description="Its parametric p-value (statsmodels ssr F test).")
    granger_perm_p: float | None = Field(
        None, description="Its permutation p-value (cause series shuffled n_perm times)."
    )
    levenshtein_spearman: float | None = Field(
        description="Table 6: Spearman ρ of bucket mean popularity vs paper-rule mean Levenshtein "
        "(a bucket without errors counts 0)."
    )
    levenshtein_spearman_p: float | None = None
    jaccard_spearman: float | None = Field(
        description="Table 6: Spearman ρ of bucket mean popularity vs paper-rule mean Jaccard "
        "(a bucket without errors counts 1)."
    )
    jaccard_spearman_p: float | None = None
    knowsum_levenshtein_spearman: float | None = Field(
        None, description="The same with knowsum-rule means, over buckets with errors."
    )
    knowsum_jaccard_spearman: float | None = Field(
        None, description="The same with knowsum-rule means, over buckets with wrong existing IDs."
    )
    top_k: int = Field(description="k of the top-k repeated wrong IDs.")
    top_k_used: int = Field(description="Repeated wrong IDs with a known bucket actually taken (<= k).")
    rb_spearman: float | None = Field(description="Spearman ρ of bucket rank vs R_B.")
    rb_spearman_p: float | None = None
    top_ids: list[tuple[str, int, int]] = Field(
        default_factory=list, description="The 20 most repeated wrong IDs: (ID, times, bucket)."
    )


class PaperScores(_Record):
    """Tables 2–3 under the paper's comparability rules (issue 15, rules 1–2; docs/recall.md).

    An answer *exists* when it is one of the study's concept IDs (the probed universe or the rows
    of the scored file; the whole ontology for ICD-10 and Wikidata, §4.1 fn. 8). Answers are
    compared as given: the extracted ID, or the stripped raw text when there is none.
    """

    existence: Literal["study", "ontology"] = Field(description="What an existing answer belongs to.")
    n_study: int = Field(description="IDs an answer may exist among.")
    unique_answers: int = Field(description="Distinct answers (Table 3a Unq).")
    invented_unique: int = Field(description="Distinct answers that do not exist.")
    invented_pct: float | None = Field(description="100 · invented_unique / unique_answers (Table 3a %Inv).")
    n_wrong: int = Field(description="Wrong predictions.")
    n_wrong_invented: int = Field(description="Wrong predictions whose answer does not exist.")
    wrong_due_to_invented_pct: float | None = Field(
        description="100 · n_wrong_invented / n_wrong (Table 3b)."
    )
    mean_levenshtein: float | None = Field(
        description="Table 2: Levenshtein of every wrong prediction (length of the gold ID when the "
        "answer does not exist), mean over buckets of the per-bucket means (pooled without buckets)."
    )
    mean_jaccard: float | None = Field(
        description="Table 2: word-token Jaccard of the labels (0 when the answer does not exist), "
        "averaged like mean_levenshtein."
    )
    averaging: Literal["buckets", "pooled"] = Field(description="How Table 2 means were averaged.")
    note: str = Field(RULES_NOTE, description="How these rules differ from knowsum's (one line).")


class RecallScores(_Record):
    """RQ1 numbers (paper Tables 1–3) plus the popularity analysis."""

    n: int = Field(description="Predictions scored.")
    n_correct: int
    accuracy: float = Field(description="n_correct / n.")
    n_no_id: int = Field(description="Answers without a well-formed ID.")
    n_wrong: int = Field(description="Incorrect predictions (including no ID).")
    n_invented: int = Field(description="Predictions whose ID is invented.")
    n_unique_predicted: int = Field(description="Distinct well-formed predicted IDs (Table 3a Unq).")
    n_invented_unique: int = Field(description="Distinct predicted IDs absent from the whole ontology.")
    invented_unique_pct: float | None = Field(description="100 · n_invented_unique / n_unique_predicted.")
    wrong_due_to_invented_pct: float | None = Field(description="100 · n_invented / n_wrong (Table 3b).")
    mean_levenshtein: float | None = Field(description="Mean Levenshtein over wrong and invented IDs.")
    n_levenshtein: int
    mean_jaccard: float | None = Field(description="Mean Jaccard over wrong IDs that exist in the ontology.")
    n_jaccard: int
    popularity: PopularityScores | None = None
    paper: PaperScores | None = Field(
        None, description="Tables 2–3 under the paper's rules (None: v1 record)."
    )


class InvarianceBucket(_Record):
    """AvPI and accuracy of one bucket under one invariance method (paper Fig. 4)."""

    bucket: int
    n: int
    avpi: float
    accuracy: float = Field(description="Fraction of the M answers that are correct.")


class InvarianceSummary(_Record):
    """Prediction invariance PI-1/2/3 (paper §6)."""

    method: Literal["pi1", "pi2", "pi3"]
    m: int = Field(description="Prompts per concept (M).")
    variants: list[str] = Field(description="What varied: repetitions, temperatures or languages.")
    n_concepts: int
    mean_pi: float
    accuracy: float = Field(description="Fraction of all answers that are correct.")
    buckets: list[InvarianceBucket] = Field(default_factory=list)
    spearman: float | None = Field(None, description="Spearman ρ of AvPI vs accuracy over buckets.")
    spearman_p: float | None = None


class RecallResult(_Record):
    """The record of one recall run or one scored predictions file (``result.json``)."""

    version: int = Field(RESULT_VERSION, description="Schema version of this record.")
    kind: Literal["recall"] = "recall"
    kb: str = Field(description="Knowledge base probed.")
    kb_release: str = Field("", description="Release of the installed KB.")
    model: str = Field(description="Model id (or the predictions file for `recall score`).")
    api: str = Field("chat", description="chat or completions (or 'file').")
    created: str = Field(description="UTC time the record was written (ISO 8601).")
    config: dict[str, Any] = Field(default_factory=dict, description="The run configuration.")
    scores: RecallScores
    invariance: list[InvarianceSummary] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per step.")
    warnings: list[str] = Field(default_factory=list, description="Data problems kept and reported.")
