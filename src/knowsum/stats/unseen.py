"""Unseen-species estimators: how many new items would ``t·n`` further observations reveal?

Given the prevalence ``n_s`` of ``n`` observations, ``U(t)`` is the number of distinct items that
are absent from the sample but would appear among ``t·n`` further observations.

- ``et`` (the default, ``t = 100``): smoothed Good–Turing / Efron–Thisted, KnowSum eq. (1),
  ``Û = Σ_{s≤k} h_s n_s`` with ``h_s = −(−t)^s P(Bin(k, 1/(t+1)) ≥ s)`` (Efron & Thisted 1976).
- ``osw-binomial``: ``h_s = −(−t)^s P(Bin(k, 2/(t+2)) ≥ s)``, ``k = ⌈½ log₃(n t²/(t−1))⌉``
  (Orlitsky, Suresh & Wu, PNAS 2016; ``t > 1``).
- ``osw-poisson``: ``h_s = −(−t)^s P(Poi(r) ≥ s)``, ``r = ln(n (t+1)²/(t−1)) / (2t)`` (idem).
- ``good-toulmin``: ``−Σ_s (−t)^s n_s``, unbiased but explosive for ``t > 1`` (Good & Toulmin 1956).
- ``preseq``, ``pitman-yor``: the nonlinear long-range estimators (:mod:`knowsum.stats.long_range`).
- ``chao1``: the total ``S + f₁(f₁−1)/(2(f₂+1))`` (bias-corrected, Chao 2005) or
  ``S + (n−1)/n · f₁²/(2f₂)`` (classic, Chao 1984); ``Û = Chao1 − N_seen``, ``t`` unused.

Every estimator returns an :class:`UnseenEstimate`. A negative ``Û(t)`` (the smoothed estimators
can go negative on small samples at large ``t``) is reported as ``max(Û, 0)`` — the convention of
species-richness software (SpadeR's and iNEXT's estimates of the undetected richness are never
negative) — so that ``N̂_tot ≥ N_seen`` and ``SKR ∈ (0, 1]``; the value as computed stays in
:attr:`UnseenEstimate.raw` and a :class:`~knowsum.stats.StatsWarning` says so. KnowSum (eq. 1)
states no rule for a negative value; this clamp goes beyond the paper. Nor for a value above
``t·n``: ``t·n`` further observations can show at most ``t·n`` new items (each observation names one
item), so ``E U(t) ≤ t·n`` whatever the community — yet a deep truncation ``k`` at a large ``t`` can
give ``Û`` orders of magnitude above it (``k = 30`` on a 477-mention census at ``t = 100``:
``1.6·10⁷`` against ``t·n = 47,700``). It is reported as ``min(Û, t·n)`` (:attr:`UnseenEstimate.ceiling`),
the raw value kept, with the caveat ``Û capped at t·n``; the confidence and prediction intervals are
cut at the same ceiling (:func:`knowsum.stats.intervals.intervals`,
:func:`knowsum.stats.predict_unseen.predict_unseen`). knowsum's rule, beyond the paper.

Tiny samples are estimated as asked but never quietly: every estimate carries its caveats
(:attr:`UnseenEstimate.caveats`, :mod:`knowsum.stats.caveats`: ``tiny sample``, ``no singletons``,
``all singletons``, ``beyond supported range`` — Good–Toulmin beyond ``t = 1``, a smoothed estimator
beyond ``t ∝ log n`` — and ``Û clamped at 0`` naming the cause: ``k`` too deep for the sample, or
Good–Toulmin beyond ``t = 1``), each also raised as a warning.

``k`` is bounded to ``[1, MAX_K]`` as in the census configuration.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

import numpy as np
from numpy.typing import NDArray

from knowsum.stats import long_range as lr
from knowsum.stats import weights as w
from knowsum.stats._chao1 import chao1_total
from knowsum.stats._errors import StatsError, StatsWarning
from knowsum.stats._plan import Chao1Form, EstimatorPlan, Params
from knowsum.stats._smallsample import TINY_SAMPLE, warn_small_sample
from knowsum.stats.caveats import Caveat
from knowsum.stats.prevalence import Prevalence

__all__ = [
    "DEFAULT_K",
    "DEFAULT_T",
    "ESTIMATORS",
    "MAX_K",
    "MAX_T",
    "TINY_SAMPLE",
    "T_ABOVE",
    "Chao1Form",
    "Curve",
    "Diagnostics",
    "EstimatorPlan",
    "UnseenEstimate",
    "chao1",
    "chao1_total",
    "estimate_unseen",
    "extrapolation_curve",
    "plan_estimator",
    "theorem1_bound",
]

DEFAULT_T = 100.0
"""KnowSum §5.2: estimates saturate around t = 80, so t = 100 is the default."""
MAX_T = 1e6
"""The largest ``t`` any command takes: 10⁴ times the paper's, far past where any estimator is
supported (``t ∝ log n``); beyond it a figure only carries the weights' overflow."""
DEFAULT_K = 8
"""KnowSum §5.2, Fig. 9: most models do best at k = 8 (use held-out selection when you can)."""
MAX_K = 50
"""Largest truncation level accepted (KnowSum uses 6–10; the weights grow like ``t^k``)."""


