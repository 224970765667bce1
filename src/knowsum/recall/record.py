"""The records of a recall run: ``result.json`` (:class:`RecallRecord`) and ``predictions.jsonl``
(one :class:`PredictionRecord` per probed concept).

Undefined numbers (a mean over no errors, a correlation over fewer than three buckets) are
``None`` — JSON ``null`` — never NaN.

Schema versions of ``result.json`` (every one still loads with :func:`~knowsum.records.load_record`):

- 1: accuracy, error analysis, popularity and invariance under knowsum's rules;
- 2: ``scores.paper`` (the paper's comparability rules), the Granger permutation p, per-bucket
  paper-rule error means, ``warnings`` (empty in a version-1 file);
- 3: the shared run record (:class:`~knowsum.records.Record`): ``backend`` (``file`` for scored
  predictions, empty when a version 1–2 run did not record it), ``kb_releases``
  (``{kb: release}``, from ``kb_release``), ``knowsum_version``.
  Later fields with defaults, same version: an invariance summary's ``reading`` (``knowsum``
  unless read from an answers file under the paper's reading), ``source`` and ``per_bucket``;
- 4: the data problems kept and reported are ``notes`` (``warnings`` before), as in every run record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from knowsum._util import old_names, read_text_file
from knowsum.errors import InputFileError
from knowsum.records import Record, text_hash

__all__ = [
    "INVARIANCE_TITLES",
    "PREDICTIONS_NAME",
    "READING_NOTES",
    "RESULT_VERSION",
    "RULES_NOTE",
    "BucketStats",
    "InvarianceBucket",
    "InvarianceSummary",
    "PaperScores",
    "PopularityScores",
    "PredictionRecord",
    "Reading",
    "RecallRecord",
    "RecallScores",
    "Status",
    "load_predictions",
]

RESULT_VERSION = 4
"""The schema version of ``result.json`` this knowsum writes (see the module docstring)."""

PREDICTIONS_NAME = "predictions.jsonl"
"""The file of a run directory holding one :class:`PredictionRecord` per line."""

INVARIANCE_TITLES = {"pi1": "PI-1 (repetitions)", "pi2": "PI-2 (temperatures)", "pi3": "PI-3 (languages)"}
"""What each prediction-invariance method varies (paper §6), as tables and figures name it."""

RULES_NOTE = (
    "paper rules: an answer exists only if it is one of the study's concept IDs and every distinct "
    "answer (a no-ID text too) counts; knowsum rules: any ID of the installed ontology exists "
    "(obsolete and alternative IDs too) and a no-ID answer is not an invented ID"
)
"""The one-line explanation shown next to the two rule sets (terminal, JSON, report.html)."""

Reading = Literal["paper", "knowsum"]
"""How prediction-invariance answers are counted (paper §6.1; docs/recall.md "Two readings")."""

READING_NOTES: dict[str, str] = {
    "paper": "the paper's reading: distinct answers as written, correct only when the answer is the "
    "gold ID (the authors' compute_accuracy_per_bucket.py)",
    "knowsum": "knowsum's reading: distinct extracted IDs, every no-ID answer the same answer, "
    "correct when the extracted ID is the gold ID",
}
"""Reading → the one-line explanation shown next to invariance numbers (terminal, report.html)."""

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
    knowsum_levenshtein_spearman_p: float | None = Field(
        None, description="Its permutation p-value (None in records written before it)."
    )
    knowsum_jaccard_spearman_p: float | None = Field(
        None, description="Its permutation p-value (None in records written before it)."
    )
    top_k: int = Field(description="k of the top-k repeated wrong IDs.")
    top_k_used: int = Field(description="Repeated wrong IDs with a known bucket actually taken (<= k).")
    rb_spearman: float | None = Field(description="Spearman ρ of bucket rank vs R_B.")
    rb_spearman_p: float | None = None
    top_ids: list[tuple[str, int, int]] = Field(
        default_factory=list, description="The 20 most repeated wrong IDs: (ID, times, bucket)."
    )


class PaperScores(_Record):
    """Tables 2–3 under the paper's comparability rules (rules 1–2 of docs/recall.md).

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
        "answer does not exist), mean over buckets of the per-bucket means (pooled over every wrong "
        "prediction without buckets or when one has no bucket)."
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

    def why_no_rb(self) -> str:
        """Why R_B (paper Fig. 3) is undefined when no wrong ID was ranked (``top_k_used == 0``): the
        most frequent wrong answered IDs are ranked among those with a popularity bucket."""
        if self.n_wrong - self.n_no_id == 0:
            return "no wrong ID was answered"
        return "no wrong answered ID has a popularity bucket"


class InvarianceBucket(_Record):
    """AvPI and accuracy of one bucket under one invariance method (paper Fig. 4)."""

    bucket: int
    n: int
    avpi: float
    accuracy: float = Field(description="Fraction of the M answers that are correct.")


