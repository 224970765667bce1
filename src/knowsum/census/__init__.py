"""knowsum.census — how many diseases, theorems, GO processes… does a model know? (KnowSum)

The five steps of KnowSum (Li, Xin, Long, Su 2025, Algorithm 1): generation → verification →
clustering → prevalence → unseen estimation, giving ``N_seen``, ``Û(t)``, ``N̂_tot``, ``SKR`` with
a bootstrap interval, and a report.

Quick tour::

    from knowsum.census import CensusConfig, run_census
    from knowsum.models import ResponseStore, open_backend

    backend = open_backend("smollm2-135m-instruct")
    with ResponseStore() as store:
        run = run_census(CensusConfig(task="diseases", queries=20), backend, store=store)
    run.record.n_seen, run.record.n_total, run.report

Beside the KnowSum headline every result carries the species-richness view of the same sample
(``result.richness``: sample coverage, Chao1-bc or Chao2-bc, asymptotic Hill numbers);
:func:`equal_coverage` ranks runs at equal sample coverage (iNEXT ``estimateD``) and
:func:`overlap_runs` estimates what two runs share (Chao1-/Chao2-shared).

Tasks: ``diseases`` (DOID), ``theorems`` (theorem list), ``ontology:KB`` (any installed ontology),
``diversity`` / ``diversity:dream-jobs`` (embedding clusters), ``custom`` (TOML). See
:mod:`knowsum.census._tasks` and ``docs/census.md``. The result record lives in
:mod:`knowsum.census.record` and is re-exported here; the paper's Table 1 (:data:`PUBLISHED`) is
:class:`knowsum.records.PublishedRow` values, one per model, criterion and figure.
"""

from knowsum._util import old_names
from knowsum.census._analyse import Analysis, analyse
from knowsum.census._backtest import DEFAULT_TS
from knowsum.census._backtest_out import BacktestRun, backtest_census, backtest_run
from knowsum.census._compare import CensusComparison, check_coverage, compare_results, equal_coverage
from knowsum.census._config import RUN_KEYS, CensusConfig, ConfigFile, RunSettings, load_config
from knowsum.census._decode import DecodedItem, decode
from knowsum.census._horizon import trust_horizon
from knowsum.census._instrument import INSTRUMENT, CensusBudget, CensusInstrument
from knowsum.census._overlap import overlap_runs
from knowsum.census._plan import PlanRow, SizePlan, pilot_sample, plan_census
from knowsum.census._plugins import (
    CENSUS_TASKS,
    CensusTask,
    TaskInfo,
    broken_tasks,
    plugin_tasks,
    task_catalogue,
)
from knowsum.census._published import PUBLISHED, TABLE1_COLUMNS, published_rows
from knowsum.census._richness import richness_info, sample_of, sample_of_result
from knowsum.census._run import (
    CensusPlan,
    CensusRun,
    default_out,
    prepare_census,
    run_census,
    write_run,
)
from knowsum.census._score import read_items, score_items
from knowsum.census._sensitivity import K_GRID, T_GRID, add_sensitivity, run_prevalence, sensitivity
from knowsum.census._sweep import SweepCell, SweepOutcome, run_sweep, sweep_cells, sweep_configs
from knowsum.census._tasks import BUILTIN_TASKS, CONCEPT_WORDS, Task, census_requests, resolve_task
from knowsum.census._verify import Verdict, Verifier, make_verifier
from knowsum.census.record import (
    RESULT_VERSION,
    CensusRecord,
    Counts,
    CurvePoint,
    DiversityInfo,
    HeldoutPoint,
    ItemRecord,
    KBCategories,
    KPoint,
    Sensitivity,
    StopInfo,
    TopItem,
    load_result,
)
from knowsum.records import PublishedRow

MOVED_FROM_INSTRUMENT = ("CENSUS_TASKS",)
"""Names that lived in :mod:`knowsum.instrument` before they moved here; still found there, with a
``DeprecationWarning``."""

__all__ = [
    "BUILTIN_TASKS",
    "CENSUS_TASKS",
    "CONCEPT_WORDS",
    "DEFAULT_TS",
    "INSTRUMENT",
    "K_GRID",
    "PUBLISHED",
    "RESULT_VERSION",
    "RUN_KEYS",
    "TABLE1_COLUMNS",
    "T_GRID",
    "Analysis",
    "BacktestRun",
    "CensusBudget",
    "CensusComparison",
    "CensusConfig",
    "CensusInstrument",
    "CensusPlan",
    "CensusRecord",
    "CensusRun",
    "CensusTask",
    "ConfigFile",
    "Counts",
    "CurvePoint",
    "DecodedItem",
    "DiversityInfo",
    "HeldoutPoint",
    "ItemRecord",
    "KBCategories",
    "KPoint",
    "PlanRow",
    "PublishedRow",
    "RunSettings",
    "Sensitivity",
    "SizePlan",
    "StopInfo",
    "SweepCell",
    "SweepOutcome",
    "Task",
    "TaskInfo",
    "TopItem",
    "Verdict",
    "Verifier",
    "add_sensitivity",
    "analyse",
    "backtest_census",
    "backtest_run",
    "broken_tasks",
    "census_requests",
    "check_coverage",
    "compare_results",
    "decode",
    "default_out",
    "equal_coverage",
    "load_config",
    "load_result",
    "make_verifier",
    "overlap_runs",
    "pilot_sample",
    "plan_census",
    "plugin_tasks",
    "prepare_census",
    "published_rows",
    "read_items",
    "resolve_task",
    "richness_info",
    "run_census",
    "run_prevalence",
    "run_sweep",
    "sample_of",
    "sample_of_result",
    "score_items",
    "sensitivity",
    "sweep_cells",
    "sweep_configs",
    "task_catalogue",
    "trust_horizon",
    "write_run",
]

__getattr__ = old_names(__name__, {"CensusResult": ("knowsum.census", "CensusRecord")})
"""The record's old name ``CensusResult`` still works, with a ``DeprecationWarning``."""
