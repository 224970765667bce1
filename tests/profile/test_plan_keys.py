"""``profile plan`` counts exactly the store keys each instrument's run stores: for every registered
instrument (enumerated from the registry, so a new one must join the tiny plan) and for a plug-in's
census task, the keys of ``step_requests`` equal the keys a run of the step writes to a fresh store."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, plugin_tasks
from knowsum.instrument import KBs, Step, get_instrument, instruments
from knowsum.models import MockBackend, ResponseStore
from knowsum.profile import ProfileBudget, load_budget, plan_steps, step_requests
from tests.profile._tiny import answer, tiny_plan

pytestmark = pytest.mark.realdata


def _tiny() -> ProfileBudget:
    with tempfile.TemporaryDirectory() as folder:
        return load_budget(plan=tiny_plan(Path(folder)))


def _steps() -> list[Step]:
    steps = plan_steps(_tiny())
    if "elements" in plugin_tasks():  # the example plug-in's task (tests/census/test_plugin_task.py)
        steps.append(Step("census", "census-elements", CensusConfig(task="elements", queries=2), "plug-in"))
    return steps


def test_the_tiny_plan_has_a_table_for_every_registered_instrument() -> None:
    assert set(_tiny().tables) == set(instruments()), "add the new instrument to tests/profile/_tiny.py"


@pytest.mark.parametrize("step", _steps(), ids=lambda s: s.name)
def test_the_plan_counts_exactly_the_keys_the_run_stores(step: Step, tmp_path: Path) -> None:
    backend = MockBackend(answer)
    planned = {backend.key(r) for r in step_requests(step, KBs())}
    assert planned
    with ResponseStore(tmp_path / "s.sqlite") as store:
        get_instrument(step.instrument).run(
            step.config, backend, store=store, out=tmp_path / "out", progress=False
        )
        stored = {r.key for r in store.responses()}
    assert stored == planned


def test_the_old_name_of_the_profile_budget_still_works_with_a_warning() -> None:
    import knowsum.profile

    with pytest.warns(DeprecationWarning, match="profile.Budget is now knowsum.profile.ProfileBudget"):
        assert knowsum.profile.Budget is ProfileBudget
