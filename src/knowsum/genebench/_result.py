"""Versioned result records of genebench (``result.json`` and ``predictions.jsonl``).

Scores are fractions in [0, 1] (tables show them as percentages, like the paper). Undefined numbers
(a correlation over constant values, a cell with no question) are ``None`` — JSON ``null``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "RESULT_VERSION",
    "AttentionCurve",
    "Cell",
    "GenebenchResult",
    "GenebenchScores",
    "InstanceRecord",
    "Pearson",
]

RESULT_VERSION = 1


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class InstanceRecord(_Record):
    """One asked instance (a question in one rotation) and its score: a line of ``predictions.jsonl``."""

    question_index: str = Field(description="The question's ID.")
    task: str = Field(description="Question family (Q1 … Q8, Q2-A …).")
    question_type: str = Field(
        description="single_choice, multiple_choice, expression, go_annotation, summary."
    )
    knowledge: str = Field(description="Gene attribute asked.")
    perspective: str = Field(description="Evaluation perspective.")
    flag: str = Field(description="loc / non-loc / no_ref / with_ref.")
    gene: str | None = Field(None, description="Gene symbol.")
    pubmed_count: int | None = Field(None, description="Linked PubMed articles of the gene.")
    no_answer: bool = Field(False, description="Gold is 'No right answer'.")
    permutation: int | None = Field(None, description="Cyclic rotation of the options (choice types).")
    gold: list[str] | None = Field(None, description="Gold letters in this rotation (choice types).")
    response: str = Field(description="Raw model reply.")
    parsed: Any = Field(None, description="Validated reply (letters, expression dict, GO items, text).")
    format_error: str | None = Field(None, description="Why the reply failed validation (scored as wrong).")
    chose_no_answer: bool | None = Field(
        None, description="Picked 'No right answer' (questions offering it)."
    )
    score: float = Field(description="Primary score: 1/0, F1, expression score, GO F1 or summary score.")
    precision: float | None = Field(None, description="Multiple choice / GO precision.")
    recall: float | None = Field(None, description="Multiple choice / GO recall.")
    f1: float | None = Field(None, description="Multiple choice / GO F1.")
    category_match: float | None = Field(None, description="Expression: category exact match (0/1).")
    tissue_f1: float | None = Field(None, description="Expression: tissue-set F1.")
    go_mapped: int | None = Field(None, description="GO: predictions mapped to a GO ID.")
    go_unmapped: int | None = Field(None, description="GO: unmappable predictions (hallucinated).")
    rouge_l: float | None = Field(None, description="Summary: ROUGE-L F-measure.")
    bertscore: float | None = Field(None, description="Summary: BERTScore F1.")
    perplexity: float | None = Field(None, description="Summary: perplexity of the reply.")
    fluency: float | None = Field(None, description="Summary: 1/(1+log10 PPL) (eq. 5).")
    length: int | None = Field(None, description="Summary: reply length in words.")


class Cell(_Record):
    """One cell of the paper's Tables 5–6: a metric over a subset, mean ± std over rotations."""

    key: str = Field(description="Stable key, e.g. 'Q1/loc'.")
    label: str = Field(description="Column label, e.g. 'Gene Full Name — low attention'.")
    knowledge: str = Field(description="Knowledge type the cell counts toward (Table 2).")
    metric: str = Field(description="accuracy, macro F1, expression score, CAFA macro F1, summary score.")
    mean: float | None = Field(description="Mean over rotations (the value itself without rotations).")
    std: float | None = Field(description="Population std over rotations (None without rotations).")
    n_questions: int = Field(description="Questions in the cell.")
    n_instances: int = Field(description="Instances (questions × rotations).")
    extra: dict[str, float | None] = Field(default_factory=dict, description="Macro P/R, hallucination…")
    in_overall: bool = Field(True, description="Whether the cell enters the Table 2 knowledge score.")


class AttentionCurve(_Record):
    """Research attention as a curve: accuracy over PubMed-count buckets (beyond the paper)."""

    edges: list[float] = Field(description="Bucket edges (percentiles of the distinct PubMed counts).")
    accuracy: list[float | None] = Field(description="Accuracy per bucket (None if empty).")
    n: list[int] = Field(description="Questions per bucket.")
    spearman: float | None = Field(description="Spearman ρ of bucket number vs accuracy.")
    p_value: float | None = Field(description="Permutation p-value of ρ (two-sided).")
    n_perm: int = Field(description="Permutations.")


class Pearson(_Record):
    """Pearson correlation of per-question F1 with precision and with recall (paper Table 1)."""

    key: str
    f1_precision: float | None
    f1_recall: float | None
    n: int


class GenebenchScores(_Record):
    """Every score of a run."""

    cells: list[Cell] = Field(description="Tables 5–6 cells (+ controls beyond the paper).")
    knowledge: dict[str, float | None] = Field(description="Table 2: score per knowledge type asked.")
    overall: float | None = Field(description="Equal average over the knowledge types asked (Table 2).")
    types_asked: list[str] = Field(description="Knowledge types in the overall.")
    types_missing: dict[str, str] = Field(description="Knowledge types not asked, and why.")
    format_error_rate: float = Field(description="Replies that failed validation / all replies.")
    format_errors: dict[str, float] = Field(description="Format-error rate per question type.")
    attention: AttentionCurve | None = Field(None, description="Accuracy over PubMed-count buckets.")
    pearson: list[Pearson] = Field(default_factory=list, description="Table 1 per multi-answer task.")
    go: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="GO (per flag): macro P/R/F1, hallucinated rate, counts."
    )
    summary: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="Summary (per flag): ROUGE-L, BERTScore, fluency, PPL, length."
    )
    methods: dict[str, str] = Field(default_factory=dict, description="Implementation of each metric.")


class GenebenchResult(_Record):
    """Result of one genebench run or scored prediction file (``result.json``)."""

    version: int = Field(RESULT_VERSION, description="Schema version.")
    kind: Literal["genebench"] = "genebench"
    model: str = Field(description="Model id ('predictions file' when scored from a file).")
    created: str = Field(description="ISO time the result was made.")
    questions_file: str = Field(description="Question file (or 'built').")
    questions_sha256: str = Field(description="sha256 of the question set's JSONL.")
    n_questions: int
    n_instances: int
    config: dict[str, Any] = Field(default_factory=dict, description="The run configuration.")
    build: dict[str, Any] = Field(default_factory=dict, description="Build report when questions were built.")
    scores: GenebenchScores
    timings: dict[str, float] = Field(default_factory=dict)