@dataclass(frozen=True, slots=True)
class Diagnostics:
    """Checks attached to an estimate.

    Attributes:
        negative: ``Û(t) < 0`` as computed (reported as 0, with a warning; see
            :attr:`UnseenEstimate.raw`).
        theorem1_bound: ``e^{kt/(t+1)} · N_seen`` (KnowSum Theorem 1) when the estimator is ``et``
            and ``t ≥ k − 1``, else ``None``.
        within_bound: Whether the raw ``Û(t)`` respects that bound (``None`` when it does not apply).
        max_abs_weight: ``max_s |h_s|`` for the linear estimators (``None`` for Chao1).
        std_error: ``sqrt(Σ_s h_s² n_s)``, the Poisson-model standard error of a linear estimator
            (Efron & Thisted 1976, eq. 3.4; for Good–Toulmin ``sqrt(Σ_s t^{2s} n_s)``); ``None`` for
            Chao1.
    """

    negative: bool
    theorem1_bound: float | None = None
    within_bound: bool | None = None
    max_abs_weight: float | None = None
    std_error: float | None = None


@dataclass(frozen=True, slots=True)
class UnseenEstimate:
    """``Û(t)`` and the derived totals of one estimator on one sample.

    Attributes:
        estimator: Estimator name (a key of :data:`ESTIMATORS`).
        raw: ``Û(t)`` as the estimator computed it (negative on some small samples, above ``t·n`` at
            a deep ``k``); the reported value is :attr:`estimate` = ``min(max(raw, 0), t·n)``.
        n_seen: ``N_seen``.
        n_observations: ``n``.
        t: Extrapolation factor (``None`` for Chao1, which estimates the asymptote).
        k: Truncation level used (``None`` when the estimator has none).
        interval: Interval for ``Û(t)`` (``None`` unless filled in by :func:`~knowsum.stats.summarize`).
        parameters: Every parameter the estimator used (q, r, form, …).
        diagnostics: See :class:`Diagnostics`.
        caveats: What makes the figure say less than it seems (tiny sample, no or all singletons,
            beyond the supported range of ``t``, clamped at 0; :mod:`knowsum.stats.caveats`).
        no_evidence: A linear estimator on a sample without singletons (``f₁ = 0``): its ``Û`` comes
            only from the alternating weights of items seen twice or more, while Good–Turing's
            missing mass ``f₁/n`` and Chao1's ``f̂0`` are 0; reported as ``Û = 0``, the raw value kept
            (knowsum's rule, beyond the paper).
    """

    estimator: str
    raw: float
    n_seen: int
    n_observations: int
    t: float | None
    k: int | None
    interval: tuple[float, float] | None = None
    parameters: Params = field(default_factory=lambda: MappingProxyType({}))
    diagnostics: Diagnostics = field(default_factory=lambda: Diagnostics(negative=False))
    caveats: tuple[Caveat, ...] = ()
    no_evidence: bool = False

    @property
    def ceiling(self) -> float:
        """``t·n``: the most new items ``t·n`` further observations can show (module docstring);
        ``inf`` for Chao1 (``t = ∞``); 0 where the sample shows no evidence of unseen items
        (:attr:`no_evidence`)."""
        if self.no_evidence:
            return 0.0
        return math.inf if self.t is None else self.t * self.n_observations

    @property
    def estimate(self) -> float:
        """``Û(t)`` as reported: ``max(raw, 0)`` (SpadeR/iNEXT convention; never negative), and at most
        :attr:`ceiling` (knowsum's rule: ``t·n`` observations show at most ``t·n`` new items)."""
        return min(max(self.raw, 0.0), self.ceiling)

    @property
    def n_total(self) -> float:
        """``N̂_tot = N_seen + Û(t)`` (``≥ N_seen``)."""
        return self.n_seen + self.estimate

    @property
    def skr(self) -> float:
        """Seen knowledge ratio ``SKR(t) = N_seen / N̂_tot`` (KnowSum Definition 1), in ``(0, 1]``;
        NaN when nothing was seen."""
        return self.n_seen / self.n_total if self.n_total != 0 else math.nan

    def with_interval(self, interval: tuple[float, float] | None) -> UnseenEstimate:
        """A copy with ``interval`` set."""
        return replace(self, interval=interval)


