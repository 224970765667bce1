"""How one predictor did over the splits of one ``t`` — every number with its Monte Carlo error.

Over ``R`` splits with prediction ``Û_j`` (shown as ``max(Û_j, 0)``), truth ``U_j`` (new items of the
held-back queries) and ``N_j = N_seen(kept_j) + U_j`` (the items all the split's queries show):

- bias ``b = mean(e)``, ``e_j = Û_j − U_j``; relative to ``mean U`` and to ``mean N`` (the error of
  ``N̂_tot`` is the error of ``Û``: only the scale differs);
- RMSE ``r = sqrt(mean(e²))``, relative to the same two scales;
- coverage ``c`` of the confidence interval (bootstrap, of ``E U``) and of the prediction interval
  (of ``U``, :mod:`knowsum.stats.prediction`), an n/a interval counting as a miss — except a
  prediction interval that is n/a because ``Û ≤ 0`` on a split that showed no new item: the census
  prints 0 new items there and 0 came, so its statement held (a saturated census, whose every split
  is such a split, is not failed for predicting nothing exactly) — and the mean interval score
  (Gneiting & Raftery 2007, eq. 43) over the splits whose interval exists;
- Monte Carlo standard errors (the splits are i.i.d. draws given the census): bias ``sd(e)/√R``;
  RMSE by the delta method ``sd(e²)/(2 r √R)``; a coverage ``sqrt(c(1 − c)/R)``; relative ones
  divided by their scale (held fixed);
- the **noise floor**: ``sqrt(Var(U | kept))``, the error an oracle that knew ``E U`` would still
  make. Under Poisson sampling ``Var(U) = Σ_i q_i(1 − q_i) ≤ E U``, estimated by ``sqrt(mean U)``
  (relative: ``1/sqrt(mean U)``; to ``N``: ``sqrt(mean U)/mean N``) — an upper estimate of the floor.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from knowsum.stats._arrays import FloatArray
from knowsum.stats._errors import StatsError
from knowsum.stats.prediction import interval_score

__all__ = ["Scores", "score"]


@dataclass(frozen=True, slots=True)
class Scores:
    """How one predictor did over the repeats of one ``t`` (NaN: undefined).

    Attributes:
        predicted: Mean prediction (reported as ``max(Û, 0)``, the census's rule).
        observed: Mean number of new items the held-back queries showed.
        bias: ``mean(Û − U)``.
        relative_bias: ``bias / mean(U)``.
        relative_rmse: ``sqrt(mean((Û − U)²)) / mean(U)``.
        coverage: Share of repeats whose confidence interval contains ``U`` (an n/a interval does not).
        no_interval: Share of repeats whose confidence interval was n/a.
        band: 2.5 % and 97.5 % quantiles of ``Û`` over the repeats.
        diverged: Share of repeats whose prediction is not finite (Good–Toulmin at large ``t``).
        repeats: ``R``, the splits.
        n_total: ``mean N``: items seen by all the queries of a split.
        relative_bias_total: ``bias / mean N``.
        relative_rmse_total: ``RMSE / mean N``.
        pi_coverage: Share of repeats whose prediction interval contains ``U`` (or, n/a at ``Û ≤ 0``,
            whose ``U`` is 0: the prediction of no new item held).
        pi_covered: The count behind it (for a Wilson bound).
        pi_no_interval: Share of repeats whose prediction interval was n/a.
        ci_score: Mean interval score of the confidence interval (where it exists).
        pi_score: Mean interval score of the prediction interval (where it exists).
        noise_floor: ``sqrt(mean U)``.
        bias_se: MC s.e. of ``bias``.
        rmse_se: MC s.e. of the RMSE.
        coverage_se: MC s.e. of ``coverage``.
        pi_coverage_se: MC s.e. of ``pi_coverage``.
    """

    predicted: float
    observed: float
    bias: float
    relative_bias: float
    relative_rmse: float
    coverage: float
    no_interval: float
    band: tuple[float, float]
    diverged: float
    repeats: int = 0
    n_total: float = math.nan
    relative_bias_total: float = math.nan
    relative_rmse_total: float = math.nan
    pi_coverage: float = math.nan
    pi_covered: int = 0
    pi_no_interval: float = math.nan
    ci_score: float = math.nan
    pi_score: float = math.nan
    noise_floor: float = math.nan
    bias_se: float = math.nan
    rmse_se: float = math.nan
    coverage_se: float = math.nan
    pi_coverage_se: float = math.nan


def _share_se(c: float, r: int) -> float:
    return math.sqrt(c * (1.0 - c) / r)


def _covers(
    lower: FloatArray, upper: FloatArray, obs: FloatArray
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    lo, hi = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    has = np.isfinite(lo) & np.isfinite(hi)
    return has, has & (lo <= obs) & (obs <= hi)


def _mean_score(
    lower: FloatArray, upper: FloatArray, obs: FloatArray, has: NDArray[np.bool_], level: float
) -> float:
    if not has.any():
        return math.nan
    return float(interval_score(lower[has], upper[has], obs[has], level).mean())


def score(
    predicted: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    observed: FloatArray,
    *,
    pi_lower: FloatArray | None = None,
    pi_upper: FloatArray | None = None,
    kept_seen: FloatArray | None = None,
    level: float = 0.95,
) -> Scores:
    """Bias, RMSE, coverage and interval scores of ``predicted`` against ``observed`` (one entry per
    repeat), with Monte Carlo standard errors (see the module docstring).

    ``lower``/``upper``: the confidence interval; ``pi_lower``/``pi_upper``: the prediction interval;
    ``kept_seen``: ``N_seen`` of each split's kept queries (for the errors relative to ``N``).
    Non-finite predictions count as diverged and make every error NaN (there is no number to judge);
    finite ones so large that their squares overflow (Good–Toulmin's 10¹³⁹ far beyond ``t = 1``) give
    an infinite error, silently: the number is the answer, not a fault to warn about.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        return _score(predicted, lower, upper, observed, pi_lower, pi_upper, kept_seen, level)


def _score(
    predicted: FloatArray,
    lower: FloatArray,
    upper: FloatArray,
    observed: FloatArray,
    pi_lower: FloatArray | None,
    pi_upper: FloatArray | None,
    kept_seen: FloatArray | None,
    level: float,
) -> Scores:
    pred = np.asarray(predicted, dtype=np.float64)
    obs = np.asarray(observed, dtype=np.float64)
    if pred.shape != obs.shape or pred.size == 0:
        raise StatsError(f"need as many predictions as observations (>= 1), got {pred.shape} and {obs.shape}")
    r = pred.size
    finite = bool(np.isfinite(pred).all())
    shown = np.where(np.isfinite(pred), np.maximum(pred, 0.0), np.nan)
    scale = float(obs.mean())
    err = shown - obs
    nan = math.nan
    bias = float(err.mean()) if finite else nan
    rmse = float(np.sqrt(np.mean(err * err))) if finite else nan
    sd = float(err.std(ddof=1)) if finite and r > 1 else nan
    sd2 = float((err * err).std(ddof=1)) if finite and r > 1 else nan
    has, covered = _covers(lower, upper, obs)
    coverage = float(covered.mean())
    total = float((np.asarray(kept_seen, dtype=np.float64) + obs).mean()) if kept_seen is not None else nan
    if pi_lower is not None and pi_upper is not None:
        pi_has, pi_hit = _covers(pi_lower, pi_upper, obs)
        pi_hit = pi_hit | (~pi_has & (shown == 0) & (obs == 0))  # "0 new items", and none came
        pi_cov, pi_count = float(pi_hit.mean()), int(pi_hit.sum())
        pi_na = float((~pi_has).mean())
        pi_sc = _mean_score(np.asarray(pi_lower), np.asarray(pi_upper), obs, pi_has, level)
    else:
        pi_cov, pi_count, pi_na, pi_sc = nan, 0, nan, nan
    return Scores(
        predicted=float(shown.mean()) if finite else nan,
        observed=scale,
        bias=bias,
        relative_bias=bias / scale if scale > 0 else nan,
        relative_rmse=rmse / scale if scale > 0 else nan,
        coverage=coverage,
        no_interval=float((~has).mean()),
        band=(float(np.quantile(shown, 0.025)), float(np.quantile(shown, 0.975))) if finite else (nan, nan),
        diverged=float((~np.isfinite(pred)).mean()),
        repeats=r,
        n_total=total,
        relative_bias_total=bias / total if total > 0 else nan,
        relative_rmse_total=rmse / total if total > 0 else nan,
        pi_coverage=pi_cov,
        pi_covered=pi_count,
        pi_no_interval=pi_na,
        ci_score=_mean_score(np.asarray(lower), np.asarray(upper), obs, has, level),
        pi_score=pi_sc,
        noise_floor=math.sqrt(max(scale, 0.0)),
        bias_se=sd / math.sqrt(r),
        rmse_se=sd2 / (2.0 * rmse * math.sqrt(r)) if rmse > 0 else nan,
        coverage_se=_share_se(coverage, r),
        pi_coverage_se=_share_se(pi_cov, r) if math.isfinite(pi_cov) else nan,
    )
