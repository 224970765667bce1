"""The ecologists' numbers beside the KnowSum headline: coverage, Chao estimate, Hill numbers.

A census sample is abundance data when every mention counts (``count = "mention"``: ``X_i`` = the
mentions of item ``i``, ``n = Σ X_i``) and incidence data when an item counts once per response
(``count = "incidence"``: each response is a sampling unit, ``Y_i`` = the responses naming item
``i``, ``T`` = every response, those that named nothing included). :func:`sample_of` builds the
:mod:`knowsum.stats` sample of each mode from a run's prevalence; :func:`richness_info` computes

- sample coverage ``Ĉ = 1 − f1/n · (n−1)f1/((n−1)f1 + 2f2)`` (``Q1/U`` and ``T`` for incidence;
  Chao & Jost 2012, Ecology 93:2533), the estimated share of the model's output distribution that the
  items seen make up;
- the bias-corrected Chao estimate of the counting mode: Chao1-bc ``S_obs + (n−1)/n · f1(f1−1)/(2(f2+1))``
  (Chao 2005) or Chao2-bc ``S_obs + (T−1)/T · Q1(Q1−1)/(2(Q2+1))`` (Chao 1987; Chao et al. 2009),
  with SpadeR's s.e. and Chao's log-normal interval (never below ``S_obs``);
- asymptotic Hill numbers ``q = 0, 1, 2`` (Chao et al. 2014, Ecol. Monogr. 84:45; iNEXT ``AsyD``)
  with iNEXT's bootstrap intervals.

The record can be rebuilt from a ``result.json`` alone (:func:`sample_of_result`): its prevalence
``(s, n_s)`` gives the counts, and ``n_queries`` gives ``T``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal

import numpy as np

from knowsum.census.record import CensusRecord, ChaoEstimate, HillEstimate, RichnessInfo
from knowsum.records import caveat_notes
from knowsum.stats import (
    Abundance,
    Caveat,
    Incidence,
    Prevalence,
    StatsError,
    chao1_bc,
    chao2_bc,
    hill_numbers,
    sample_coverage,
)
from knowsum.stats.caveats import sample_caveats

__all__ = [
    "CHAO_METHODS",
    "COVERAGE_METHODS",
    "HILL_METHOD",
    "richness_info",
    "sample_of",
    "sample_of_result",
]

COVERAGE_METHODS = {
    "abundance": "Ĉ = 1 − f1/n · (n−1)f1/((n−1)f1 + 2f2), Chao & Jost 2012",
    "incidence": "Ĉ = 1 − Q1/U · (T−1)Q1/((T−1)Q1 + 2Q2), Chao & Jost 2012",
}
CHAO_METHODS = {
    "abundance": ("chao1-bc", "Chao1-bc = S_obs + (n−1)/n · f1(f1−1)/(2(f2+1)), Chao 2005; s.e. SpadeR"),
    "incidence": ("chao2-bc", "Chao2-bc = S_obs + (T−1)/T · Q1(Q1−1)/(2(Q2+1)), Chao 1987; s.e. SpadeR"),
}
DataKind = Literal["abundance", "incidence"]
HILL_METHOD = (
    "asymptotic qD, Chao et al. 2014 (q=0 Chao1/Chao2, q=1 Chao, Wang & Jost 2013, q=2 unbiased "
    "Simpson); iNEXT bootstrap"
)


def sample_of(prev: Prevalence, counting: str) -> Abundance | Incidence:
    """The run's sample as abundance (``counting = "mention"``) or incidence data (``"incidence"``,
    the responses as sampling units: ``prev`` must hold its per-query matrix)."""
    if counting == "incidence":
        return Incidence.from_prevalence(prev)
    return Abundance.from_prevalence(prev)


def sample_of_result(result: CensusRecord) -> Abundance | Incidence:
    """The sample of a ``result.json``, from its prevalence ``(s, n_s)`` and ``n_queries``.

    Raises:
        StatsError: the run verified nothing (``N_seen = 0``).
    """
    if not result.prevalence:
        raise StatsError("the run verified no item (N_seen = 0): there is no sample")
    counts = np.repeat(
        np.array([s for s, _ in result.prevalence], dtype=np.int64),
        np.array([n for _, n in result.prevalence], dtype=np.int64),
    )
    if result.counting == "incidence":
        return Incidence(counts, result.n_queries)
    return Abundance(counts)


def _chao(data: Abundance | Incidence, level: float) -> ChaoEstimate:
    if isinstance(data, Incidence):
        name, method = CHAO_METHODS["incidence"]
        est = chao2_bc(data, conf=level)
    else:
        name, method = CHAO_METHODS["abundance"]
        est = chao1_bc(data, conf=level)
    return ChaoEstimate(
        name=name,
        method=method,
        estimate=est.estimate,
        std_error=est.std_error,
        interval=est.interval,
        level=level,
    )


def _hill(
    data: Abundance | Incidence, n_bootstrap: int, level: float, seed: int
) -> tuple[HillEstimate, list[str], tuple[Caveat, ...]]:
    notes = []
    try:
        h = hill_numbers(data, n_bootstrap=n_bootstrap, conf=level, seed=seed)
    except StatsError as exc:  # too few informative replicates: the estimates without an interval
        notes.append(f"Hill numbers: no bootstrap interval ({exc})")
        h = hill_numbers(data, n_bootstrap=0, conf=level)
    estimated = _finite(h.estimated)
    undefined = [f"q={q}" for q, x in zip(h.q, estimated, strict=True) if x is None]
    if undefined:
        notes.append(
            f"Hill numbers {', '.join(undefined)}: undefined on this sample (too few repeated items)"
        )
    lower = None if h.lower is None else _finite(h.lower)
    upper = None if h.upper is None else _finite(h.upper)
    if h.std_error is not None and lower is not None and upper is not None:
        flat = [i for i, sd in enumerate(h.std_error) if not sd > 0]  # the bootstrap could not vary
        flat = [i for i in flat if estimated[i] is not None]  # (an undefined one is said above)
        for i in flat:
            lower[i] = upper[i] = None
        if flat:
            qs = ", ".join(f"q={h.q[i]}" for i in flat)
            notes.append(f"Hill numbers {qs}: no interval, every bootstrap replicate gave the same value")
    return (
        HillEstimate(
            q=list(h.q),
            observed=[float(x) for x in h.observed],
            estimated=estimated,
            lower=lower,
            upper=upper,
            n_bootstrap=h.n_bootstrap,
            level=level,
            method=HILL_METHOD,
        ),
        notes,
        h.caveats,
    )


TINY = 20
"""Below this many observations (abundance) or responses (incidence) the notes call the sample tiny."""


def _finite(values: Iterable[float]) -> list[float | None]:
    """The values, each non-finite one (an undefined estimate) as ``None``."""
    return [float(x) if math.isfinite(x) else None for x in values]


def richness_info(data: Abundance | Incidence, *, n_bootstrap: int, level: float, seed: int) -> RichnessInfo:
    """Coverage, the Chao estimate of the data's kind and Hill numbers (module docstring).

    Args:
        data: The census sample (:func:`sample_of`).
        n_bootstrap: Replicates of the Hill intervals (0: none).
        level: Confidence level of the intervals.
        seed: Seed of the Hill bootstrap.
    """
    hill, notes, hill_caveats = _hill(data, n_bootstrap, level, seed)
    kind: DataKind = "incidence" if isinstance(data, Incidence) else "abundance"
    what = "each of the coverage, Chao estimate and Hill numbers"
    caveats = caveat_notes(sample_caveats(data.size, data.s_obs, data.f(1), what), hill_caveats)
    if data.size < TINY:
        unit = ("response" if kind == "incidence" else "observation") + ("" if data.size == 1 else "s")
        notes.insert(
            0,
            f"tiny sample: coverage, Chao estimate and Hill numbers from {data.size} {unit} "
            f"(fewer than {TINY}) say little; collect more",
        )
    return RichnessInfo(
        data=kind,
        size=data.size,
        coverage=sample_coverage(data).coverage,
        coverage_method=COVERAGE_METHODS[kind],
        chao=_chao(data, level),
        hill=hill,
        notes=notes,
        caveats=caveats,
    )