def theorem1_bound(n_seen: int, t: float, k: int) -> float | None:
    """KnowSum Theorem 1: ``Û(t) ≤ e^{kt/(t+1)} · N_seen`` for the ``et`` estimator when ``t ≥ k−1``.

    Returns ``None`` when ``t < k − 1`` (the theorem says nothing there) or the bound overflows.
    """
    if t < k - 1:
        return None
    exponent = k * t / (t + 1.0)
    return math.exp(exponent) * n_seen if exponent < 700 else math.inf


def _plan_et(n: int, t: float, k: int | None) -> EstimatorPlan:
    k = w.check_k(DEFAULT_K if k is None else k)
    q = w.et_q(t)
    return EstimatorPlan(
        "et", t, k, {"k": k, "q": q}, lambda s_max: w.binomial_tail_weights(t, k, q, s_max), support=k
    )


def _plan_osw_binomial(n: int, t: float, k: int | None) -> EstimatorPlan:
    k_osw, q = w.osw_binomial_params(n, t)
    return EstimatorPlan(
        "osw-binomial",
        t,
        k_osw,
        {"k": k_osw, "q": q},
        lambda s_max: w.binomial_tail_weights(t, k_osw, q, s_max),
        support=k_osw,
    )


def _plan_osw_poisson(n: int, t: float, k: int | None) -> EstimatorPlan:
    r = w.osw_poisson_rate(n, t)
    return EstimatorPlan("osw-poisson", t, None, {"r": r}, lambda s_max: w.poisson_tail_weights(t, r, s_max))


def _plan_good_toulmin(n: int, t: float, k: int | None) -> EstimatorPlan:
    return EstimatorPlan("good-toulmin", t, None, {}, lambda s_max: w.good_toulmin_weights(t, s_max))


def _plan_chao1(n: int, t: float, k: int | None) -> EstimatorPlan:
    return EstimatorPlan("chao1", None, None, {"form": "bias-corrected"}, form="bias-corrected")


ESTIMATORS: Mapping[str, Callable[[int, float, int | None], EstimatorPlan]] = MappingProxyType(
    {
        "et": _plan_et,
        "osw-binomial": _plan_osw_binomial,
        "osw-poisson": _plan_osw_poisson,
        "good-toulmin": _plan_good_toulmin,
        "chao1": _plan_chao1,
        "preseq": lr.plan_preseq,
        "pitman-yor": lr.plan_pitman_yor,
    }
)
"""Estimator name → planner. Explicit dispatch table (never ``getattr``)."""

