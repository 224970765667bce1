"""``knowsum estimate``'s output: the terminal table and the ``--json`` object of an EstimateReport.

::

    estimate_table(report)   the text the command prints (format, estimator, t, k, the estimate
                             and its interval, the bootstrap, the Theorem-1 check, the notes)
    estimate_json(report)    the JSON-ready dict (undefined numbers such as SKR when N̂_tot = 0 → None)
"""

from __future__ import annotations

import math
import unicodedata
from typing import Any

from knowsum.estimate import _page_predict as pred
from knowsum.estimate._page_fmt import ANALYTIC_POINT, fig, fmt, num, pair
from knowsum.estimate._page_plot import plot_richness_curve
from knowsum.estimate._page_predict import prediction_lines
from knowsum.estimate.record import CurveSummary, EstimateReport, PointSummary, RichnessReport
from knowsum.records import caveat_notes
from knowsum.report import NOT_RESAMPLED, caveat_lines, interval_ends, marks
from knowsum.stats.caveats import caveat_dicts
from knowsum.stats.q0_prediction import Q0_FLOOR
from knowsum.stats.summary import summary_dict

__all__ = [
    "ESTIMATOR_TITLES",
    "INTERVAL_TITLES",
    "estimate_json",
    "estimate_table",
    "plot_richness_curve",
    "richness_json",
    "richness_table",
]

ESTIMATOR_TITLES = {
    "et": "smoothed Good–Turing / Efron–Thisted, KnowSum eq. (1)",
    "osw-binomial": "Orlitsky–Suresh–Wu binomial smoothing",
    "osw-poisson": "Orlitsky–Suresh–Wu Poisson smoothing",
    "good-toulmin": "Good–Toulmin, unsmoothed",
    "chao1": "Chao1 richness, bias-corrected",
    "preseq": "preseq's rational-function extrapolation, Daley & Smith 2013",
    "pitman-yor": "Pitman–Yor predictive, Favaro et al. 2009 eq. 5",
}
"""One line naming each estimator and its source, shown beside its name."""

INTERVAL_TITLES = {
    "lognormal": "log-normal (Chao 1987): N_seen + Û·C^(∓1), C = exp(z·sqrt(ln(1 + v/Û²))), "
    "v = bootstrap variance of Û",
    "percentile": "bootstrap percentiles re-centred on the estimate, each end cut at the possible range "
    "(never below N_seen)",
}
"""How each interval method forms the interval."""

_K_SOURCES = {"given": "given", "default": "default", "formula": "OSW formula ⌈½·log₃(n t²/(t−1))⌉"}


