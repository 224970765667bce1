"""One call for the whole estimate: held-out ``k`` → ``Û(t)`` → bootstrap interval.

This is what ``knowsum estimate`` and the census instrument call::

    prev = Prevalence.from_items(items, queries=query_ids)
    result = summarize(prev, t=100, k="auto", n_bootstrap=1000, seed=0)
    result.n_total, result.skr, result.interval

:func:`summary_dict` lays out its JSON once (``Summary.to_dict`` and ``knowsum estimate --json``, which
renders a :class:`knowsum.estimate.EstimateReport`: the summary and the file it was read from);
:func:`collect_warnings` turns the :class:`StatsWarning` s of a block into notes for the user.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Generic, Literal, TypeVar, overload

from knowsum.stats._errors import StatsWarning
from knowsum.stats.bootstrap import BootstrapResult, bootstrap_plans, check_resamples
from knowsum.stats.caveats import Caveat, CaveatKind, caveat_dicts, interval_unavailable
from knowsum.stats.community import OwnTCheck, check_at_own_t
from knowsum.stats.heldout import DEFAULT_CANDIDATES, DEFAULT_FRACTIONS, KSelection, select_k
from knowsum.stats.intervals import IntervalMethod
from knowsum.stats.own_t_text import own_t_dict
from knowsum.stats.predict_unseen import PredictionInterval, predict_unseen
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.unseen import (
    DEFAULT_K,
    DEFAULT_T,
    HAS_K,
    UnseenEstimate,
    apply_plan,
    plan_estimator,
)

__all__ = [
    "ALL_SINGLETONS_REASON",
    "NO_EVIDENCE_REASON",
    "KSource",
    "Summary",
    "collect_warnings",
    "summarize",
    "summary_dict",
]

KSource = Literal["held-out", "given", "default", "formula", "none"]


_T = TypeVar("_T")


class _Figure(Generic[_T]):
    """A figure of a :class:`Summary` read from its :class:`UnseenEstimate` (``summary.n_total`` is
    ``summary.estimate.n_total``): the flat view every caller reads, one line per figure."""

    def __init__(self, read: Callable[[UnseenEstimate], _T], doc: str) -> None:
        self._read = read
        self.__doc__ = doc

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> _Figure[_T]: ...
    @overload
    def __get__(self, obj: Summary, owner: type | None = None) -> _T: ...
    def __get__(self, obj: Summary | None, owner: type | None = None) -> _Figure[_T] | _T:
        return self if obj is None else self._read(obj.estimate)


@dataclass(frozen=True, slots=True)
class Summary:
    """The result record of :func:`summarize`.

    Attributes:
        estimate: The point estimate; its ``interval`` is the bootstrap interval of ``Û(t)``.
        k_source: How ``k`` was set: ``held-out`` (selected), ``given``, ``default`` (8),
            ``formula`` (OSW binomial derives it from n and t) or ``none`` (no k).
        selection: The held-out selection table when ``k`` was selected, else ``None``.
        bootstrap: The bootstrap result, or ``None`` when ``n_bootstrap == 0``.
        notes: Human-readable remarks (e.g. "k is not used by good-toulmin").
        n_queries: Number of queries, when the observations were grouped by query.
        caveats: The estimate's caveats, then ``interval n/a`` when the interval cannot be a
            ``level`` interval (:attr:`interval_reason`).
        interval_reason: Why the interval is not shown (``n/a: REASON``), or ``None``.
        prediction: The prediction interval of ``U(t)`` and ``N_tot(t)`` (what ``t·n`` further
            observations will show: :mod:`knowsum.stats.predict_unseen`), beside the confidence
            interval :attr:`interval`.
        own_t: The estimator's error and prediction-interval coverage at its own ``t`` on samples
            simulated from a community fitted to this one (:mod:`knowsum.stats.community`), or ``None``.
        own_t_reason: Why there is no :attr:`own_t`, or ``None``.
        curve: The bootstrap of each ``t`` of ``summarize(curve_ts=…)``, drawn on the headline's
            resamples (empty without ``curve_ts`` or without a bootstrap).
    """

    estimate: UnseenEstimate
    k_source: KSource
    selection: KSelection | None
    bootstrap: BootstrapResult | None
    notes: tuple[str, ...]
    n_queries: int | None
    caveats: tuple[Caveat, ...] = ()
    interval_reason: str | None = None
    prediction: PredictionInterval | None = None
    own_t: OwnTCheck | None = None
    own_t_reason: str | None = None
    curve: tuple[BootstrapResult, ...] = ()

    estimator = _Figure(lambda e: e.estimator, "Estimator name.")
    n_observations = _Figure(lambda e: e.n_observations, "``n``.")
    n_seen = _Figure(lambda e: e.n_seen, "``N_seen``.")
    n_unseen = _Figure(lambda e: e.estimate, "``Û(t)`` as reported, ``max(Û, 0)``.")
    n_unseen_raw = _Figure(lambda e: e.raw, "``Û(t)`` as the estimator computed it (may be negative).")
    n_total = _Figure(lambda e: e.n_total, "``N̂_tot``.")
    skr = _Figure(lambda e: e.skr, "``SKR(t)``.")
    t = _Figure(lambda e: e.t, "Extrapolation factor (``None`` for Chao1).")
    k = _Figure(lambda e: e.k, "Truncation level used (``None`` when the estimator has none).")
    parameters = _Figure(lambda e: e.parameters, "Every parameter the estimator used.")
    negative = _Figure(lambda e: e.diagnostics.negative, "Whether the raw ``Û(t)`` was negative.")
    theorem1_bound = _Figure(lambda e: e.diagnostics.theorem1_bound, "KnowSum Theorem 1's bound on ``Û(t)``.")
    within_bound = _Figure(
        lambda e: e.diagnostics.within_bound, "Whether the raw ``Û(t)`` respects that bound (``None``: n/a)."
    )
    std_error = _Figure(
        lambda e: e.diagnostics.std_error,
        "Poisson-model s.e. of a linear estimator (``None`` for Chao1).",
    )

    @property
    def own_t_unit(self) -> str:
        """What :attr:`own_t`'s ``n_queries`` counts in its sentence: the sample's queries, or its
        observations when they are not grouped into queries."""
        return "queries" if self.n_queries is not None else "observations"

    @property
    def interval(self) -> tuple[float, float] | None:
        """Bootstrap (confidence) interval of ``Û(t)``; ``None`` without bootstrap, or where
        :attr:`interval_reason` says why no ``level`` interval can be formed (never a point shown as
        an interval)."""
        return None if self.interval_reason else self.estimate.interval

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (keys ``n_observations, n_seen, n_unseen, n_unseen_raw, n_total, skr, t,
        k, estimator, interval`` and more detail; ``n_unseen`` is ``max(n_unseen_raw, 0)``); see
        :func:`summary_dict`."""
        return summary_dict(self)