HAS_K = frozenset({"et"})
"""Estimators that take a user-given ``k`` (OSW derives its own, the others have none)."""

T_ABOVE: Mapping[str, float] = MappingProxyType({"osw-binomial": 1.0, "osw-poisson": 1.0})
"""The ``t`` each estimator's domain starts *above* (0 for the others): the Orlitsky–Suresh–Wu
smoothings are defined for ``t > 1`` only (PNAS 2016, Corollary 2;
:func:`knowsum.stats.weights.osw_binomial_params`)."""


def plan_estimator(
    prev: Prevalence, estimator: str = "et", t: float = DEFAULT_T, k: int | None = None
) -> EstimatorPlan:
    """Resolve ``estimator`` for ``prev`` (validates ``t`` and ``k``; ``k`` only matters for ``et``)."""
    if estimator not in ESTIMATORS:
        raise StatsError(f"unknown estimator {estimator!r}; known: {', '.join(ESTIMATORS)}")
    t = w.check_t(t)
    if k is not None and w.check_k(k) > MAX_K:
        raise StatsError(f"k must be 'auto' or an integer in [1, {MAX_K}], got {k}")
    return ESTIMATORS[estimator](prev.n_observations, t, k)


def _finish(plan: EstimatorPlan, prev: Prevalence, value: float, diag: Diagnostics) -> UnseenEstimate:
    if not math.isfinite(value):
        raise StatsError(f"{plan.name} gave a non-finite estimate ({value}); use the smoothed estimator 'et'")
    caveats = warn_small_sample(plan, prev, value)
    return UnseenEstimate(
        estimator=plan.name,
        raw=value,
        n_seen=prev.n_seen,
        n_observations=prev.n_observations,
        t=plan.t,
        k=plan.k,
        parameters=MappingProxyType(dict(plan.parameters)),
        diagnostics=diag,
        caveats=caveats,
        no_evidence=plan.weights is not None and prev.f(1) == 0,
    )


def apply_plan(plan: EstimatorPlan, prev: Prevalence) -> UnseenEstimate:
    """Apply a resolved estimator to ``prev``.

    Raises:
        StatsError: The estimator gives no estimate on ``prev`` (the message says why).
    """
    if plan.rows is not None:
        hist = prev.n_s.astype(np.float64)[None, :]
        values, reasons = plan.rows(hist)
        value = float(values[0])
        if not math.isfinite(value):
            raise StatsError(f"{plan.name} gives no estimate on this sample: {reasons[0]}; use 'et'")
        plan = replace(plan, parameters={**plan.parameters, **(plan.details(hist) if plan.details else {})})
        return _finish(plan, prev, value, Diagnostics(negative=value < 0))
    if plan.weights is None:
        form = plan.form or "bias-corrected"
        total = float(chao1_total(prev.n_seen, prev.f(1), prev.f(2), prev.n_observations, form))
        value = total - prev.n_seen
        return _finish(plan, prev, value, Diagnostics(negative=value < 0))
    h = plan.weights(prev.max_count)[: prev.n_s.size]
    value = float(np.dot(h, prev.n_s[: h.size]))
    bound = theorem1_bound(prev.n_seen, plan.t, plan.k) if plan.name == "et" and plan.t and plan.k else None
    with np.errstate(over="ignore", invalid="ignore"):  # h_s² past the float range: a NaN s.e.
        diag = Diagnostics(
            negative=value < 0,
            theorem1_bound=bound,
            within_bound=None if bound is None else bool(value <= bound * (1 + 1e-12)),
            max_abs_weight=float(np.max(np.abs(h))),
            std_error=float(np.sqrt(np.dot(h * h, prev.n_s[: h.size]))),
        )
    return _finish(plan, prev, value, diag)


