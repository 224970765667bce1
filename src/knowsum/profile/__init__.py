"""knowsum.profile — how much does this model know? One command, three instruments, one page.

A *profile* runs census (KnowSum: how many diseases and theorems the model would name), recall
(Bombieri et al.: which ontology IDs it has memorized) and genebench (SciHorizon-GENE: how it reasons
from gene knowledge) on one model and one response store, sized by a *budget* (``smoke``, ``quick``,
``paper``, or one's own TOML), and writes one page placing every measure among the models the papers
measured.

::

    from knowsum.models import ResponseStore, open_backend
    from knowsum.profile import load_budget, plan_profile, run_profile

    backend = open_backend("smollm2-135m-instruct")
    with ResponseStore() as store:
        plan = plan_profile(load_budget("smoke"), backend, store=store)
        run = run_profile(plan, backend, store=store, out=Path("profile-smollm2"))
    run.report  # profile-smollm2/index.html

Layers: this package sits between the command line and the instruments; it composes their public
entry points (``run_census``, ``run_recall``, ``run_genebench``) and nothing below them.
"""

from knowsum.profile._budget import BUDGETS, Budget, CensusBudget, GenebenchBudget, RecallBudget, load_budget
from knowsum.profile._measures import census_measures, genebench_measures, recall_measures, wilson
from knowsum.profile._plan import ProfilePlan, plan_profile
from knowsum.profile._run import (
    PAGE_NAME,
    RESULT_FILE,
    ProfileRun,
    claim_profile_dir,
    load_profile,
    run_profile,
    write_profile,
)
from knowsum.profile._steps import Step, plan_steps, step_requests
from knowsum.records.profile import (
    InstrumentPlan,
    InstrumentProfile,
    Measure,
    PlanSummary,
    ProfileResult,
    PublishedPoint,
)

__all__ = [
    "BUDGETS",
    "PAGE_NAME",
    "RESULT_FILE",
    "Budget",
    "CensusBudget",
    "GenebenchBudget",
    "InstrumentPlan",
    "InstrumentProfile",
    "Measure",
    "PlanSummary",
    "ProfilePlan",
    "ProfileResult",
    "ProfileRun",
    "PublishedPoint",
    "RecallBudget",
    "Step",
    "census_measures",
    "claim_profile_dir",
    "genebench_measures",
    "load_budget",
    "load_profile",
    "plan_profile",
    "plan_steps",
    "recall_measures",
    "run_profile",
    "step_requests",
    "wilson",
    "write_profile",
]