def _json_safe(value: Any) -> Any:
    """JSON has no NaN/Infinity: undefined numbers (e.g. SKR when N̂_tot = 0) become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _json_safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_safe(item) for item in value]
    return value


def _pad(text: str, width: int) -> str:
    """Left-justify, not counting combining marks (the hat of N̂) as columns."""
    return text + " " * max(0, width - sum(1 for ch in text if not unicodedata.combining(ch)))


def _k_line(report: EstimateReport) -> str:
    sel = report.selection
    if report.k_source == "held-out" and sel is not None:
        fractions = ", ".join(
            f"1/{round(1 / r)}" if abs(1 / r - round(1 / r)) < 1e-9 else f"{r:g}" for r in sel.fractions
        )
        table = "   ".join(f"k={k}: {e:.3g}" for k, e in zip(sel.candidates, sel.nmse, strict=True))
        split = "query splits" if sel.method == "queries" else "binomial thinnings"
        first = f"{report.k}  (held-out: {sel.n_shuffles} {split} × r_obs {fractions})"
        return f"{first}\n{'':13}NMSE  {table}"
    if report.k_source in _K_SOURCES:
        return f"{report.k}  ({_K_SOURCES[report.k_source]})"
    return "—  (not used by this estimator)"


def _head(report: EstimateReport) -> list[str]:
    title = "knowsum estimate" if report.source is None else f"knowsum estimate — {report.source}"
    head = [title]
    if report.format is not None:
        how = f"auto-detected: {report.format_reason}" if report.format_detected else "given with --format"
        head.append(f"  format     {report.format}  ({how})")
    t = "—  (not used by chao1)" if report.t is None else f"{report.t:g}"
    return [
        *head,
        f"  estimator  {report.estimator}  ({ESTIMATOR_TITLES[report.estimator]})",
        f"  t          {t}",
        f"  k          {_k_line(report)}",
        "",
    ]


def _body(report: EstimateReport) -> list[str]:
    boot = report.bootstrap
    level = f"{boot.level:.0%} confidence interval ({boot.interval})" if boot else "confidence interval"
    queries = f", {report.n_queries:,} queries" if report.n_queries else ""
    rows = [("", "estimate", level)]
    rows.append(("observations  n", fmt(report.n_observations) + queries, ""))
    rows.append(("seen          N_seen", fmt(report.n_seen), ""))
    intervals = (boot.unseen, boot.total, boot.skr) if boot else (None, None, None)
    clamped = report.n_unseen_raw < 0
    beside = (
        (f"raw Û(t) = {fmt(report.n_unseen_raw)}: negative, reported as 0", "= N_seen (Û clamped at 0)", "")
        if clamped
        else ("", "", "")
    )
    for (label, value, digits), iv, mark in zip(
        [
            ("unseen        Û(t)", report.n_unseen, 1),
            ("total         N̂_tot", report.n_total, 1),
            ("SKR(t)", report.skr, 3),
        ],
        intervals,
        beside,
        strict=True,
    ):
        show = fig(digits, clamped)
        point = show(value)
        if boot is not None and report.interval_reason is not None:
            shown = f"n/a: {report.interval_reason}"
        elif iv is None:
            shown = "—" if boot is not None else NOT_RESAMPLED
        else:
            lo, hi = interval_ends(iv[0], iv[1], show)
            shown = f"[{lo}, {hi}]"
            if (lo, hi) != (show(iv[0]), show(iv[1])) and value is not None:
                point = f"{value:,.4g}"  # as finely as its interval, which the table's digits blur
        rows.append((label, point, f"{shown}   {mark}"))
    return [f"  {_pad(a, 22)}{b:>16}   {c}".rstrip() for a, b, c in rows] + prediction_lines(report)


def _tail(report: EstimateReport) -> list[str]:
    boot = report.bootstrap
    tail = [""]
    if boot:
        unit = "whole queries" if boot.method == "queries" else "multinomial on the counts"
        tail.append(f"  bootstrap: {boot.n_resamples:,} resamples ({unit}), seed {boot.seed}")
        tail.append(f"  interval:  {INTERVAL_TITLES[boot.interval]}")
    else:
        tail.append("  bootstrap: skipped (--n-bootstrap 0)")
    if report.theorem1_bound is not None:
        ok = "holds" if report.within_bound else "VIOLATED"
        tail.append(f"  Theorem 1: Û(t) ≤ e^(kt/(t+1))·N_seen = {report.theorem1_bound:,.4g} ({ok})")
    elif report.estimator == "et":
        tail.append("  Theorem 1: bound not applicable (needs t ≥ k − 1)")
    return (
        tail + [f"  note: {note}" for note in report.notes] + caveat_lines(report.caveats, skip=report.notes)
    )


def estimate_table(report: EstimateReport) -> str:
    """The terminal table of ``knowsum estimate`` (no trailing newline)."""
    return "\n".join(_head(report) + _body(report) + _tail(report))


def estimate_json(report: EstimateReport) -> dict[str, Any]:
    """The ``--json`` object: the estimate, its interval, the choice of ``k``, the bootstrap, the
    diagnostics and the notes in the statistics layer's layout (:func:`~knowsum.stats.summary.summary_dict`),
    then the file read; NaN and infinities become ``None``."""
    record = summary_dict(report)  # no interval where interval_reason says why, the caveats last
    record |= {
        "file": report.source,
        "format": report.format,
        "format_detected": report.format_detected,
        "format_reason": report.format_reason,
    }
    return dict(_json_safe(record))


def _richness_lines(report: RichnessReport) -> list[str]:
    unit = "sampling units  T" if report.datatype == "incidence" else "observations    n"
    fs = "Q" if report.datatype == "incidence" else "f"
    freq = ", ".join(f"{fs}{k} = {v}" for k, v in enumerate(report.f, start=1))
    lines = [f"  data          {report.datatype}: {unit} = {report.size:,}, S_obs = {report.s_obs:,}"]
    if report.n_incidences is not None:
        lines[0] += f", U = {report.n_incidences:,} incidences"
    lines += [f"                {freq}", f"  coverage  Ĉ   {report.coverage:.6f}  (Chao & Jost 2012)"]
    est = report.richness
    if est is not None:
        se = "—" if est.std_error is None else f"{est.std_error:,.3f}"
        lines.append(
            f"  {_pad(est.estimator, 12)}  {est.estimate:,.3f}  s.e. {se}  "
            f"{est.level:.0%} log-normal {pair(est.interval, point=ANALYTIC_POINT)}   ({est.title})"
        )
    return lines


def _hill_lines(report: RichnessReport) -> list[str]:
    hill = report.hill
    if hill is None:
        return []
    level = f"{hill.level:.0%} bootstrap interval ({hill.n_bootstrap} replicates)"
    lines = ["", f"  Hill numbers (Chao et al. 2014)   observed   asymptotic   {level}"]
    for i, q in enumerate(hill.q):
        iv = None if hill.lower is None or hill.upper is None else (hill.lower[i], hill.upper[i])
        seen, estimated = num(hill.observed[i], ">8.3f"), num(hill.estimated[i], ">10.3f")
        lines.append(f"    q = {q}{'':27}{seen}   {estimated}   {pair(iv)}")
    order = marks(c for c in report.caveats if c.kind == "hill-order")
    return lines + ([f"    ({order}: true Hill numbers never increase with q)"] if order else [])


def _extra_lines(report: RichnessReport) -> list[str]:
    lines: list[str] = []
    unit = "units" if report.datatype == "incidence" else "observations"
    for p in report.points:
        given = (
            f"coverage {p.target if p.target is not None else p.coverage:g}"
            if p.base == "coverage"
            else f"size {p.size:g}"
        )
        d = p.diversity
        mark = f"   [{marks(p.caveats)}]" if p.caveats else ""
        lines.append(
            f"  at {given}: m = {num(p.size, ',.2f')}, Ĉ = {num(p.coverage, '.4f')} ({p.method}); "
            f"q0 = {num(d[0])}, q1 = {num(d[1])}, q2 = {num(d[2])}{mark}"
        )
        lines += pred.point_prediction_lines(p, report.s_obs, report.size, unit)
    if report.shared is not None:
        sh = report.shared
        lines.append(
            f"  shared with {sh.other} (S_obs {sh.s_obs[0]} / {sh.s_obs[1]}): observed {sh.observed}"
        )
        for name, (value, se, iv) in sh.estimates.items():
            shown = "—" if se is None else f"{se:.3f}"
            mark = marks(c for c in sh.caveats if c.figure == name)
            mark = f"   [{mark}]" if mark else ""
            shown_iv = pair(iv, point=ANALYTIC_POINT)
            lines.append(f"    {_pad(name, 16)}{value:>10.3f}  s.e. {shown}  {shown_iv}{mark}")
    for t in report.targets:
        what = f"coverage {t.target:g}" if t.kind == "coverage" else f"{t.target:g} of the estimated richness"
        now = f"now {t.current:.4f}"
        lines.append(f"  to reach {what} ({now}): {t.additional:,.2f} more {unit} (total {t.total:,.2f})")
    if report.curve is not None:
        c = report.curve
        lines.append(
            f"  curve: {len(c.size)} sizes up to {max(c.size):,.0f} (extrapolation beyond 2N = "
            f"{2 * c.reference_size:,} marked), {c.n_bootstrap} bootstrap replicates"
        )
        lines += pred.curve_prediction_lines(c)
    return ["", *lines] if lines else []


def richness_table(report: RichnessReport) -> str:
    """The terminal text of ``knowsum estimate`` with the richness toolkit (no trailing newline)."""
    if report.unseen is not None:
        head = [estimate_table(report.unseen), ""]
    else:
        title = "knowsum estimate" if report.source is None else f"knowsum estimate — {report.source}"
        head = [title] + ([f"  format     {report.format}"] if report.format else []) + [""]
    body = _richness_lines(report) + _hill_lines(report) + _extra_lines(report)
    shown = caveat_notes(report.unseen.caveats if report.unseen else ())  # printed by estimate_table
    rest = [c for c in report.caveats if c not in shown]
    notes = [f"  note: {note}" for note in report.notes]
    return "\n".join(
        head + body + notes + caveat_lines(rest, skip=report.unseen.notes if report.unseen else ())
    )


def _curve_json(c: CurveSummary) -> dict[str, Any]:
    return {
        "size_based": {
            "size": list(c.size),
            "coverage": list(c.coverage),
            "method": list(c.method),
            "beyond_double": [m > 2 * c.reference_size for m in c.size],
            "diversity": [list(r) for r in c.diversity],
            "lower": None if c.lower is None else [list(r) for r in c.lower],
            "upper": None if c.upper is None else [list(r) for r in c.upper],
            "inext_q0": None if c.inext_q0 is None else [list(r) for r in c.inext_q0],
            **pred.curve_prediction_json(c, coverage_based=False),
        },
        "coverage_based": {
            "coverage": list(c.cov_coverage),
            "size": list(c.cov_size),
            "diversity": [list(r) for r in c.cov_diversity],
            "lower": None if c.cov_lower is None else [list(r) for r in c.cov_lower],
            "upper": None if c.cov_upper is None else [list(r) for r in c.cov_upper],
            "inext_q0": None if c.inext_cov_q0 is None else [list(r) for r in c.inext_cov_q0],
            **pred.curve_prediction_json(c, coverage_based=True),
        },
        "band_method": Q0_FLOOR,
        "prediction_method": c.prediction_method,
        "reference_size": c.reference_size,
        "n_bootstrap": c.n_bootstrap,
    }


def _point_json(p: PointSummary, s_obs: int) -> dict[str, Any]:
    hill = dict(zip(("q0", "q1", "q2"), p.diversity, strict=True))
    head = {"coverage": p.coverage, "size": p.size, "method": p.method, **hill}
    return {**head, **pred.point_prediction_json(p, s_obs), "caveats": caveat_dicts(p.caveats)}


def richness_json(report: RichnessReport) -> dict[str, Any]:
    """The ``--json`` object: the KnowSum estimate's keys (when run) or the richness estimate as
    ``n_total``/``se``/``interval``, then ``coverage``, ``hill``, ``at_coverage``/``at_size``,
    ``shared``, ``target_*`` and ``curve`` when asked for; NaN and infinities become ``None``."""
    record: dict[str, Any] = {} if report.unseen is None else estimate_json(report.unseen)
    est = report.richness
    if est is not None:
        record |= {
            "estimator": est.estimator,
            "formula": est.title,
            "n_total": est.estimate,
            "se": est.std_error,
            "interval": None if est.interval is None else list(est.interval),
            "level": est.level,
            "parameters": dict(est.parameters),
            "file": report.source,
            "format": report.format,
        }
    record |= {
        "datatype": report.datatype,
        "size": report.size,
        "n_incidences": report.n_incidences,
        "s_obs": report.s_obs,
        "coverage": report.coverage,
    }
    if report.hill is not None:
        h = report.hill
        record["hill"] = {
            f"q{q}": {
                "observed": h.observed[i],
                "asymptotic": h.estimated[i],
                "interval": None if h.lower is None or h.upper is None else [h.lower[i], h.upper[i]],
            }
            for i, q in enumerate(h.q)
        }
    for base in ("coverage", "size"):
        points = [_point_json(p, report.s_obs) for p in report.points if p.base == base]
        if points:
            record[f"at_{base}"] = points[0] if len(points) == 1 else points
    if report.shared is not None:
        sh = report.shared
        record["shared"] = {
            "with": sh.other,
            "s_obs": list(sh.s_obs),
            "observed": sh.observed,
            "own": None if sh.own is None else list(sh.own),
            "caveats": caveat_dicts(sh.caveats),
        }
        for name, (value, se, iv) in sh.estimates.items():
            record["shared"][name] = value
            record["shared"][f"{name}_se"] = se
            record["shared"][f"{name}_interval"] = None if iv is None else list(iv)
    for t in report.targets:
        record[f"target_{t.kind}"] = {
            "target": t.target,
            "current": t.current,
            "additional": t.additional,
            "total": t.total,
        }
    if report.curve is not None:
        record["curve"] = _curve_json(report.curve)
    record["caveats"] = caveat_dicts(report.caveats)
    return dict(_json_safe(record))
