"""The prediction intervals of ``knowsum estimate``: what ``t·n`` further observations will show, beside
the confidence interval of the estimate — of the KnowSum estimate (:func:`prediction_lines`) and of
iNEXT's q = 0 extrapolation at ``--at-size``/``--at-coverage`` and along ``--curve``
(:func:`point_prediction_lines`, :func:`curve_prediction_lines`, and their ``--json`` keys)."""

from __future__ import annotations

from typing import Any

from knowsum.estimate.record import CurveSummary, EstimateReport, PointSummary
from knowsum.report import interval_text
from knowsum.stats.own_t_text import describe_own_t
from knowsum.stats.q0_prediction import Q0_FLOOR

__all__ = [
    "curve_prediction_json",
    "curve_prediction_lines",
    "point_prediction_json",
    "point_prediction_lines",
    "prediction_lines",
]

Interval = tuple[float, float]


def _fmt(x: float) -> str:
    return f"{x:.3g}" if abs(x) >= 1e9 else f"{x:,.1f}"


def prediction_lines(report: EstimateReport) -> list[str]:
    """The prediction interval of ``U(t)`` and ``N_tot(t)``: what ``t·n`` further observations will
    show (the confidence interval above is the estimate's uncertainty only)."""
    pred = report.prediction
    if pred is None:
        return []
    level = f"{report.bootstrap.level:.0%}" if report.bootstrap else "95%"
    head = f"  {level} prediction interval (what t·n further observations will show):"
    if pred.reason is not None or pred.unseen is None or pred.total is None:
        return ["", head, f"    n/a: {pred.reason or 'not formed'}", *_own_t_lines(report)]

    def iv(pair: tuple[float, float]) -> str:
        return interval_text(pair, None, _fmt)

    return [
        "",
        head,
        f"    new items  U(t)      {iv(pred.unseen)}",
        f"    total      N_tot(t)  {iv(pred.total)}",
        f"    {pred.method}",
        *_own_t_lines(report),
    ]


def _own_t_lines(report: EstimateReport) -> list[str]:
    """The simulated error at the estimate's own ``t`` (in the words a census prints beside its
    ``N̂_tot``), or why there is none."""
    check = report.own_t
    if check is None:
        return [f"  simulated at own t: n/a: {report.own_t_reason}"] if report.own_t_reason else []
    return [f"  simulated at own t: {describe_own_t(check, whole='sample', unit=report.own_t_unit)}"]


def _pair(pair: Interval | None) -> str:
    """``[lo, hi]``, ``n/a`` without an interval, ``n/a: the interval is a point`` for a point."""
    return interval_text(pair, None, _fmt, missing="n/a")


def _unseen(pair: Interval | None, s_obs: float) -> list[float] | None:
    return None if pair is None else [pair[0] - s_obs, pair[1] - s_obs]


def point_prediction_lines(p: PointSummary, s_obs: int, reference: int, unit: str) -> list[str]:
    """The q = 0 confidence interval at an ``--at-size``/``--at-coverage`` point and the prediction
    interval of what the ``m − n`` further observations (``unit``) will show, or why it is n/a."""
    level = f"{p.level:.0%}"
    head = [f"    q0 {level} confidence interval {_pair(p.interval)}"]
    if p.interval_inext is not None:
        top = "" if unit == "units" else f", at most S_obs + (m − n) = {s_obs + p.size - reference:,.1f}"
        head[0] += (
            f" (iNEXT's Ŝ ± z·ŝ gives {_pair(p.interval_inext)}; cut to the attainable range: at least "
            f"S_obs = {s_obs:,}{top})"
        )
    if p.prediction is None:
        return [*head, f"    q0 {level} prediction interval n/a: {p.prediction_reason or 'not formed'}"]
    lo, hi = p.prediction
    return [
        *head,
        f"    q0 {level} prediction interval (what m − {'T' if unit == 'units' else 'n'} = "
        f"{p.size - reference:,.2f} further {unit} show): N_tot {_pair(p.prediction)}, "
        f"new items U {_pair((lo - s_obs, hi - s_obs))}",
    ]


def point_prediction_json(p: PointSummary, s_obs: int) -> dict[str, Any]:
    """``q0_interval`` and the ``prediction_*`` keys of a point (``prediction_interval`` is ``U``)."""
    return {
        "q0_interval": None if p.interval is None else list(p.interval),
        "q0_interval_inext": None if p.interval_inext is None else list(p.interval_inext),
        "q0_interval_method": Q0_FLOOR if p.interval is not None else None,
        "prediction_interval": _unseen(p.prediction, s_obs),
        "prediction_interval_total": None if p.prediction is None else list(p.prediction),
        "prediction_reason": p.prediction_reason,
        "prediction_method": p.prediction_method,
    }


def curve_prediction_lines(c: CurveSummary) -> list[str]:
    """The q = 0 prediction interval at the curve's largest extrapolated size up to ``2N`` (every
    size's is in ``--json``), or why there is none."""
    ext = [j for j, m in enumerate(c.size) if c.reference_size < m <= 2 * c.reference_size]
    if not ext or not c.prediction:
        return []
    j = ext[-1]
    head = f"  curve q = 0 at m = {c.size[j]:,.0f}: {c.level:.0%} prediction interval of N_tot"
    if c.prediction[j] is None:
        return [f"{head} n/a: {c.prediction_reasons[j]}"]
    return [f"{head} {_pair(c.prediction[j])} (each extrapolated size's in --json)"]


def curve_prediction_json(c: CurveSummary, coverage_based: bool) -> dict[str, Any]:
    """The per-size ``prediction_interval`` (``U``), ``prediction_interval_total`` and
    ``prediction_reason`` lists of one curve (q = 0; ``None`` where n/a)."""
    pred = c.cov_prediction if coverage_based else c.prediction
    reasons = c.cov_prediction_reasons if coverage_based else c.prediction_reasons
    return {
        "prediction_interval": [_unseen(p, c.s_obs) for p in pred],
        "prediction_interval_total": [None if p is None else list(p) for p in pred],
        "prediction_reason": list(reasons),
    }
