"""genebench — SciHorizon-GENE (Huang et al.): how reliably does a model reason from gene knowledge?

Questions are generated from the installed gene records (full names, synonyms, chromosome locations,
gene types, NCBI other designations, GO annotations; expression patterns, functional summaries and
PubMed abstracts from user files), asked zero-shot at temperature 0 with the paper's prompts under
every cyclic rotation of the options, validated per type and scored with the paper's metrics.

Example::

    from knowsum.genebench import GenebenchConfig, run_genebench
    from knowsum.models import ResponseStore, open_backend

    backend = open_backend("smollm2-135m-instruct")
    with ResponseStore() as store:
        run = run_genebench(GenebenchConfig(per_type=5), backend, store=store, out=Path("gb-smollm2"))
    print(run.record.scores.overall, run.report)

The run directory holds ``questions.jsonl``, ``predictions.jsonl`` (:func:`read_records`),
``plots/*.png``, ``report.html`` and ``result.json`` (:func:`load_result`; the record classes live in
:mod:`knowsum.genebench.record` and are re-exported here).
"""

from knowsum._util import old_names
from knowsum.genebench._aggregate import CELLS, summarize
from knowsum.genebench._budget import gold_text, gold_tokens, token_budgets
from knowsum.genebench._build import (
    PAPER_SIZE,
    TASKS,
    BuildInputs,
    BuildReport,
    build_questions,
    parse_tasks,
)
from knowsum.genebench._compare import (
    KNOWLEDGE_TITLES,
    PERSPECTIVES,
    compare_numbers,
    compare_tables,
    paper_label,
    perspective_scores,
)
from knowsum.genebench._config import DEFAULT_MAX_TOKENS, GenebenchConfig
from knowsum.genebench._goeval import GoMapper, GoScore
from knowsum.genebench._instrument import INSTRUMENT, GenebenchBudget, GenebenchInstrument
from knowsum.genebench._outputs import GenebenchRun, default_out, load_result, read_records, write_outputs
from knowsum.genebench._parse import RULES, Parsed, parse_reply
from knowsum.genebench._predictions import read_predictions, score_predictions
from knowsum.genebench._prompts import INSTRUCTIONS, SYSTEM_PROMPT, messages, rotate, rotations
from knowsum.genebench._published import PUBLISHED, PUBLISHED_SOURCE
from knowsum.genebench._run import build_from_kb, instances_of, run_genebench, score_records
from knowsum.genebench._schema import (
    KNOWLEDGE,
    NO_RIGHT_ANSWER,
    QUESTION_TYPES,
    ExpressionAnswer,
    GoAnswer,
    Question,
    content_hash,
    expression_tissues,
    question_key,
    read_questions,
    write_questions,
)
from knowsum.genebench._score import Instance, score_instances
from knowsum.genebench._userdata import Expression, read_abstracts, read_expression, read_summaries
from knowsum.genebench.record import (
    RESULT_VERSION,
    AttentionCurve,
    Cell,
    GenebenchRecord,
    GenebenchScores,
    InstanceRecord,
    Pearson,
)

__all__ = [
    "CELLS",
    "DEFAULT_MAX_TOKENS",
    "INSTRUCTIONS",
    "INSTRUMENT",
    "KNOWLEDGE",
    "KNOWLEDGE_TITLES",
    "NO_RIGHT_ANSWER",
    "PAPER_SIZE",
    "PERSPECTIVES",
    "PUBLISHED",
    "PUBLISHED_SOURCE",
    "QUESTION_TYPES",
    "RESULT_VERSION",
    "RULES",
    "SYSTEM_PROMPT",
    "TASKS",
    "AttentionCurve",
    "BuildInputs",
    "BuildReport",
    "Cell",
    "Expression",
    "ExpressionAnswer",
    "GenebenchBudget",
    "GenebenchConfig",
    "GenebenchInstrument",
    "GenebenchRecord",
    "GenebenchRun",
    "GenebenchScores",
    "GoAnswer",
    "GoMapper",
    "GoScore",
    "Instance",
    "InstanceRecord",
    "Parsed",
    "Pearson",
    "Question",
    "build_from_kb",
    "build_questions",
    "compare_numbers",
    "compare_tables",
    "content_hash",
    "default_out",
    "expression_tissues",
    "gold_text",
    "gold_tokens",
    "instances_of",
    "load_result",
    "messages",
    "paper_label",
    "parse_reply",
    "parse_tasks",
    "perspective_scores",
    "question_key",
    "read_abstracts",
    "read_expression",
    "read_predictions",
    "read_questions",
    "read_records",
    "read_summaries",
    "rotate",
    "rotations",
    "run_genebench",
    "score_instances",
    "score_predictions",
    "score_records",
    "summarize",
    "token_budgets",
    "write_outputs",
    "write_questions",
]

__getattr__ = old_names(__name__, {"GenebenchResult": ("knowsum.genebench", "GenebenchRecord")})
"""The record's old name ``GenebenchResult`` still works, with a ``DeprecationWarning``."""