def estimate_unseen(
    prev: Prevalence, estimator: str = "et", t: float = DEFAULT_T, k: int | None = None
) -> UnseenEstimate:
    """Estimate ``U(t)``, the number of unseen items among ``t·n`` further observations.

    Args:
        prev: The sample.
        estimator: One of :data:`ESTIMATORS` (``et`` = KnowSum eq. (1), the default).
        t: Extrapolation factor ``t > 0`` (ignored by ``chao1``).
        k: Truncation level for ``et`` (default :data:`DEFAULT_K`); other estimators ignore it.

    Raises:
        StatsError: Unknown estimator, ``t ≤ 0``, ``k < 1``, or a weight that overflows.
    """
    return apply_plan(plan_estimator(prev, estimator, t, k), prev)


def chao1(prev: Prevalence, form: Chao1Form = "bias-corrected") -> UnseenEstimate:
    """Chao1 as an :class:`UnseenEstimate` (``estimate`` = Chao1 − N_seen; ``n_total`` = Chao1)."""
    if form not in ("bias-corrected", "classic"):
        raise StatsError(f"unknown Chao1 form {form!r}; known: bias-corrected, classic")
    return apply_plan(EstimatorPlan("chao1", None, None, {"form": form}, form=form), prev)


@dataclass(frozen=True, slots=True, eq=False)
class Curve:
    """The extrapolation curve ``Û(t)`` over a grid of ``t`` (arrays aligned with ``t``).

    Attributes:
        estimator: Estimator name.
        t: The grid.
        unseen_raw: ``Û(t)`` as computed (may be negative).
        n_seen: ``N_seen``.
        k: Truncation level used.
        n_observations: ``n`` (``None``: no ceiling ``t·n``).
        no_evidence: No singletons: ``Û = 0`` at every ``t`` (:attr:`UnseenEstimate.no_evidence`).
    """

    estimator: str
    t: NDArray[np.float64]
    unseen_raw: NDArray[np.float64]
    n_seen: int
    k: int | None
    n_observations: int | None = None
    no_evidence: bool = False

    @property
    def unseen(self) -> NDArray[np.float64]:
        """``Û(t)`` as reported, ``max(Û, 0)`` (so the curve never dips below ``N_seen``) and at most
        ``t·n`` (:attr:`UnseenEstimate.ceiling`)."""
        shown = np.maximum(self.unseen_raw, 0.0) * (not self.no_evidence)
        return shown if self.n_observations is None else np.minimum(shown, self.t * self.n_observations)

    @property
    def n_total(self) -> NDArray[np.float64]:
        """``N̂_tot(t)``."""
        return self.n_seen + self.unseen

    @property
    def skr(self) -> NDArray[np.float64]:
        """``SKR(t)``."""
        return self.n_seen / self.n_total


def extrapolation_curve(
    prev: Prevalence,
    ts: Sequence[float] | NDArray[np.float64] | None = None,
    estimator: str = "et",
    k: int | None = None,
) -> Curve:
    """``Û(t)`` for each ``t`` in ``ts`` (default: 30 log-spaced points from 0.1 to 100)."""
    grid = np.geomspace(0.1, DEFAULT_T, 30) if ts is None else np.asarray(ts, dtype=np.float64)
    if grid.ndim != 1 or grid.size == 0:
        raise StatsError("ts must be a non-empty one-dimensional grid of t values")
    values = np.empty(grid.size)
    used_k, none = None, False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
        for i, t in enumerate(grid.tolist()):
            est = estimate_unseen(prev, estimator, t, k)
            values[i], used_k, none = est.raw, est.k, est.no_evidence
    if any(issubclass(c.category, StatsWarning) for c in caught) and np.any(values < 0):
        negative = grid[values < 0]
        warnings.warn(
            f"{estimator}: Û(t) is negative at {negative.size} of {grid.size} grid points "
            f"(first t = {negative[0]:.4g}); reported as 0 there (N̂_tot = N_seen)",
            StatsWarning,
            stacklevel=2,
        )
    n = None if estimator == "chao1" else prev.n_observations
    return Curve(estimator, grid, values, prev.n_seen, used_k, n, none)
