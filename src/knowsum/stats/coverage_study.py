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

from knowsum.stats._errors import StatsWarning
from knowsum.stats.community import Community, simulate
from knowsum.stats.prediction import interval_score
from knowsum.stats.summary import summarize

__all__ = ["CoverageStudy", "coverage_study"]


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
