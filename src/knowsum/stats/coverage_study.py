"""Does a census's prediction interval hold what the next queries show? A coverage study on a known
community (:mod:`knowsum.stats.community`), with the confidence interval beside it.

For each of ``replicates`` censuses of ``Q`` queries simulated from the community, the census's
estimator is applied as a census applies it (:func:`~knowsum.stats.summarize`: ``k`` chosen on the
replicate's own held-out splits when ``k = "auto"``, the census default), with its 95 % prediction
interval (:mod:`knowsum.stats.predict_unseen`) and its 95 % confidence interval (the log-normal
bootstrap interval over whole queries, :mod:`knowsum.stats.bootstrap`); each is scored against the
realised new items ``U(t)`` of an independent continuation of ``t·Q`` queries: coverage (an n/a
interval counts as a miss) with its binomial Monte Carlo s.e., and Gneiting & Raftery's (2007, eq. 43)
mean interval score over the replicates where both intervals exist.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

from knowsum.stats._errors import StatsError, StatsWarning
from knowsum.stats.community import Community, simulate
from knowsum.stats.prediction import interval_score
from knowsum.stats.summary import summarize

__all__ = ["SYNTHETIC", "CoverageStudy", "coverage_study", "synthetic_community"]

SYNTHETIC = ("zipf", "lognormal", "head-flat")
"""The synthetic communities of :func:`synthetic_community`, unlike any census knowsum has seen."""


@dataclass(frozen=True, slots=True)
class CoverageStudy:
    """Coverage and interval scores of the prediction and the confidence interval.

    Attributes:
        t: Extrapolation factor.
        replicates: Simulated censuses.
        prediction_coverage: Share of prediction intervals holding the realised ``U(t)``.
        prediction_se: Its binomial s.e.
        confidence_coverage: Share of confidence intervals holding it.
        confidence_se: Its binomial s.e.
        prediction_score: Mean interval score of the prediction intervals (lower is better).
        confidence_score: Mean interval score of the confidence intervals.
        scored: Replicates where both intervals exist (the scores' base).
    """

    t: float
    replicates: int
    prediction_coverage: float
    prediction_se: float
    confidence_coverage: float
    confidence_se: float
    prediction_score: float
    confidence_score: float
    scored: int

    @property
    def score_ratio(self) -> float:
        """Prediction interval's mean score / confidence interval's."""
        return self.prediction_score / self.confidence_score if self.confidence_score > 0 else math.nan


def synthetic_community(name: str, seed: int = 1) -> Community:
    """One of three communities with answer lengths, empty answers and tails unlike a theorem census:

    - ``zipf``: 2,000 items, ``p_i ∝ i^(−1.1)``; answers Poisson(3) long, 20 % empty; items may repeat
      within an answer;
    - ``lognormal``: 800 items with log-normal(0, 1.5) abundances; answers 1–12 items long (uniform),
      never empty, never repeating an item;
    - ``head-flat``: 10 items holding half the mass, then a flat tail of 5,000; answers of 0 (40 %),
      1 or 2 items.
    """
    rng = np.random.default_rng(seed)
    if name == "zipf":
        p = np.arange(1, 2001, dtype=np.float64) ** -1.1
        lengths = np.where(rng.random(400) < 0.2, 0, rng.poisson(3, 400))
        distinct = False
    elif name == "lognormal":
        p = np.exp(rng.normal(0.0, 1.5, 800))
        lengths, distinct = rng.integers(1, 13, 400), True
    elif name == "head-flat":
        p = np.r_[np.full(10, 0.05), np.full(5000, 0.5 / 5000)]
        lengths = np.where(rng.random(400) < 0.4, 0, 1 + (rng.random(400) < 0.2))
        distinct = False
    else:
        raise StatsError(f"unknown synthetic community {name!r}; known: {', '.join(SYNTHETIC)}")
    return Community(p / p.sum(), 0, 0, 1.0, np.asarray(lengths, dtype=np.int64), distinct)


def _se(p: float, n: int) -> float:
    return math.sqrt(p * (1 - p) / n) if n else math.nan


def coverage_study(
    community: Community,
    n_queries: int,
    t: float,
    estimator: str = "et",
    k: int | Literal["auto"] | None = "auto",
    replicates: int = 200,
    n_bootstrap: int = 100,
    seed: int = 0,
    level: float = 0.95,
    n_shuffles: int = 100,
) -> CoverageStudy:
    """Coverage of the census's prediction and confidence intervals on ``community`` (module docstring)."""
    rng = np.random.default_rng(seed)
    sims = simulate(community, n_queries, t, replicates, rng)
    pi_hit = ci_hit = 0
    scores: list[tuple[float, float]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        for b in range(replicates):
            truth = float(sims.new[b])
            prev = sims.census(b)
            summary = summarize(prev, estimator, t, k, n_bootstrap, level, seed + b, n_shuffles=n_shuffles)
            ci = summary.interval if summary.interval_reason is None else None
            pred = summary.prediction
            pi = None if pred is None else pred.unseen
            pi_ok = pi is not None and pi[0] <= truth <= pi[1]
            ci_ok = ci is not None and ci[0] < ci[1] and ci[0] <= truth <= ci[1]
            pi_hit += pi_ok
            ci_hit += ci_ok
            if pi is not None and ci is not None and ci[0] < ci[1]:
                scores.append(
                    (
                        float(interval_score(pi[0], pi[1], truth, level)),
                        float(interval_score(ci[0], ci[1], truth, level)),
                    )
                )
    arr = np.array(scores) if scores else np.full((1, 2), np.nan)
    pc, cc = pi_hit / replicates, ci_hit / replicates
    return CoverageStudy(
        t=t,
        replicates=replicates,
        prediction_coverage=pc,
        prediction_se=_se(pc, replicates),
        confidence_coverage=cc,
        confidence_se=_se(cc, replicates),
        prediction_score=float(arr[:, 0].mean()),
        confidence_score=float(arr[:, 1].mean()),
        scored=len(scores),
    )