class InvarianceSummary(_Record):
    """Prediction invariance PI-1/2/3 (paper §6) of one method under one reading of the answers."""

    method: Literal["pi1", "pi2", "pi3"]
    m: int = Field(description="Prompts per concept (M).")
    variants: list[str] = Field(description="What varied: repetitions, temperatures or languages.")
    n_concepts: int
    mean_pi: float
    accuracy: float = Field(description="Fraction of all answers that are correct.")
    buckets: list[InvarianceBucket] = Field(default_factory=list)
    spearman: float | None = Field(None, description="Spearman ρ of AvPI vs accuracy over buckets.")
    spearman_p: float | None = None
    reading: Reading = Field(
        "knowsum",
        description="How answers were counted (READING_NOTES): 'knowsum' (extracted IDs, a run's rule) or "
        "'paper' (answers as written, the authors' script); a run and a version 1–2 record: knowsum.",
    )
    source: str = Field("", description="The answers file scored (empty: the run asked the model).")
    per_bucket: int | None = Field(
        None,
        description="K of an answers file's concepts: row i is in bucket i // K + 1 (None: a run, "
        "whose buckets are the popularity buckets).",
    )

    @property
    def title(self) -> str:
        """What the method varies, as tables and figures name it (``PI-2 (temperatures)``)."""
        return INVARIANCE_TITLES[self.method]


class RecallRecord(Record):
    """The record of one recall run or one scored predictions file (``result.json``).

    ``model`` is the model id, or the predictions file's name for a scored file (``backend``
    ``file``, ``api`` ``file``).
    """

    model_config = ConfigDict(frozen=True)

    RUN_COMMAND: ClassVar[str] = "knowsum recall run"
    IDENTITY: ClassVar[tuple[str, ...]] = (
        "kb",
        "api",
        "template",
        "temperature",
        "max_tokens",
        "selection",
        "seed",
        "popularity",
        "n_buckets",
        "polysemy",
        "invariance",
    )

    version: int = Field(RESULT_VERSION, description="Schema version of this record.")
    kind: Literal["recall"] = "recall"
    kb: str = Field(description="Knowledge base probed.")
    kb_release: str = Field("", description="Release of the installed KB (also in kb_releases).")
    api: str = Field("chat", description="chat or completions (or 'file').")
    config: dict[str, Any] = Field(default_factory=dict, description="The run configuration.")
    scores: RecallScores
    invariance: list[InvarianceSummary] = Field(
        default_factory=list,
        description="Prediction invariance per method: knowsum's reading (a run), or the paper's "
        "and knowsum's readings of an answers file (recall score --invariance-file), paper first.",
    )
    timings: dict[str, float] = Field(default_factory=dict, description="Seconds per step.")
    notes: list[str] = Field(default_factory=list, description="Data problems kept and reported.")

    def invariance_readings(self) -> dict[str, dict[str, InvarianceSummary]]:
        """Method → reading → summary, in the order of ``invariance`` (a run: knowsum's only)."""
        out: dict[str, dict[str, InvarianceSummary]] = {}
        for s in self.invariance:
            out.setdefault(s.method, {})[s.reading] = s
        return out

    def comparable_on(self) -> dict[str, str]:
        """The release of its KB and the prompt template (by hash; the shipped one by name). Runs of
        different KBs share no release key: a compare puts them in different rows (paper Tables 1–3),
        and chat and completion runs in different, marked columns."""
        template = self.config.get("template")
        release = self.kb_release or self.kb_releases.get(self.kb, "")
        return {
            f"{self.kb} release": release,
            "template": "shipped" if not template else text_hash(str(template)),
        }

    @classmethod
    def migrate(cls, data: dict[str, Any], version: int) -> dict[str, Any]:
        """Versions 1–3 → 4: ``backend`` (``file`` for a scored file, else unknown) and
        ``kb_releases`` from ``kb_release``; the fields version 2 added keep their defaults;
        ``warnings`` become ``notes``."""
        if "warnings" in data:
            data["notes"] = data.pop("warnings")
        data.setdefault("backend", "file" if data.get("api") == "file" else "")
        if isinstance(data.get("kb"), str):
            data.setdefault("kb_releases", {data["kb"]: data.get("kb_release") or ""})
        return super().migrate(data, version)


def load_predictions(path: Path) -> list[PredictionRecord]:
    """The :class:`PredictionRecord` lines of a run's ``predictions.jsonl`` (``path``: the run
    directory or the file).

    Raises:
        InputFileError: a missing, unreadable, binary or non-UTF-8 file (the bad byte's line named),
            or a line that is not a prediction record (named by its line number).
    """
    file = path / PREDICTIONS_NAME if path.is_dir() else path
    try:  # the one wording of an unreadable file (knowsum._util.read_text_file)
        lines = read_text_file(file, PREDICTIONS_NAME).splitlines()
    except InputFileError as exc:
        problem = str(exc).removeprefix(f"{file}: ")
        raise InputFileError(
            file, f"cannot read recall predictions ({problem}); pass a recall run directory"
        ) from None
    records: list[PredictionRecord] = []
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            records.append(PredictionRecord.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as exc:
            problem = exc.msg if isinstance(exc, json.JSONDecodeError) else exc.errors()[0]["msg"]
            raise InputFileError(file, f"not a recall prediction record: {problem}", no, line) from None
    return records


__getattr__ = old_names(__name__, {"RecallResult": ("knowsum.recall.record", "RecallRecord")})
"""The record's old name ``RecallResult`` still works, with a ``DeprecationWarning``."""
