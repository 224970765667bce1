"""Profile records built by hand for tests of the card, the page and the comparison tables."""

from __future__ import annotations

from knowsum.records.profile import PlanSummary

__all__ = ["empty_plan"]


def empty_plan(budget: str = "b") -> PlanSummary:
    """A plan that asked nothing: every count 0, no expectation, no cost (the card's figures are the
    test's own measures, not the plan's)."""
    return PlanSummary(
        budget=budget,
        requests=0,
        stored=0,
        prompt_tokens=0,
        completion_tokens=0,
        completion_tokens_expected=None,
        seconds_expected=None,
        cost_usd=None,
        cost_expected_usd=None,
        tokens_source="",
        time_source="",
        instruments={},
    )
