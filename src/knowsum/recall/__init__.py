"""The ``recall`` instrument: has a model memorized an ontology's identifiers?

Implements Bombieri, Fiorini, Ponzetto, Rospocher, "Do LLMs Dream of Ontologies?": the model gets
a concept's label and must return its ID (§3.1); since IDs are arbitrary, a right answer can only
come from memorization. Scores: accuracy, Levenshtein/Jaccard error analysis, invented IDs (§4),
popularity buckets with Spearman/permutation/Granger and repeated IDs ``R_B`` (§5), prediction
invariance PI-1/2/3 (§6). Tables 2–3 come under two rule sets: the paper's comparability rules
(``scores.paper``) and knowsum's ontology-aware ones (see :data:`RULES_NOTE`).

Quick tour::

    from knowsum.models import open_backend, ResponseStore
    from knowsum.recall import RecallConfig, run_recall, write_outputs, score_predictions

    cfg = RecallConfig(kb="go", select="stratified", per_bucket=2, invariance=("pi2",))
    result, records = run_recall(cfg, open_backend("smollm2-135m-instruct"), store=ResponseStore())
    write_outputs(Path("runs/go-smollm2"), result, records)  # result.json, predictions.jsonl, report
    result, _ = score_predictions("go", Path("gpt4_go.csv"))   # predictions made elsewhere
"""

from knowsum.recall import metrics
from knowsum.recall._compare import compare_tables
from knowsum.recall._concepts import Concept, LabelIndex, select, universe
from knowsum.recall._config import PI2_TEMPERATURES, RecallConfig, polysemy_default
from knowsum.recall._extract import IdExtractor, extract_id
from knowsum.recall._outputs import load_result, write_outputs
from knowsum.recall._paper import Study, paper_tokens
from knowsum.recall._popularity import Buckets, load_popularity_source
from knowsum.recall._predictions import PredictionRow, read_predictions, score_predictions
from knowsum.recall._published import PUBLISHED
from knowsum.recall._result import (
    RESULT_VERSION,
    RULES_NOTE,
    BucketStats,
    InvarianceBucket,
    InvarianceSummary,
    PaperScores,
    PopularityScores,
    PredictionRecord,
    RecallResult,
    RecallScores,
)
from knowsum.recall._run import prepare, run_recall
from knowsum.recall._score import Judge, granger_f, judge, summarize
from knowsum.recall._templates import CHAT_TEMPLATES, COMPLETION_TEMPLATES, LANGUAGES, render_prompt

__all__ = [
    "CHAT_TEMPLATES",
    "COMPLETION_TEMPLATES",
    "LANGUAGES",
    "PI2_TEMPERATURES",
    "PUBLISHED",
    "RESULT_VERSION",
    "RULES_NOTE",
    "BucketStats",
    "Buckets",
    "Concept",
    "IdExtractor",
    "InvarianceBucket",
    "InvarianceSummary",
    "Judge",
    "LabelIndex",
    "PaperScores",
    "PopularityScores",
    "PredictionRecord",
    "PredictionRow",
    "RecallConfig",
    "RecallResult",
    "RecallScores",
    "Study",
    "compare_tables",
    "extract_id",
    "granger_f",
    "judge",
    "load_popularity_source",
    "load_result",
    "metrics",
    "paper_tokens",
    "polysemy_default",
    "prepare",
    "read_predictions",
    "render_prompt",
    "run_recall",
    "score_predictions",
    "select",
    "summarize",
    "universe",
    "write_outputs",
]
