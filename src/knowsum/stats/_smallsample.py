"""The warnings of a small or odd sample, raised by every unseen estimator (:mod:`knowsum.stats.unseen`).

Each is a :class:`~knowsum.stats.StatsWarning` whose message starts with its name, so a note says
why the figure says little:

- ``tiny sample``: fewer than :data:`TINY_SAMPLE` observations: ``Û(t)`` extrapolates ``t·n``
  further observations from a handful (KnowSum's runs hold thousands);
- ``no singletons``: ``f₁ = 0``, so a linear estimator's ``Û(t)`` comes only from items seen two or
  more times, whose weights alternate in sign (``h_s ∝ (−t)^s``): an artefact of the weights, not
  evidence of unseen items (Good–Turing's missing mass ``f₁/n`` is 0);
- ``Good–Toulmin beyond t = 1``: its weights ``−(−t)^s`` grow without bound (Good & Toulmin 1956);
- a negative ``Û(t)`` (reported as 0): the message names the cause — the truncation ``k`` too deep
  for the sample (a smaller ``k``; ``k = 1`` is never negative), or Good–Toulmin beyond ``t = 1``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from knowsum.stats._errors import StatsWarning

if TYPE_CHECKING:
    from knowsum.stats.prevalence import Prevalence
    from knowsum.stats.unseen import EstimatorPlan

__all__ = ["TINY_SAMPLE", "warn_small_sample"]

TINY_SAMPLE = 20
"""Below this many observations an estimate carries a ``tiny sample`` warning (knowsum's rule)."""


def _negative_cause(plan: EstimatorPlan, prev: Prevalence) -> str:
    """Why a linear estimator went negative on ``prev``, and what gives a usable value."""
    f1 = f"the {prev.f(1):,} singleton{'s' if prev.f(1) != 1 else ''}"
    if plan.name == "good-toulmin" and plan.t is not None and plan.t > 1:
        return (
            f"Good–Toulmin is reliable only for t ≤ 1 (here t = {plan.t:g}); beyond it its weights "
            "−(−t)^s explode: take more queries, t ≤ 1, or the smoothed estimator 'et'"
        )
    if plan.name == "good-toulmin":
        return (
            f"the items seen 2 or more times outweigh {f1}, which the unsmoothed (unbiased) "
            "estimator allows on a small sample: take more queries, or the smoothed estimator 'et'"
        )
    depth = f"k = {plan.k}" if plan.k is not None else f"r = {plan.parameters.get('r', 0):.3g}"
    return (
        f"its weights alternate in sign (h_s ∝ (−t)^s) and, with {depth} at t = {plan.t:g}, the items "
        f"seen 2 or more times outweigh {f1}: the truncation is too deep for this sample. Take more "
        "queries, a smaller k (k = 1 is never negative) or a smaller t"
    )


def _warn(message: str) -> None:
    warnings.warn(message, StatsWarning, stacklevel=6)


def warn_small_sample(plan: EstimatorPlan, prev: Prevalence, value: float) -> None:
    """Warn (module docstring) about what makes ``value``, ``plan`` applied to ``prev``, say little."""
    n = prev.n_observations
    if n < TINY_SAMPLE:
        what = (
            "the estimate"
            if plan.t is None
            else f"Û(t) at t = {plan.t:g} extrapolates {plan.t * n:,.4g} further observations from {n:,} and"
        )
        _warn(
            f"tiny sample: only n = {n:,} observation{'s' if n != 1 else ''} of {prev.n_seen:,} "
            f"item{'s' if prev.n_seen != 1 else ''} (fewer than {TINY_SAMPLE}): {what} says little "
            "about the unseen items; collect more observations"
        )
    if plan.weights is not None and prev.f(1) == 0 and value != 0:
        _warn(
            f"no singletons: no item was seen exactly once, so {plan.name}'s Û(t) = {value:.4g} comes "
            "only from items seen 2 or more times, whose weights alternate in sign; Good–Turing's "
            "missing mass f1/n is 0: the sample shows no evidence of unseen items"
        )
    if plan.name == "good-toulmin" and plan.t is not None and plan.t > 1 and value >= 0:
        _warn(
            f"Good–Toulmin beyond t = 1: at t = {plan.t:g} its weights −(−t)^s grow without bound and "
            "Û(t) is not reliable (Good & Toulmin 1956 hold it for t ≤ 1): use t ≤ 1 or the smoothed "
            "estimator 'et'"
        )
    if value < 0:
        _warn(
            f"{plan.name}: the estimated number of unseen items is negative (raw Û = {value:.4g}); "
            "reported as Û = 0, N̂_tot = N_seen (as SpadeR and iNEXT do). Why: "
            f"{_negative_cause(plan, prev)}"
        )
