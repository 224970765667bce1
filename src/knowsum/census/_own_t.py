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
from knowsum.stats.own_t_text import own_t_dict

__all__ = ["own_t_caveat", "own_t_record"]


def own_t_record(check: cm.OwnTCheck) -> OwnTCheck:
    """The record of a simulated check: the JSON object ``knowsum estimate --json`` prints for the
    same check (:func:`~knowsum.stats.own_t_text.own_t_dict`), whose ``message`` is the sentence
    printed beside ``N̂_tot``."""
    return OwnTCheck(**own_t_dict(check, whole="census", unit="queries"))


def own_t_caveat(check: OwnTCheck) -> Caveat:
    """The ``simulated error at own t`` caveat of ``N̂_tot``."""
    return Caveat(CaveatKind.OWN_T, f"simulated error at own t: {check.message}", "N̂_tot")
