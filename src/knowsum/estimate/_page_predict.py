"""The prediction interval of ``knowsum estimate``'s table: what ``t·n`` further observations will show,
beside the confidence interval of the estimate."""

from __future__ import annotations

from knowsum.stats.summary import EstimateReport

__all__ = ["prediction_lines"]


def _signed(x: float) -> str:
    """``+12%`` / ``−3%``, and ``+0%`` for what rounds to zero (never ``-0%``)."""
    return f"{x if abs(x) >= 0.005 else 0.0:+.0%}"


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
        return f"[{_fmt(pair[0])}, {_fmt(pair[1])}]"

    return [
        "",
        head,
        f"    new items  U(t)      {iv(pred.unseen)}",
        f"    total      N_tot(t)  {iv(pred.total)}",
        f"    {pred.method}",
        *_own_t_lines(report),
    ]


def _own_t_lines(report: EstimateReport) -> list[str]:
    """The simulated error at the estimate's own ``t``, or why there is none."""
    check = report.own_t
    if check is None:
        return [f"  simulated at own t: n/a: {report.own_t_reason}"] if report.own_t_reason else []
    return [
        f"  simulated at t = {check.t:g}: error {check.error_total:.0%} of N_tot ({check.error:.0%} of U, "
        f"bias {_signed(check.bias)}), prediction interval covers {check.coverage:.0%} "
        f"(±{check.coverage_se:.0%}) over {check.replicates} samples from the fitted community "
        f"({check.undetected:,} unseen items of equal probability: optimistic at large t)"
    ]