def summary_dict(s: Summary) -> dict[str, Any]:
    """The JSON-ready dict of an estimate, in one key order for every caller (:meth:`Summary.to_dict`,
    ``knowsum estimate --json``); ``n_unseen`` is ``max(n_unseen_raw, 0)``, NaN stays NaN."""
    boot, sel, pred = s.bootstrap, s.selection, s.prediction
    return {
        "n_observations": s.n_observations,
        "n_queries": s.n_queries,
        "n_seen": s.n_seen,
        "n_unseen": s.n_unseen,
        "n_unseen_raw": s.n_unseen_raw,
        "n_total": s.n_total,
        "skr": s.skr,
        "t": s.t,
        "k": s.k,
        "k_source": s.k_source,
        "estimator": s.estimator,
        "interval": None if s.interval is None or s.interval_reason else list(s.interval),
        "interval_total": None if boot is None or s.interval_reason else list(boot.total),
        "interval_skr": None if boot is None or s.interval_reason else list(boot.skr),
        "interval_reason": s.interval_reason,
        "interval_kind": "confidence",
        "prediction_interval": None if pred is None or pred.unseen is None else list(pred.unseen),
        "prediction_interval_total": None if pred is None or pred.total is None else list(pred.total),
        "prediction_reason": None if pred is None else pred.reason,
        "prediction_method": None if pred is None else pred.method,
        "own_t_check": None if s.own_t is None else own_t_dict(s.own_t, unit=s.own_t_unit),
        "own_t_reason": s.own_t_reason,
        "interval_method": None if boot is None else boot.interval,
        "level": None if boot is None else boot.level,
        "n_bootstrap": 0 if boot is None else boot.n_resamples,
        "bootstrap_method": None if boot is None else boot.method,
        "parameters": dict(s.parameters),
        "diagnostics": {
            "negative": s.negative,
            "theorem1_bound": s.theorem1_bound,
            "within_bound": s.within_bound,
            "std_error": s.std_error,
        },
        "selection": None
        if sel is None
        else {
            "candidates": list(sel.candidates),
            "nmse": list(sel.nmse),
            "fractions": list(sel.fractions),
            "n_shuffles": sel.n_shuffles,
            "method": sel.method,
            "seed": sel.seed,
        },
        "notes": list(s.notes),
        "caveats": caveat_dicts(s.caveats),
    }


@contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Catch the :class:`StatsWarning` s raised in the block; the list it yields holds their messages,
    in order, once the block ends (they are not shown; any other warning is shown as usual)::

        with collect_warnings() as caught:
            summary = summarize(prev)
        notes = [*summary.notes, *caught]
    """
    messages: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
        yield messages
    for w in caught:
        if issubclass(w.category, StatsWarning):
            messages.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)


def _resolve_k(
    prev: Prevalence, estimator: str, k: int | Literal["auto"] | None, select: dict[str, Any]
) -> tuple[int | None, KSource, KSelection | None, list[str]]:
    if estimator not in HAS_K:
        notes = [] if k is None else [f"k = {k} ignored: estimator {estimator} has no user-given k"]
        return None, ("formula" if estimator == "osw-binomial" else "none"), None, notes
    if k == "auto":
        selection = select_k(prev, **select)
        return selection.k, "held-out", selection, []
    if k is None:
        return DEFAULT_K, "default", None, []
    return k, "given", None, []


def summarize(
    prev: Prevalence,
    estimator: str = "et",
    t: float = DEFAULT_T,
    k: int | Literal["auto"] | None = "auto",
    n_bootstrap: int = 1000,
    level: float = 0.95,
    seed: int | None = 0,
    candidates: Sequence[int] = DEFAULT_CANDIDATES,
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    n_shuffles: int = 100,
    interval: IntervalMethod = "lognormal",
    own_t: bool = True,
    curve_ts: Sequence[float] = (),
) -> Summary:
    """Held-out choice of ``k`` (when ``k="auto"``), the estimate, and its bootstrap interval.

    Args:
        prev: The sample.
        estimator: Estimator name (default ``et``, KnowSum eq. 1).
        t: Extrapolation factor (default 100).
        k: ``"auto"`` (held-out selection among ``candidates``), an integer, or ``None`` for the
            default 8. Ignored (with a note) by estimators that have no user-given ``k``.
        n_bootstrap: Bootstrap resamples; 0 skips the interval.
        level: Interval coverage.
        seed: One seed for the held-out splits and the bootstrap.
        candidates: Candidate ``k`` for the held-out selection.
        fractions: Observed fractions for the held-out selection.
        n_shuffles: Random splits per fraction.
        interval: ``lognormal`` (Chao 1987's log-transformed interval, whose lower end of ``N̂_tot``
            is never below ``N_seen``) or ``percentile`` (re-centred bootstrap percentiles); see
            :mod:`knowsum.stats.intervals`.
        own_t: Simulate the estimator at its own ``t`` from a community fitted to ``prev``
            (:mod:`knowsum.stats.community`): the simulated bias widens the prediction interval, and
            :attr:`Summary.own_t` carries the simulated error and coverage. ``False`` skips it.
        curve_ts: Further ``t`` of the same estimator and ``k`` (a curve's), bootstrapped on the
            headline's resamples (:attr:`Summary.curve`): one draw of the resamples serves both, and
            the results are those of a separate :func:`~knowsum.stats.bootstrap.bootstrap_plans`
            call with the same seed. Their warnings are not raised (the headline's alone are).
    """
    check_resamples(n_bootstrap)
    plan = plan_estimator(prev, estimator, t, None if k == "auto" else k)
    select = {"candidates": candidates, "fractions": fractions, "n_shuffles": n_shuffles, "seed": seed}
    k_used, k_source, selection, notes = _resolve_k(prev, estimator, k, select)
    if k_used is not None and k_used != plan.k:
        plan = plan_estimator(prev, estimator, t, k_used)
    estimate = apply_plan(plan, prev)
    boot: BootstrapResult | None = None
    curve: tuple[BootstrapResult, ...] = ()
    if n_bootstrap:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StatsWarning)
            more = [plan_estimator(prev, estimator, ti, estimate.k) for ti in curve_ts]
            points = [apply_plan(p, prev) for p in more]
        boots = bootstrap_plans(
            prev, [plan, *more], n_bootstrap, level, seed, [estimate, *points], interval, quiet=1
        )
        boot, curve = boots[0], tuple(boots[1:])
        estimate = estimate.with_interval(boot.unseen)
    if estimator == "chao1":
        notes.append("t is not used by chao1 (it estimates the total richness)")
    caveats = list(estimate.caveats)
    reason = _interval_reason(estimate, boot)
    if reason is not None:
        caveats.append(interval_unavailable(reason))
    shown = None if reason else estimate.interval
    check, _, check_reason = check_at_own_t(prev, plan, seed) if own_t else (None, None, "not asked")
    bias = None if check is None else check.bias_items
    se = None if boot is None or reason else boot.unseen_se
    boot_var = None if se is None else se * se  # a float product overflows to inf (** raises)
    prediction = predict_unseen(plan, prev, estimate, shown, reason, level, bias, boot_var)
    return Summary(
        estimate,
        k_source,
        selection,
        boot,
        tuple(notes),
        prev.n_queries,
        tuple(caveats),
        reason,
        prediction,
        check,
        check_reason,
        curve,
    )


NO_EVIDENCE_REASON = "no singletons, so no evidence of unseen items"
"""Why the interval of a linear ``Û(t) > 0`` built without singletons is not shown."""
ALL_SINGLETONS_REASON = "all singletons, so nothing bounds the unseen items"
"""Why the interval of a sample whose every item was seen once is not shown (resamples cannot see
past the singletons: the spread they give is not the estimate's uncertainty)."""


def _interval_reason(estimate: UnseenEstimate, boot: BootstrapResult | None) -> str | None:
    """Why ``boot``'s interval cannot be a ``level`` interval of ``estimate``: the bootstrap's own reason
    (:data:`~knowsum.stats.bootstrap.DEGENERATE_REASON`, :data:`~knowsum.stats.bootstrap.ZERO_REASON`),
    no singletons behind a ``Û(t) > 0`` (an artefact of the weights, not evidence), or all singletons
    (nothing bounds the unseen), else ``None``."""
    if boot is None:
        return None
    kinds = {c.kind for c in estimate.caveats}
    if CaveatKind.NO_SINGLETONS in kinds:  # before the bootstrap's own: its Û = 0 is this reason's
        return NO_EVIDENCE_REASON
    if boot.reason is not None:
        return boot.reason
    if CaveatKind.ALL_SINGLETONS in kinds:
        return ALL_SINGLETONS_REASON
    return None


def moved_out(module: str) -> Callable[[str], object]:
    """The ``__getattr__`` of ``module`` for ``EstimateReport``, which lived in the statistics layer and
    is :class:`knowsum.estimate.EstimateReport` now (the estimate's result family sits with the
    estimate): the old name still works, with a ``DeprecationWarning``. The statistics layer imports
    nothing above it, so the class is looked up by its module's name, and only when the old name is used."""

    def find(name: str) -> object:
        if name != "EstimateReport":
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.EstimateReport is now knowsum.estimate.EstimateReport: import it from "
            "knowsum.estimate",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module("knowsum.estimate"), name)

    return find


__getattr__ = moved_out(__name__)
