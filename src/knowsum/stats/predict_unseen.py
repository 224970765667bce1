"""The 95 % prediction interval of the new items ``U(t)`` (and ``N_tot(t) = N_seen + U(t)``) for each
unseen estimator family, beside the estimate's confidence interval.

A confidence interval says where ``E U(t)`` lies; a prediction interval says what ``t`` times as many
further observations will *show*, so it adds the randomness of the future sample
(:mod:`knowsum.stats.prediction`): ``E(Û − U)² = Var(Û) + Var(U) + bias²``.

- **Linear estimators** (``et`` = smoothed Good–Turing / Efron–Thisted, KnowSum eq. 1;
  ``osw-binomial``, ``osw-poisson``; ``good-toulmin``): ``Û = Σ_s h_s f_s``. Under Poisson sampling
  the ``f_s`` are independent Poisson counts, so ``Var(Û) = Σ_s h_s² E f_s``, estimated by the plug-in
  ``Σ_s h_s² f_s`` (Efron & Thisted 1976, eq. 3.4; Orlitsky, Suresh & Wu 2016, PNAS 113:13283, the
  variance term of their bound on ``E(Û − U)²``). ``U = Σ_i 1{i unseen now, seen later}`` is a sum
  of independent indicators, ``Var(U) ≤ E U``, estimated by ``Û`` — times ``D̂ ≥ 1``, the queries'
  index of dispersion, since a query brings its new items in a bundle
  (:mod:`knowsum.stats.dispersion`; 1 without queries). The interval is Chao's (1987)
  log-normal form around ``Û`` with ``v = max(Σ h_s² f_s, Var*(Û)) + D̂·Û + b̂²``
  (:func:`~knowsum.stats.prediction.prediction_bounds`), ``Var*(Û)`` the bootstrap variance of the
  confidence interval where one was drawn (resampling whole queries keeps the items of one answer
  together, which the Poisson plug-in assumes away; without a bootstrap ``Σ h_s² f_s`` alone), and
  ``b̂`` the estimator's bias at this
  ``t`` simulated from the community fitted to the sample (a parametric bootstrap,
  :mod:`knowsum.stats.community`; 0 when no community can be fitted): the smoothed estimators are
  biased low at ``t > 1`` when ``k`` is small, by more than their variance on a long flat tail, and a
  variance-only interval then covers ~80 % instead of 95 % (``bench/bench_prediction.py``).
  It assumes that the queries are independent (``D̂`` takes care of the items within one) and that
  the fitted community's bias is the census's.
- **preseq and Pitman–Yor** (finite ``t``, not linear in the ``f_s``): no closed-form ``Var(Û)``, so
  ``v`` = the bootstrap variance of ``Û`` + ``Var(U)``: the fitted Pitman–Yor process's own
  predictive variance ``Var(U(t) | σ̂, θ̂)`` (:func:`knowsum.stats.pitman_yor.predictive_variance`), or
  ``D̂·Û`` for preseq — the interval the back-test scores for them
  (``knowsum census backtest``). Without a bootstrap it is n/a.
- **Chao1** estimates the asymptote ``t = ∞``, where every item of the community is eventually seen:
  ``U(∞) = f0`` is a fixed property of the community, not a random draw, so no future sampling
  variance is added: the prediction interval of the items ever seen *is* the confidence interval
  (Chao 1987), and is shown as such.
- **One rule for every t.** Every prediction interval knowsum prints — the headline at the run's
  ``t``, each point of the extrapolation curve and of the ``t`` sensitivity study — is
  :func:`predict_unseen` of that ``t``'s plan with that ``t``'s own bootstrap variance (the curve
  re-estimates every ``t`` on the headline's resamples) and that ``t``'s own simulated bias
  (:func:`simulated_biases`: the headline's simulation, one set of draws scored at every ``t``). So
  the curve at the run's ``t`` *is* the headline, and without a bootstrap (``--n-bootstrap 0``) every
  ``t`` uses ``Σ h_s² f_s`` alike.
- **Never narrower than the confidence interval.** A prediction interval of ``U`` adds the future's
  randomness to the uncertainty of ``E U``, so it is the hull of the interval above and the confidence
  interval of the same ``t`` (the log-normal confidence interval, ``v`` = bootstrap variance, is
  always inside already; a re-centred percentile interval, skewed, can reach past one end).
- ``Û(t) ≤ 0`` (a saturated census; the alternating weights at large ``t``): ``[0, q]``, ``q`` the
  ``1 − α/2`` Poisson quantile at ``z·sqrt(v)`` (:func:`~knowsum.stats.prediction.prediction_bounds`).
- Where the interval cannot be formed (``Û(t) ≤ 0`` with ``v = 0``, no or all singletons, a confidence
  interval that is n/a for Chao1) the ends are ``None`` and :attr:`PredictionInterval.reason` says why (``n/a:
  REASON`` on every surface, never ``[x, x]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from knowsum.stats._errors import StatsError
from knowsum.stats.caveats import CaveatKind
from knowsum.stats.community import MAX_DRAWS, OWN_T_REPLICATES, fit_community, simulate
from knowsum.stats.dispersion import query_dispersion
from knowsum.stats.prediction import plugin_variance, prediction_bounds
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.unseen import EstimatorPlan, UnseenEstimate

__all__ = [
    "BIAS_METHOD",
    "BOOT_METHOD",
    "CHAO1_METHOD",
    "FUTURE_TEXT",
    "LINEAR_METHOD",
    "NONLINEAR_METHOD",
    "PROCESS_METHOD",
    "ZERO_METHOD",
    "PredictionInterval",
    "future_text",
    "linear_variance",
    "predict_unseen",
    "simulated_biases",
]

FUTURE_TEXT = "D̂·Û (Poisson U times D̂, the queries' dispersion)"
"""The future's variance in every method below (:mod:`knowsum.stats.dispersion`); an interval's own
method names its ``D̂`` (:func:`future_text`)."""
LINEAR_METHOD = f"log-normal (Chao 1987) around Û with v = Σ h_s² f_s (Poisson plug-in) + {FUTURE_TEXT}"
"""How the prediction interval of a linear estimator is formed."""
BOOT_METHOD = (
    "log-normal (Chao 1987) around Û with v = bootstrap variance of Û (above the "
    f"Poisson plug-in Σ h_s² f_s here) + {FUTURE_TEXT}"
)
"""How the prediction interval of a linear estimator is formed when the bootstrap (whole queries, or
multinomial on the counts: the resampling is named beside it) varies more than the plug-in."""
BIAS_METHOD = " + b̂² (the bias simulated at this t from the community fitted to the sample)"
"""Appended to :data:`LINEAR_METHOD` when the simulated bias widens the interval."""
NONLINEAR_METHOD = f"log-normal (Chao 1987) around Û with v = bootstrap variance of Û + {FUTURE_TEXT}"
"""How the prediction interval of preseq is formed."""
PROCESS_METHOD = (
    "log-normal (Chao 1987) around Û with v = bootstrap variance of Û + Var(U) of the fitted "
    "Pitman–Yor process"
)
"""How the prediction interval of the Pitman–Yor predictive is formed."""
ZERO_METHOD = "; Û ≤ 0, so [0, the Poisson quantile at z·sqrt(v)] (an upper bound of E U, then of U)"
"""Appended where ``Û ≤ 0``: the interval of :func:`~knowsum.stats.prediction.prediction_bounds` then."""
HULL_METHOD = "; widened to hold the confidence interval (a prediction interval is never the narrower)"
"""Said where the confidence interval reaches past the log-normal prediction bounds (a percentile
interval's re-centred lower end, say): the printed interval is the hull of the two."""
CHAO1_METHOD = "t = ∞: U = f0 is not random, so the prediction interval is the confidence interval"
"""Why the prediction interval of Chao1 equals its confidence interval."""

Interval = tuple[float, float]


@dataclass(frozen=True, slots=True)
class PredictionInterval:
    """The prediction interval of ``U(t)`` and ``N_tot(t)``.

    Attributes:
        unseen: ``[lo, hi]`` of ``U(t)``, or ``None`` (n/a, see :attr:`reason`).
        total: ``[lo, hi]`` of ``N_tot(t) = N_seen + U(t)``, or ``None``.
        variance: The estimate's variance used (``max(Σ h_s² f_s, Var*(Û)) + b̂²`` for a linear
            estimator, the bootstrap variance for preseq and Pitman–Yor; NaN for Chao1).
        method: How it was formed (:data:`LINEAR_METHOD`, :data:`CHAO1_METHOD`).
        reason: Why it is not shown, or ``None``.
        dispersion: ``D̂``, the factor on the Poisson ``Var(U) = Û`` (1: Poisson, or not used).
    """

    unseen: Interval | None
    total: Interval | None
    variance: float
    method: str
    reason: str | None = None
    dispersion: float = 1.0


def future_text(dispersion: float | None) -> str:
    """:data:`FUTURE_TEXT` with the value of ``D̂``; ``None``: a sample without queries (Poisson)."""
    if dispersion is None:
        return "Û (Poisson U: a sample without queries)"
    return f"D̂·Û (Poisson U times D̂ = {dispersion:.2f}, the queries' dispersion)"


def linear_variance(plan: EstimatorPlan, prev: Prevalence) -> float:
    """``Σ_s h_s² f_s``: the Poisson plug-in variance of a linear estimator (NaN for Chao1)."""
    if plan.weights is None:
        return math.nan
    h = plan.weights(prev.max_count)[: prev.n_s.size]
    return float(plugin_variance(prev.n_s[: h.size], h))


def _na(reason: str, variance: float, method: str) -> PredictionInterval:
    return PredictionInterval(None, None, variance, method, reason)


def predict_unseen(
    plan: EstimatorPlan,
    prev: Prevalence,
    estimate: UnseenEstimate,
    confidence: Interval | None,
    confidence_reason: str | None,
    level: float = 0.95,
    bias: float | None = None,
    bootstrap_variance: float | None = None,
    dispersion: float | None = None,
) -> PredictionInterval:
    """The ``level`` prediction interval of ``estimate`` (see the module docstring).

    Args:
        plan: The estimator as resolved for ``prev``.
        prev: The sample.
        estimate: ``plan`` applied to ``prev``.
        confidence: The confidence interval of ``Û`` (Chao1's prediction interval), or ``None``.
        confidence_reason: Why that interval is n/a, or ``None``.
        level: Coverage.
        bias: The simulated bias ``b̂`` of the estimator at this ``t`` (items), or ``None``.
        bootstrap_variance: The variance of ``Û*`` over the confidence interval's resamples, or
            ``None``. ``Var̂(Û)`` is the larger of it and ``Σ h_s² f_s``: resampling whole queries
            keeps the items one answer names together, which the Poisson plug-in assumes away, and a
            prediction interval narrower than the confidence interval of the same ``Û`` would
            contradict it. The interval returned is the hull of the log-normal one and
            ``confidence`` (when shown), so it never is narrower than the confidence interval.
        dispersion: ``D̂``, the queries' index of dispersion that multiplies the Poisson
            ``Var(U) = Û`` (:func:`~knowsum.stats.dispersion.query_dispersion`, computed from ``prev``
            when ``None``; a caller forming many intervals of one sample passes it once).
    """
    n_seen = float(prev.n_seen)
    boot = (
        bootstrap_variance if bootstrap_variance is not None and math.isfinite(bootstrap_variance) else None
    )
    d = query_dispersion(prev.by_query) if dispersion is None else dispersion
    future: float | None = d * max(estimate.estimate, 0.0)
    process: float | None = None
    if plan.weights is None and plan.t is None:
        if confidence is None or confidence_reason is not None:
            why = confidence_reason or "no confidence interval (bootstrap skipped)"
            return _na(why, math.nan, CHAO1_METHOD)
        lo, hi = confidence
        return PredictionInterval((lo, hi), (n_seen + lo, n_seen + hi), math.nan, CHAO1_METHOD)
    if plan.weights is None:
        process = _process_variance(estimate)
        future = future if process is None else process
        method = NONLINEAR_METHOD if process is None else PROCESS_METHOD
        if boot is None:
            return _na(
                confidence_reason or "no bootstrap variance of Û (bootstrap skipped)", math.nan, method
            )
        variance = boot
    else:
        closed = linear_variance(plan, prev)
        b = bias or 0.0
        variance = max(closed, boot if boot is not None else 0.0) + b * b  # b * b: inf, never OverflowError
        method = (BOOT_METHOD if boot is not None and boot > closed else LINEAR_METHOD) + (
            BIAS_METHOD if bias is not None else ""
        )
    kinds = {c.kind for c in estimate.caveats}
    if CaveatKind.NO_SINGLETONS in kinds:
        return _na("no singletons, so no evidence of unseen items", variance, method)
    if CaveatKind.ALL_SINGLETONS in kinds:
        return _na("all singletons, so nothing bounds the unseen items", variance, method)
    lo_a, hi_a = prediction_bounds(estimate.estimate, variance, level, future)
    lo, hi = float(lo_a), float(hi_a)
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        if not math.isfinite(variance):
            why = "the variance is not finite"
        elif not (math.isfinite(lo) and math.isfinite(hi)):  # a Poisson quantile at a mean of 1e27, say
            why = f"its ends are not finite numbers: the variance {variance:.3g} is past their float range"
        else:
            where = "Û(t) ≤ 0 and its" if estimate.estimate <= 0 else "its"
            why = f"{where} variance {variance:.3g}: the interval is a point"
        return _na(why, variance, method)
    if estimate.estimate <= 0:
        method += ZERO_METHOD
    if confidence is not None and confidence_reason is None and all(map(math.isfinite, confidence)):
        if confidence[0] < lo or confidence[1] > hi:  # the method names the end the hull moved
            method += HULL_METHOD
        lo, hi = min(lo, confidence[0]), max(hi, confidence[1])
    lo, hi = min(lo, estimate.ceiling), min(hi, estimate.ceiling)  # t·n observations show at most t·n items
    if hi <= lo:
        return _na(
            "Û(t) is capped at t·n, the most new items there can be: the interval is a point",
            variance,
            method,
        )
    if process is None:
        method = method.replace(FUTURE_TEXT, future_text(d if prev.by_query is not None else None))
    return PredictionInterval((lo, hi), (n_seen + lo, n_seen + hi), variance, method, dispersion=d)


def _process_variance(estimate: UnseenEstimate) -> float | None:
    """``Var(U(t))`` of the fitted process where the estimator reports one (the Pitman–Yor
    predictive's ``predictive_sd``), else ``None``."""
    sd = estimate.parameters.get("predictive_sd")
    return float(sd) * float(sd) if isinstance(sd, int | float) and math.isfinite(sd) else None


def simulated_biases(
    prev: Prevalence, plans: list[EstimatorPlan], seed: int | None = 0, replicates: int = OWN_T_REPLICATES
) -> list[float | None]:
    """The simulated bias ``b̂(t) = mean(max(Û(t), 0) − U(t))`` of each linear plan (``None`` for Chao1,
    a nonlinear plan, or where :func:`~knowsum.stats.community.check_at_own_t` has no check).

    One simulation for all plans, with the check's community, replicates and ``seed``
    (:func:`~knowsum.stats.community.simulate` draws the same censuses and continuation at every
    ``t``), so at the run's ``t`` this is exactly the check's ``bias_items``, the ``b̂`` of the
    headline prediction interval.
    """
    ts = [p.t for p in plans if p.weights is not None and p.t is not None]
    n = prev.n_observations
    replicates = min(replicates, MAX_DRAWS // max(n, 1))
    if not ts or replicates < 20:
        return [None] * len(plans)
    try:
        community = fit_community(prev)
    except StatsError:
        return [None] * len(plans)
    rng = np.random.default_rng(seed)
    sims = simulate(community, prev.n_queries or n, ts[0], replicates, rng, more_t=ts, mentions=False)
    truths = iter(sims.new_at)
    out: list[float | None] = []
    for plan in plans:
        if plan.weights is None or plan.t is None:
            out.append(None)
            continue
        h = plan.weights(max(sims.hist.shape[1] - 1, 1))
        width = min(sims.hist.shape[1], h.size)
        est = np.maximum(
            sims.hist[:, :width].astype(np.float64) @ np.asarray(h[:width], dtype=np.float64), 0.0
        )
        out.append(float((est - next(truths).astype(np.float64)).mean()))
    return out
