"""Caveats as data: what makes a figure say less than it seems, returned with every estimate.

A :class:`Caveat` is a kind (:class:`CaveatKind`), the short mark every surface prints beside the
figure (:data:`CAVEAT_MARKS`) and a sentence saying why and what to do. The estimators return them
(``UnseenEstimate.caveats``, ``Summary.caveats``, ``HillNumbers.caveats``, ``SharedEstimate``
through :func:`shared_above_own`); the instruments copy them into their records and the pages print
them from there. Adding a kind is one enum member and one mark.

Kinds, and when each is raised:

- ``tiny sample``: fewer than :data:`TINY_SAMPLE` observations (knowsum's rule; KnowSum's runs hold
  thousands);
- ``no singletons``: ``f₁ = 0``: Good–Turing's missing mass ``f₁/n`` is 0, the sample shows no
  evidence of unseen items, and a linear estimator's ``Û(t)`` comes only from the alternating
  weights of items seen twice or more (reported as ``Û = 0``, the raw value kept);
- ``all singletons``: every item seen exactly once (``f₁ = N_seen``, ``f₂ = 0``): the sample cannot
  say how many items remain (Chao1 grows as ``f₁²/2``, a linear ``Û(t)`` as ``t·f₁``);
- ``Û clamped at 0``: the estimator's ``Û(t)`` was negative and is reported as 0 (SpadeR, iNEXT);
- ``Û capped at t·n``: the estimator's ``Û(t)`` exceeded ``t·n``, the most new items ``t·n`` further
  observations can show, and is reported as ``t·n``, its intervals cut there (knowsum's rule);
- ``interval n/a``: the bootstrap cannot give a 95 % interval (every resample alike, or a log-normal
  interval around ``Û = 0``): pages print ``n/a: REASON``, never ``[x, x]``;
- ``beyond supported range``: ``t`` beyond the range in which the estimator is known to work:
  Good–Toulmin ``t ≤ 1`` (Good & Toulmin 1956, whose weights ``−(−t)^s`` explode beyond it); the
  smoothed estimators (``et``, ``osw-*``) ``t ≤ ln n / ln(1/0.9)``. Orlitsky, Suresh & Wu (PNAS 2016,
  Theorem 1) bound the worst case over all distributions of the *normalised* MSE
  ``E(Û − U)²/(n·t)² ≲ n^(−1/t)`` (up to a constant; their Corollary: NMSE ``δ`` up to
  ``t ≍ ln n / ln(1/δ)``). The normaliser is ``(n·t)²``, not ``U²``: ``U ≤ n·t`` and on a census
  ``U ≪ n·t``, so even inside the range the theorem bounds the error relative to ``n·t`` only, and says
  nothing of the error relative to ``U``. knowsum marks ``t`` where the normalised bound exceeds 0.9
  (about ``9.5·ln n``: ``t = 100`` from ``n ≈ 38,000``), and states the bound in items; the census's
  error relative to ``U`` and ``N_tot`` at its own ``t`` is the simulated check (``simulated error at
  own t``);
- ``beyond 2n``: a rarefaction/extrapolation target (a size, or the size a coverage needs) more than
  twice the sample: Chao et al. (2014) and iNEXT (Hsieh, Ma & Chao 2016) find extrapolation reliable
  only up to ``2n``;
- ``Hill numbers out of order``: estimated ``⁰D ≥ ¹D ≥ ²D`` fails (true Hill numbers never
  increase with ``q``, Chao et al. 2014): the estimates are not trustworthy on this sample;
- ``shared above own richness``: an estimate of the items two samples share that exceeds either
  sample's own estimated richness (impossible for the true values);
- ``beyond back-tested horizon`` (:attr:`CaveatKind.HORIZON`): the census's ``t`` lies beyond the
  largest ``t`` its own queries back-test (the trust horizon, :mod:`knowsum.census`'s back-test).
  Records written before the simulated error at own ``t`` carry it on ``N̂_tot``; a census now
  states its horizon in the horizon record and attaches the simulated error instead;
- ``simulated error at own t`` (:attr:`CaveatKind.OWN_T`): beside a census's ``N̂_tot``, the error and
  prediction-interval coverage its estimator shows at the census's own ``t`` on censuses of the same
  size simulated from a community fitted to it (:mod:`knowsum.stats.community`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence

from knowsum.caveats import CAVEAT_MARKS, Caveat, CaveatKind

__all__ = [
    "CAVEAT_MARKS",
    "GOOD_TOULMIN_T_MAX",
    "OSW_NMSE_LIMIT",
    "TINY_SAMPLE",
    "Caveat",
    "CaveatFields",
    "CaveatKind",
    "beyond_double",
    "caveat_dicts",
    "hill_order",
    "interval_unavailable",
    "range_caveat",
    "sample_caveats",
    "shared_above_own",
    "supported_t",
    "tiny_at",
    "unreachable_coverage",
]

TINY_SAMPLE = 20
"""Below this many observations an estimate carries a ``tiny sample`` caveat (knowsum's rule)."""

GOOD_TOULMIN_T_MAX = 1.0
"""Good & Toulmin (1956): the unsmoothed estimator holds for ``t ≤ 1``."""

OSW_NMSE_LIMIT = 0.9
"""The smoothed estimators' range ends where Orlitsky–Suresh–Wu's NMSE bound ``n^(−1/t)`` passes this."""

SMOOTHED = frozenset({"et", "osw-binomial", "osw-poisson"})
"""The smoothed Good–Toulmin estimators (Orlitsky, Suresh & Wu 2016), whose range grows with ``log n``."""


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def sample_caveats(
    n: int, n_seen: int, f1: int, what: str = "the estimate", *, units: int | None = None
) -> list[Caveat]:
    """The caveats of the sample itself: ``tiny sample``, ``no singletons``, ``all singletons``.

    The tiny-sample rule counts the observations the estimate rests on (:data:`TINY_SAMPLE`). For
    incidence data those are the incidences ``U`` (each item's detection in a unit), not the ``T``
    sampling units: Chao2 and ICE read the incidence frequencies ``Q_k`` as Chao1 and ACE read the
    ``f_k``, so 19 units holding 516 incidences are no tiny sample, while 3 incidences are, however
    many units hold them. Pass ``n = U`` and ``units = T``; the message then names both.

    Args:
        n: Observations (abundance), or incidences ``U`` (incidence data, with ``units``).
        n_seen: Distinct items seen.
        f1: Items seen exactly once (in exactly one unit).
        what: What the sample is used for, named in the tiny-sample message.
        units: ``T``, the sampling units of incidence data (``None``: abundance data).
    """
    out = []
    if 0 < n < TINY_SAMPLE:
        if units is None:
            size, more = f"n = {_plural(n, 'observation')}", "observations"
        else:
            size = f"U = {_plural(n, 'incidence')} in T = {_plural(units, 'sampling unit')}"
            more = "sampling units"
        out.append(
            Caveat(
                CaveatKind.TINY_SAMPLE,
                f"tiny sample: only {size} of {_plural(n_seen, 'item')} (fewer than {TINY_SAMPLE}): "
                f"{what} says little about the unseen items; collect more {more}",
            )
        )
    if n_seen > 0 and f1 == 0:
        out.append(
            Caveat(
                CaveatKind.NO_SINGLETONS,
                "no singletons: no item was seen exactly once, so Good–Turing's missing mass f1/n is 0: "
                "the sample shows no evidence of unseen items, and any Û(t) > 0 comes only from the "
                "alternating weights of items seen 2 or more times",
            )
        )
    if n_seen > 0 and f1 == n_seen:
        who = "the only item" if n_seen == 1 else f"each of the {n_seen:,} items"
        out.append(
            Caveat(
                CaveatKind.ALL_SINGLETONS,
                f"all singletons: {who} was seen exactly once (f2 = 0), so "
                "the sample cannot say how many remain unseen (Chao1 grows as f1²/2, Û(t) as t·f1): "
                "collect more observations until items repeat",
            )
        )
    return out


def supported_t(estimator: str, n: int) -> float | None:
    """The largest ``t`` at which ``estimator`` is known to work on ``n`` observations.

    Good–Toulmin: 1 (Good & Toulmin 1956). The smoothed estimators: ``ln n / ln(1/0.9)``, where
    Orlitsky, Suresh & Wu's (2016, Theorem 1) bound ``n^(−1/t)`` on the MSE normalised by ``(n·t)²``
    reaches :data:`OSW_NMSE_LIMIT` (``t ∝ log n``);
    at least 1. ``None`` for estimators without ``t`` (Chao1) or unknown names.
    """
    if estimator == "good-toulmin":
        return GOOD_TOULMIN_T_MAX
    if estimator in SMOOTHED:
        return max(1.0, math.log(max(n, 1)) / math.log(1.0 / OSW_NMSE_LIMIT))
    return None


def range_caveat(estimator: str, t: float | None, n: int) -> Caveat | None:
    """A ``beyond supported range`` caveat when ``t`` exceeds :func:`supported_t`, else ``None``."""
    limit = supported_t(estimator, n)
    if t is None or limit is None or t <= limit * (1 + 1e-12):
        return None
    if estimator == "good-toulmin":
        why = (
            f"Good–Toulmin beyond t = 1: at t = {t:g} its weights −(−t)^s grow without bound and Û(t) is "
            "not reliable (Good & Toulmin 1956 hold it for t ≤ 1): use t ≤ 1 or the smoothed estimator 'et'"
        )
    else:
        rmse = n * t * n ** (-0.5 / t)
        why = (
            f"beyond supported range: t = {t:g} extrapolates past t ≈ {limit:.3g} (the range grows as "
            "t ∝ log n). Orlitsky, Suresh & Wu's "
            "guarantee (PNAS 2016, Theorem 1) bounds the worst-case error only relative to n·t, "
            "E(Û − U)² ≲ (n·t)²·n^(−1/t), and that bound passes "
            f"{OSW_NMSE_LIMIT:g}·(n·t)² here (n = {n:,}): it allows an error of {rmse:,.3g} items, so it "
            "says nothing about U itself — how far this figure holds is the simulated error at its own t, or "
            "a smaller t or more observations"
        )
    return Caveat(CaveatKind.BEYOND_RANGE, why, "Û(t)")


def interval_unavailable(reason: str, figure: str = "interval") -> Caveat:
    """The ``interval n/a`` caveat: pages print ``n/a: REASON`` instead of an interval."""
    return Caveat(CaveatKind.INTERVAL_NA, f"interval n/a: {reason}", figure)


def beyond_double(size: float, n: int, figure: str) -> Caveat | None:
    """A ``beyond 2n`` caveat when the target ``size`` exceeds twice the sample ``n`` (iNEXT's limit)."""
    if not size > 2 * n * (1 + 1e-9):
        return None
    return Caveat(
        CaveatKind.BEYOND_2N,
        f"beyond 2n: {figure} needs m = {size:,.4g}, {size / max(n, 1):,.3g} × the sample n = {n:,}; "
        "Chao et al. (2014) and iNEXT hold extrapolation reliable only up to 2n",
        figure,
    )


def unreachable_coverage(target: float, reached: float, size: float) -> Caveat | None:
    """A ``beyond supported range`` caveat when no size reaches the coverage ``target``: the size
    found, ``size``, has coverage ``reached`` instead (e.g. one observation: ``Ĉ(m) = 1`` at every ``m``)."""
    if abs(reached - target) <= 1e-3:
        return None
    return Caveat(
        CaveatKind.BEYOND_RANGE,
        f"beyond supported range: no sample size reaches coverage {target:g} on this sample (Ĉ(m) = "
        f"{reached:.4g} at m = {size:,.4g}): the figures are those at m, not at coverage {target:g}",
        f"at coverage {target:g}",
    )


def tiny_at(size: float, figure: str) -> Caveat | None:
    """A ``tiny sample`` caveat when a figure rests on a rarefied size ``m`` below :data:`TINY_SAMPLE`."""
    if size >= TINY_SAMPLE:
        return None
    return Caveat(
        CaveatKind.TINY_SAMPLE,
        f"tiny sample: {figure} rests on m = {size:,.3g} observations (fewer than {TINY_SAMPLE}), "
        "so it says little and may reorder the ranking; choose a higher coverage",
        figure,
    )


def hill_order(q: Sequence[int], values: Sequence[float | None], what: str = "estimated") -> Caveat | None:
    """A ``Hill numbers out of order`` caveat when ``values`` (by increasing ``q``) increase anywhere."""
    pairs = [(o, v) for o, v in zip(q, values, strict=True) if v is not None and math.isfinite(v)]
    bad = [
        f"q={a} {va:.4g} < q={b} {vb:.4g}"
        for (a, va), (b, vb) in itertools.pairwise(pairs)
        if vb > va * (1 + 1e-9) + 1e-12
    ]
    if not bad:
        return None
    return Caveat(
        CaveatKind.HILL_ORDER,
        f"Hill numbers out of order: {what} {'; '.join(bad)}, but true Hill numbers never increase with q "
        "(Chao et al. 2014): the sample is too small or too uneven for these estimates",
        "Hill numbers",
    )


def shared_above_own(shared: float, own: Mapping[str, float | None], figure: str = "shared") -> Caveat | None:
    """A ``shared above own richness`` caveat when ``shared`` exceeds a community's own estimate.

    Args:
        shared: The estimated number of shared items.
        own: Community name → its own estimated richness (``None``: not known).
        figure: The figure named in the message.
    """
    above = [
        f"{name}'s own {value:,.4g}" for name, value in own.items() if value is not None and shared > value
    ]
    if not above:
        return None
    return Caveat(
        CaveatKind.SHARED_ABOVE_OWN,
        f"shared above own richness: {figure} {shared:,.4g} exceeds {' and '.join(above)}, which the true "
        "values cannot do: the shared estimate is not reliable on these samples",
        figure,
    )


CaveatFields = Caveat
"""The one caveat type under the name this module's protocol had (kept so that old imports work)."""


def caveat_dicts(caveats: Sequence[Caveat]) -> list[dict[str, str]]:
    """Caveats as JSON objects ``{kind, mark, message, figure}`` (one layout for every ``--json``)."""
    return [{"kind": str(c.kind), "mark": c.mark, "message": c.message, "figure": c.figure} for c in caveats]
