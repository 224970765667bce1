"""The ``recall`` instrument: has a model memorized an ontology's identifiers?

Implements Bombieri, Fiorini, Ponzetto, Rospocher, "Do LLMs Dream of Ontologies?": the model gets
a concept's label and must return its ID (§3.1); since IDs are arbitrary, a right answer can only
come from memorization. Scores: accuracy, Levenshtein/Jaccard error analysis, invented IDs (§4),
popularity buckets with Spearman/permutation/Granger and repeated IDs ``R_B`` (§5), prediction
invariance PI-1/2/3 (§6), asked in a run or read from answers files made elsewhere
(:func:`score_invariance_file`; ``score_predictions(..., invariance_files=, per_bucket=)``).
Tables 2–3 come under two rule sets: the paper's comparability rules (``scores.paper``) and
knowsum's ontology-aware ones (see :data:`RULES_NOTE`).

The result records (:class:`RecallRecord`, :class:`PredictionRecord`…) live in
:mod:`knowsum.recall.record` and are re-exported here.

Quick tour::

    from knowsum.models import open_backend, ResponseStore
    from knowsum.recall import RecallConfig, load_predictions, run_recall, score_predictions

    cfg = RecallConfig(kb="go", select="stratified", per_bucket=2, invariance=("pi2",))
    with ResponseStore() as store:
        run = run_recall(cfg, open_backend("smollm2-135m-instruct"), store=store, out=Path("runs/go"))
    run.record.scores.accuracy, run.report     # runs/go: result.json, predictions.jsonl, plots/, report.html
    records = load_predictions(run.out_dir)    # the judged answers
    scored = score_predictions("go", Path("gpt4_go.csv"))  # made elsewhere: recall-runs/score-gpt4_go
"""

from knowsum._util import old_names
from knowsum.recall import metrics
from knowsum.recall._compare import compare_tables
from knowsum.recall._concepts import Concept, LabelIndex, select, universe
from knowsum.recall._config import PI2_TEMPERATURES, RecallConfig, polysemy_default
from knowsum.recall._extract import IdExtractor, extract_id
from knowsum.recall._instrument import INSTRUMENT, RecallBudget, RecallInstrument
from knowsum.recall._invariance import invariance_requests, summarize_invariance, summary_from_counts
from knowsum.recall._invariance_files import (
    INVARIANCE_METHODS,
    InvarianceOptions,
    InvarianceReadings,
    parse_invariance_spec,
    read_invariance_file,
    score_invariance_answers,
    score_invariance_file,
)
from knowsum.recall._outputs import RecallRun, load_result, write_outputs
from knowsum.recall._paper import Study, paper_tokens
from knowsum.recall._popularity import Buckets, load_popularity_source
from knowsum.recall._predictions import PredictionRow, read_predictions, score_predictions
from knowsum.recall._published import PUBLISHED, PUBLISHED_INVARIANCE
from knowsum.recall._run import prepare, run_recall
from knowsum.recall._score import Judge, granger_f, judge, summarize
from knowsum.recall._templates import CHAT_TEMPLATES, COMPLETION_TEMPLATES, LANGUAGES, render_prompt
from knowsum.recall.record import (
    READING_NOTES,
    RESULT_VERSION,
    RULES_NOTE,
    BucketStats,
    InvarianceBucket,
    InvarianceSummary,
    PaperScores,
    PopularityScores,
    PredictionRecord,
    RecallRecord,
    RecallScores,
    load_predictions,
)

__all__ = [
    "CHAT_TEMPLATES",
    "COMPLETION_TEMPLATES",
    "INSTRUMENT",
    "INVARIANCE_METHODS",
    "LANGUAGES",
    "PI2_TEMPERATURES",
    "PUBLISHED",
    "PUBLISHED_INVARIANCE",
    "READING_NOTES",
    "RESULT_VERSION",
    "RULES_NOTE",
    "BucketStats",
    "Buckets",
    "Concept",
    "IdExtractor",
    "InvarianceBucket",
    "InvarianceOptions",
    "InvarianceReadings",
    "InvarianceSummary",
    "Judge",
    "LabelIndex",
    "PaperScores",
    "PopularityScores",
    "PredictionRecord",
    "PredictionRow",
    "RecallBudget",
    "RecallConfig",
    "RecallInstrument",
    "RecallRecord",
    "RecallRun",
    "RecallScores",
    "Study",
    "compare_tables",
    "extract_id",
    "granger_f",
    "invariance_requests",
    "judge",
    "load_popularity_source",
    "load_predictions",
    "load_result",
    "metrics",
    "paper_tokens",
    "parse_invariance_spec",
    "polysemy_default",
    "prepare",
    "read_invariance_file",
    "read_predictions",
    "render_prompt",
    "run_recall",
    "score_invariance_answers",
    "score_invariance_file",
    "score_predictions",
    "select",
    "summarize",
    "summarize_invariance",
    "summary_from_counts",
    "universe",
    "write_outputs",
]

__getattr__ = old_names(__name__, {"RecallResult": ("knowsum.recall", "RecallRecord")})
"""The record's old name ``RecallResult`` still works, with a ``DeprecationWarning``."""
