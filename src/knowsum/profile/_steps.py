"""A budget turned into instrument runs (:class:`~knowsum.instrument.Step`) and the requests of each.

Each step is an ordinary run of one instrument, written to ``OUT/<step name>``; which runs a budget
table makes is the instrument's own ``steps`` (e.g. one per task and scoring rule, the rules sharing
their responses). :func:`step_requests` asks the instrument for the requests its run sends —
the one place they are built — so a plan counts exactly the store keys the run will use.
"""

from __future__ import annotations

from knowsum.errors import ConfigError
from knowsum.instrument import KBs, Step, get_instrument, instruments
from knowsum.models import Request
from knowsum.profile._budget import ProfileBudget

__all__ = ["Step", "plan_steps", "step_requests", "unique_steps"]


def plan_steps(budget: ProfileBudget) -> list[Step]:
    """The instrument runs of ``budget``, instrument by instrument in the registry's order.

    Raises:
        ConfigError: an instrument refuses a setting (the message names it).
    """
    return [
        step
        for name, inst in instruments().items()
        if name in budget.tables
        for step in unique_steps(inst.steps(budget.tables[name]), f"budget {budget.name}", name)
    ]


def unique_steps(steps: list[Step], where: str, table: str) -> list[Step]:
    """``steps``, each a folder of its own: a step made twice (a task or criterion listed twice in the
    table) would run twice into one folder and give its card rows twice.

    Raises:
        ConfigError: the first step name made twice (names ``where``, the table and the step).
    """
    seen: set[str] = set()
    for step in steps:
        if step.name in seen:
            raise ConfigError(
                f"{where}: [{table}] makes the run {step.name} twice (a value listed twice?): list each once"
            )
        seen.add(step.name)
    return steps


def step_requests(step: Step, kbs: KBs | None = None) -> list[Request]:
    """The requests ``step``'s run sends, from its instrument's ``requests`` (loads the KBs it needs).

    Args:
        step: The step.
        kbs: Knowledge bases shared between the steps of one plan (filled here).

    Raises:
        KBNotInstalledError: the step's knowledge base is not installed (says the install command).
    """
    return get_instrument(step.instrument).requests(step.config, KBs() if kbs is None else kbs)
