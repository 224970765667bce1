"""Each census's error at its own ``t``: the parametric bootstrap of :mod:`knowsum.stats.community`
(run by :func:`~knowsum.stats.summarize` with the census's estimate), recorded as ``own_t_check`` and
printed as the caveat beside ``N̂_tot``.

The census's estimator is applied as resolved on the census (its ``k`` — held-out or given — kept
for every simulated census rather than re-selected, which keeps the cost to a few hundredths of a
second for a census of a few hundred queries). It replaces the 10-query back-test verdict on
``N̂_tot``: the trust horizon record is still computed and printed as its own row.
"""

from __future__ import annotations

import math

from knowsum.census.record import OwnTCheck
from knowsum.stats import Caveat, CaveatKind
from knowsum.stats import community as cm

__all__ = ["own_t_caveat", "own_t_record"]


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


def _signed(x: float | None) -> str:
    """``+12%`` / ``-3%``, ``+0%`` for what rounds to zero (never ``-0%``), ``n/a`` without a value."""
    return "n/a" if x is None else f"{x if abs(x) >= 0.005 else 0.0:+.0%}"


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


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
    """The record of a simulated check, with the sentence printed beside ``N̂_tot``."""
    err, err_se = _finite(check.error_total), _finite(check.error_se)
    err_u, bias = _finite(check.error), _finite(check.bias)
    seen = check.community_size - check.undetected
    message = (
        f"at t = {check.t:g} from this census: expected error {_pct(err)} of N_tot (±{_pct(err_se)} MC; "
        f"{_pct(err_u)} of the new items U, bias {_signed(bias)}), prediction "
        f"interval covers {check.coverage:.0%} (±{check.coverage_se:.0%}) — simulated: {check.replicates} "
        f"censuses of {check.n_queries:,} queries from the fitted community ({seen:,} seen items + "
        f"{check.undetected:,} unseen of equal probability, Chao1's lower bound, so at large t the simulated "
        "error is optimistic), the census's k kept"
    )
    same = {name: getattr(check, name) for name in _SAME}
    finite = {name: _finite(getattr(check, name)) for name in _FINITE}
    return OwnTCheck(**same, **finite, seed=seed, estimator=estimator, k=k, message=message)


def own_t_caveat(check: OwnTCheck) -> Caveat:
    """The ``simulated error at own t`` caveat of ``N̂_tot``."""
    return Caveat(CaveatKind.OWN_T, f"simulated error at own t: {check.message}", "N̂_tot")
