"""knowsum.profile — how much does this model know? One command, every instrument, one page.

A *profile* runs the installed instruments a *budget* names (``smoke``, ``quick``, ``paper``, or
one's own TOML) on one model and one response store, and writes one page placing every measure among
the models the papers measured. knowsum's built-in instruments and any installed plug-in (an
instrument, or a task of one) take part the same way: this package reaches them through the registry.

::

    from knowsum.models import ResponseStore, open_backend
    from knowsum.profile import load_budget, plan_profile, run_profile

    backend = open_backend("smollm2-135m-instruct")
    with ResponseStore() as store:
        plan = plan_profile(load_budget("smoke"), backend, store=store)
        run = run_profile(plan, backend, store=store, out=Path("profile-smollm2"))
    run.report  # profile-smollm2/index.html

:func:`profile_page` places finished run directories on the same page without asking anything (runs
read back from inspect logs, say: ``knowsum profile page RUN…``).

Layers: this package sits between the command line and the instruments, and reaches them only
through the registry (:func:`knowsum.instrument.instruments`): it names none of them.
"""

from knowsum._util import old_names
from knowsum.instrument import Step, wilson
from knowsum.profile._budget import BUDGETS, ProfileBudget, load_budget
from knowsum.profile._page import profile_page
from knowsum.profile._plan import ProfilePlan, plan_profile
from knowsum.profile._run import (
    PAGE_NAME,
    RESULT_FILE,
    ProfileRun,
    claim_profile_dir,
    load_profile,
    profile_entry,
    run_profile,
    write_profile,
)
from knowsum.profile._steps import plan_steps, step_requests, unique_steps
from knowsum.records import PublishedRow
from knowsum.records.profile import (
    InstrumentPlan,
    InstrumentProfile,
    Measure,
    PlanSummary,
    Prices,
    ProfileRecord,
)

__all__ = [
    "BUDGETS",
    "PAGE_NAME",
    "RESULT_FILE",
    "InstrumentPlan",
    "InstrumentProfile",
    "Measure",
    "PlanSummary",
    "Prices",
    "ProfileBudget",
    "ProfilePlan",
    "ProfileRecord",
    "ProfileRun",
    "PublishedRow",
    "Step",
    "claim_profile_dir",
    "load_budget",
    "load_profile",
    "plan_profile",
    "plan_steps",
    "profile_entry",
    "profile_page",
    "run_profile",
    "step_requests",
    "unique_steps",
    "wilson",
    "write_profile",
]

__getattr__ = old_names(
    __name__,
    {
        "ProfileResult": ("knowsum.profile", "ProfileRecord"),
        "Budget": ("knowsum.profile", "ProfileBudget"),
    },
)
"""``Budget`` was the whole profile's budget; it is :class:`ProfileBudget` now, so that ``Budget``
means one thing: an instrument's budget table (``Instrument.Budget``); ``ProfileResult`` is
:class:`ProfileRecord`, as every run record is ``<Name>Record``. Both old names still work, with a
``DeprecationWarning``."""
