"""Each census's error at its own ``t``: the parametric bootstrap of :mod:`knowsum.stats.community`
(run by :func:`~knowsum.stats.summarize` with the census's estimate), recorded as ``own_t_check`` and
printed as the caveat beside ``N̂_tot``.

The census's estimator is applied as resolved on the census (its ``k`` — held-out or given — kept
for every simulated census rather than re-selected, which keeps the cost to a few hundredths of a
second for a census of a few hundred queries). It replaces the 10-query back-test verdict on
``N̂_tot``: the trust horizon record is still computed and printed as its own row.
"""

from __future__ import annotations

from knowsum.census.record import OwnTCheck
from knowsum.stats import Caveat, CaveatKind
from knowsum.stats import community as cm
from knowsum.stats.own_t_text import describe_own_t, finite_or_none

__all__ = ["own_t_caveat", "own_t_record"]


_SAME = (
    "t",
    "n_queries",
    "replicates",
    "community_size",
    "undetected",
    "coverage_hat",
    "distinct",
    "mean_new",
    "mean_total",
    "coverage",
    "coverage_se",
    "unavailable",
)
"""Fields the record copies from the simulated check as they are."""
_FINITE = ("error", "error_total", "error_se", "bias", "noise_floor")
"""Fields the record copies with NaN as ``None``."""


def own_t_record(check: cm.OwnTCheck, estimator: str, k: int | None, seed: int | None) -> OwnTCheck:
    """The record of a simulated check, with the sentence printed beside ``N̂_tot``
    (:func:`~knowsum.stats.own_t_text.describe_own_t`, the words ``knowsum estimate`` prints too)."""
    same = {name: getattr(check, name) for name in _SAME}
    finite = {name: finite_or_none(getattr(check, name)) for name in _FINITE}
    message = describe_own_t(check, k)
    return OwnTCheck(**same, **finite, seed=seed, estimator=estimator, k=k, message=message)


def own_t_caveat(check: OwnTCheck) -> Caveat:
    """The ``simulated error at own t`` caveat of ``N̂_tot``."""
    return Caveat(CaveatKind.OWN_T, f"simulated error at own t: {check.message}", "N̂_tot")
