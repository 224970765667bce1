"""The records of a genebench run: ``result.json`` (:class:`GenebenchRecord`) and the lines of
``predictions.jsonl`` (:class:`InstanceRecord`).

Scores are fractions in [0, 1] (tables show them as percentages, like the paper). Undefined numbers
(a correlation over constant values, a cell with no question) are ``None`` — JSON ``null``.

The record carries the names the pages print — the Table 2 title of each knowledge type and the
cells of each perspective (Fig. 9) — so the report layer reads them from the run, not from the
instrument. Schema versions::

    1  the first record; replies were read by the rule that is now called lenient
    2  + reply rule, format errors under both rules and by kind, truncated replies, token budgets
    3  the shared run record (knowsum_version, backend, kb_releases) + knowledge_titles, perspectives

:meth:`GenebenchRecord.migrate` reads versions 1 and 2.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from knowsum._util import old_names
from knowsum.records import Record

__all__ = [
    "KNOWLEDGE_TITLES",
    "PERSPECTIVES",
    "RESULT_VERSION",
    "AttentionCurve",
    "Cell",
    "GenebenchRecord",
    "GenebenchScores",
    "InstanceRecord",
    "Pearson",
]

RESULT_VERSION = 3

#: Table 2 column title of each knowledge type, in the paper's column order. The instrument writes
#: them into every result (:attr:`GenebenchRecord.knowledge_titles`); files older than version 3 get
#: them when read.
KNOWLEDGE_TITLES: dict[str, str] = {
    "full name": "Gene Full Name",
    "synonyms": "Synonyms",
    "chromosome": "Chromosome Location",
    "gene_type": "Gene Type",
    "designation": "Related Proteins",
    "expression": "Expression Pattern",
    "go_annotation": "Gene Ontology",
    "summary": "Functional Summary",
}
#: The four perspectives (§3.4) as the cells averaged for the radar of Fig. 9 (carried in every
#: result as :attr:`GenebenchRecord.perspectives`, like the titles).
PERSPECTIVES: dict[str, tuple[str, ...]] = {
    "research attention": ("Q1/loc", "Q1/non-loc", "Q3-A/loc", "Q3-A/non-loc", "Q4/loc", "Q4/non-loc"),
    "hallucination resistance": ("Q2-A/no-answer", "Q3-B/no-answer"),
    "knowledge completeness": ("Q2-B", "Q5", "Q6"),
    "literature influence": ("Q7/no_ref", "Q7/with_ref", "Q8/no_ref", "Q8/with_ref"),
}


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True, slots=True)
class InstanceRecord:
    """One asked instance (a question in one rotation) and its score: a line of ``predictions.jsonl``.

    A slotted dataclass rather than a pydantic model: a run can score 10^5 instances, and every value
    here is produced by the scorer, already typed. ``None`` fields are omitted from the JSON line.

    Attributes:
        question_index: The question's ID.
        task: Question family (Q1 … Q8, Q2-A …).
        question_type: single_choice, multiple_choice, expression, go_annotation, summary.
        knowledge: Gene attribute asked.
        perspective: Evaluation perspective.
        flag: loc / non-loc / no_ref / with_ref.
        response: Raw model reply.
        score: Primary score: 1/0, F1, expression score, GO F1 or summary score.
        gene: Gene symbol.
        pubmed_count: Linked PubMed articles of the gene.
        no_answer: Gold is "No right answer".
        permutation: Cyclic rotation of the options (choice types).
        gold: Gold letters in this rotation (choice types).
        parsed: Validated reply (letters, expression dict, GO items, text).
        format_error: Why the reply failed validation under the run's rule (it is then scored as
            wrong); starts with ``truncated`` when the reply was cut at the token limit.
        format_error_other: Why the reply fails the other rule (strict ↔ lenient); ``None``: passes.
        truncated: The backend stopped the reply at the token limit.
        chose_no_answer: Picked "No right answer" (questions offering it).
        precision, recall, f1: Multiple choice / expression tissues / GO.
        category_match, tissue_f1: Expression components (eq. 4).
        go_mapped, go_unmapped: GO predictions mapped to an ID / unmappable (hallucinated).
        go_negated: GO predictions negated with ``NOT`` (left out of the predicted set).
        go_reference, go_reference_unmapped: Gold GO IDs / gold descriptions no GO term maps to
            (left out of the reference).
        not_scored: Why the instance cannot be scored and is left out of its cell (``gold maps to
            no GO term``); ``None``: scored.
        rouge_l, bertscore, perplexity, fluency, length: Summary components (eq. 5–6), length in words.
        summary_flags: Why its summary score says less than it seems: ``"empty candidate"``,
            ``"bertscore truncated"`` (answer or reference cut to the encoder's input), ``"perplexity
            truncated"`` (answer cut to the language model's context); ``None``: none.
    """

    question_index: str
    task: str
    question_type: str
    knowledge: str
    perspective: str
    flag: str
    response: str
    score: float
    gene: str | None = None
    pubmed_count: int | None = None
    no_answer: bool = False
    permutation: int | None = None
    gold: list[str] | None = None
    parsed: Any = None
    format_error: str | None = None
    format_error_other: str | None = None
    truncated: bool = False
    chose_no_answer: bool | None = None
    precision: float | None = None
    recall: float | None = None
    f1: float | None = None
    category_match: float | None = None
    tissue_f1: float | None = None
    go_mapped: int | None = None
    go_unmapped: int | None = None
    go_negated: int | None = None
    go_reference: int | None = None
    go_reference_unmapped: int | None = None
    not_scored: str | None = None
    rouge_l: float | None = None
    bertscore: float | None = None
    perplexity: float | None = None
    fluency: float | None = None
    length: int | None = None
    summary_flags: list[str] | None = None

    def as_dict(self, drop_none: bool = True) -> dict[str, Any]:
        """The record as a JSON-ready dict (without its ``None`` fields unless ``drop_none=False``)."""
        slots: tuple[str, ...] = self.__slots__
        return {k: v for k in slots if (v := getattr(self, k)) is not None or not drop_none}

    def to_json(self) -> str:
        """One JSONL line."""
        return json.dumps(self.as_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InstanceRecord:
        """Inverse of :meth:`as_dict`."""
        return cls(**data)


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
    reply_rule: str = Field("strict", description="Reply checking rule of the scores: strict or lenient.")
    format_errors_by_rule: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Rule → {'overall': rate, <question type>: rate}: the format-error rate under both.",
    )
    format_errors_by_kind: dict[str, dict[str, float]] = Field(
        default_factory=dict,
        description="Kind (truncated, invalid) → {'overall': rate, <question type>: rate}, run's rule.",
    )
    truncated_rate: dict[str, float] = Field(
        default_factory=dict,
        description="Share of replies stopped at the token limit: 'overall' and per question type.",
    )
    attention: AttentionCurve | None = Field(None, description="Accuracy over PubMed-count buckets.")
    pearson: list[Pearson] = Field(default_factory=list, description="Table 1 per multi-answer task.")
    go: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="GO (per flag): macro P/R/F1, hallucinated rate, counts."
    )
    summary: dict[str, dict[str, float | None]] = Field(
        default_factory=dict, description="Summary (per flag): ROUGE-L, BERTScore, fluency, PPL, length."
    )
    methods: dict[str, str] = Field(default_factory=dict, description="Implementation of each metric.")


class GenebenchRecord(Record):
    """Result of one genebench run or scored prediction file (``result.json``).

    ``model`` is the model id, or ``predictions file`` (backend ``file``) when the answers were
    scored from a file made elsewhere.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, ser_json_inf_nan="null")

    RUN_COMMAND: ClassVar[str] = "knowsum genebench run"
    IDENTITY: ClassVar[tuple[str, ...]] = (
        "build",
        "permutations",
        "temperature",
        "max_tokens",
        "lenient",
        "seed",
    )

    version: int = Field(RESULT_VERSION, description="Schema version.")
    kind: Literal["genebench"] = "genebench"
    questions_file: str = Field(description="Question file (or 'built').")
    questions_sha256: str = Field(description="sha256 of the question set's JSONL.")
    n_questions: int
    n_instances: int
    config: dict[str, Any] = Field(default_factory=dict, description="The run configuration.")
    max_tokens: dict[str, int] = Field(
        default_factory=dict, description="Generated-token budget per question type (sized from the golds)."
    )
    build: dict[str, Any] = Field(default_factory=dict, description="Build report when questions were built.")
    scores: GenebenchScores
    timings: dict[str, float] = Field(default_factory=dict)
    knowledge_titles: dict[str, str] = Field(
        default_factory=lambda: dict(KNOWLEDGE_TITLES),
        description="Knowledge type → its Table 2 column title, in the paper's column order.",
    )
    perspectives: dict[str, tuple[str, ...]] = Field(
        default_factory=lambda: dict(PERSPECTIVES),
        description="Perspective (§3.4) → the cell keys averaged for it (Fig. 9).",
    )

    def title(self, knowledge: str) -> str:
        """The Table 2 title of a knowledge type (the type itself when it has none)."""
        return self.knowledge_titles.get(knowledge, knowledge)

    def perspective_means(self) -> dict[str, float | None]:
        """Mean of the cells of each perspective (``None`` when none was asked), as in Fig. 9."""
        by_key = {c.key: c.mean for c in self.scores.cells}
        out: dict[str, float | None] = {}
        for name, keys in self.perspectives.items():
            vals = [v for k in keys if (v := by_key.get(k)) is not None]
            out[name] = sum(vals) / len(vals) if vals else None
        return out

    @property
    def name(self) -> str:
        """How tables name the run: the model, or ``predictions FILE`` for a scored prediction file
        (every such record's ``model`` is ``predictions file``, which would not tell two apart)."""
        given = self.config.get("predictions")
        if self.backend == "file" and isinstance(given, str) and given:
            return f"predictions {given.replace(chr(92), '/').rsplit('/', 1)[-1]}"
        return self.model

    def rotations(self) -> str | None:
        """How the choice options were asked: ``cyclic`` (every rotation, §4.2) or ``none`` (the given
        order); ``None`` when the run has no choice question or the record does not say."""
        if not any(c.metric in ("accuracy", "macro F1") for c in self.scores.cells):
            return None
        mode = (self.identity or {}).get("permutations") or self.config.get("permutations")
        if mode in ("cyclic", "none"):
            return str(mode)
        method = self.scores.methods.get("single choice", "")
        return "cyclic" if "cyclic" in method else ("none" if "given order" in method else None)

    def comparable_on(self) -> dict[str, str]:
        """The question set (by its SHA-256), the KB releases it was built from, the reply rule (strict
        or lenient: App. B) and, with choice questions, how their options were rotated (cyclic or the
        given order: §4.2) — each changes what a cell means."""
        out = {"questions": "#" + self.questions_sha256[:12], **super().comparable_on()}
        out["reply rule"] = self.scores.reply_rule
        rotations = self.rotations()
        if rotations is not None:
            out["rotations"] = rotations
        return out

    @classmethod
    def migrate(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Read a version 1 or 2 ``result.json``.

        Version 1 replies were read by the rule now called lenient, so a version 1 record without a
        reply rule gets ``lenient``; versions before 3 get the titles and perspectives of today
        (unchanged since version 1), and ``backend`` ``file`` when scored from a prediction file.
        """
        if version < 2 and isinstance(data.get("scores"), dict):
            data["scores"] = {**data["scores"]}
            data["scores"].setdefault("reply_rule", "lenient")
        data.setdefault("knowledge_titles", dict(KNOWLEDGE_TITLES))
        data.setdefault("perspectives", {k: list(v) for k, v in PERSPECTIVES.items()})
        if data.get("model") == "predictions file":
            data.setdefault("backend", "file")
        return super().migrate(data, version)


__getattr__ = old_names(__name__, {"GenebenchResult": ("knowsum.genebench.record", "GenebenchRecord")})
"""The record's old name ``GenebenchResult`` still works, with a ``DeprecationWarning``."""
