"""The caveats of a small or odd sample, returned (and warned) by every unseen estimator.

Each is a :class:`~knowsum.stats.caveats.Caveat` of :mod:`knowsum.stats.unseen`'s estimate, and a
:class:`~knowsum.stats.StatsWarning` with the same message, which starts with its mark, so a note says
why the figure says little:

- ``tiny sample``: fewer than :data:`TINY_SAMPLE` observations: ``Û(t)`` extrapolates ``t·n``
  further observations from a handful (KnowSum's runs hold thousands);
- ``no singletons``: ``f₁ = 0``, so a linear estimator's ``Û(t)`` comes only from items seen two or
  more times, whose weights alternate in sign (``h_s ∝ (−t)^s``): an artefact of the weights, not
  evidence of unseen items (Good–Turing's missing mass ``f₁/n`` is 0), so it is reported as 0;
- ``all singletons``: every item seen exactly once: nothing says how many remain unseen;
- ``beyond supported range``: Good–Toulmin beyond ``t = 1`` (its weights ``−(−t)^s`` grow without
  bound, Good & Toulmin 1956), a smoothed estimator beyond ``t ∝ log n`` (:mod:`knowsum.stats.caveats`);
- ``Û capped at t·n``: a ``Û(t)`` above ``t·n``, the most new items ``t·n`` further observations
  can show (reported as ``t·n``);
- a negative ``Û(t)`` (reported as 0): the message names the cause — the truncation ``k`` too deep
  for the sample (a smaller ``k``; ``k = 1`` is never negative), or Good–Toulmin beyond ``t = 1``.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from knowsum.stats._errors import StatsWarning
from knowsum.stats.caveats import TINY_SAMPLE, Caveat, CaveatKind, range_caveat, sample_caveats

if TYPE_CHECKING:
    from knowsum.stats.prevalence import Prevalence
    from knowsum.stats.unseen import EstimatorPlan

__all__ = ["TINY_SAMPLE", "small_sample_caveats", "warn_small_sample"]


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


def small_sample_caveats(plan: EstimatorPlan, prev: Prevalence, value: float) -> list[Caveat]:
    """The caveats (module docstring) of ``value``, ``plan`` applied to ``prev``, in warning order."""
    n = prev.n_observations
    what = (
        "the estimate"
        if plan.t is None
        else f"Û(t) at t = {plan.t:g} extrapolates {plan.t * n:,.4g} further observations from {n:,} and"
    )
    found = [c for c in sample_caveats(n, prev.n_seen, prev.f(1), what) if c.kind == CaveatKind.TINY_SAMPLE]
    if plan.weights is not None and prev.f(1) == 0 and value != 0:
        found.append(
            Caveat(
                CaveatKind.NO_SINGLETONS,
                f"no singletons: no item was seen exactly once, so {plan.name}'s Û(t) = {value:.4g} comes "
                "only from items seen 2 or more times, whose weights alternate in sign; Good–Turing's "
                "missing mass f1/n is 0: the sample shows no evidence of unseen items, so Û is reported as 0",
                "Û(t)",
            )
        )
    found += [c for c in sample_caveats(n, prev.n_seen, prev.f(1)) if c.kind == CaveatKind.ALL_SINGLETONS]
    beyond = range_caveat(plan.name, plan.t, n)
    if beyond is not None:
        found.append(beyond)
    if value < 0:
        found.append(
            Caveat(
                CaveatKind.CLAMPED,
                f"{plan.name}: the estimated number of unseen items is negative (raw Û = {value:.4g}); "
                "reported as Û = 0, N̂_tot = N_seen (as SpadeR and iNEXT do). Why: "
                f"{_negative_cause(plan, prev)}",
                "Û(t)",
            )
        )
    ceiling = None if plan.t is None else plan.t * n
    no_evidence = plan.weights is not None and prev.f(1) == 0  # reported as 0 (above): nothing to cap
    if ceiling is not None and value > ceiling and not no_evidence:
        found.append(
            Caveat(
                CaveatKind.CAPPED,
                f"Û capped at t·n: {plan.name}'s Û(t) = {value:.4g} exceeds t·n = {ceiling:,.4g}, the most "
                f"new items {ceiling:,.4g} further observations can show; reported as Û = {ceiling:,.4g}, "
                "its intervals cut there. The estimator has left its range: take a smaller k or t",
                "Û(t)",
            )
        )
    return found


def warn_small_sample(plan: EstimatorPlan, prev: Prevalence, value: float) -> tuple[Caveat, ...]:
    """Warn (a :class:`StatsWarning` each) about what makes ``value`` say little; return the caveats."""
    found = small_sample_caveats(plan, prev, value)
    for caveat in found:
        warnings.warn(caveat.message, StatsWarning, stacklevel=5)
    return tuple(found)
