"""knowsum.census — how many diseases, theorems, GO processes… does a model know? (KnowSum)

The five steps of KnowSum (Li, Xin, Long, Su 2025, Algorithm 1): generation → verification →
clustering → prevalence → unseen estimation, giving ``N_seen``, ``Û(t)``, ``N̂_tot``, ``SKR`` with
a bootstrap interval, and a report.

Quick tour::

    from knowsum.census import CensusConfig, run_census
    outcome = run_census(CensusConfig(task="diseases", model="smollm2-135m-instruct", queries=20))
    outcome.analysis.result.n_seen, outcome.analysis.result.n_total, outcome.report

Tasks: ``diseases`` (DOID), ``theorems`` (theorem list), ``ontology:KB`` (any installed ontology),
``diversity`` / ``diversity:dream-jobs`` (embedding clusters), ``custom`` (TOML). See
:mod:`knowsum.census._tasks` and ``docs/census.md``.
"""

from knowsum.census._analyse import Analysis, analyse
from knowsum.census._config import CensusConfig, load_config
from knowsum.census._decode import DecodedItem, decode
from knowsum.census._result import (
    RESULT_VERSION,
    CensusResult,
    Counts,
    CurvePoint,
    DiversityInfo,
    HeldoutPoint,
    ItemRecord,
    KPoint,
    Sensitivity,
    StopInfo,
    TopItem,
    load_result,
)
from knowsum.census._run import RunOutcome, default_out, run_census, write_run
from knowsum.census._score import read_items, score_items
from knowsum.census._sensitivity import add_sensitivity, run_prevalence, sensitivity
from knowsum.census._sweep import SweepCell, SweepOutcome, run_sweep, sweep_cells
from knowsum.census._tasks import BUILTIN_TASKS, CONCEPT_WORDS, Task, resolve_task
from knowsum.census._verify import Verdict, Verifier, make_verifier

__all__ = [
    "BUILTIN_TASKS",
    "CONCEPT_WORDS",
    "RESULT_VERSION",
    "Analysis",
    "CensusConfig",
    "CensusResult",
    "Counts",
    "CurvePoint",
    "DecodedItem",
    "DiversityInfo",
    "HeldoutPoint",
    "ItemRecord",
    "KPoint",
    "RunOutcome",
    "Sensitivity",
    "StopInfo",
    "SweepCell",
    "SweepOutcome",
    "Task",
    "TopItem",
    "Verdict",
    "Verifier",
    "add_sensitivity",
    "analyse",
    "decode",
    "default_out",
    "load_config",
    "load_result",
    "make_verifier",
    "read_items",
    "resolve_task",
    "run_census",
    "run_prevalence",
    "run_sweep",
    "score_items",
    "sensitivity",
    "sweep_cells",
    "write_run",
]
