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

from knowsum.records.estimate import EstimateReport
from knowsum.stats.summary import summary_dict

__all__ = ["ESTIMATOR_TITLES", "INTERVAL_TITLES", "estimate_json", "estimate_table"]

ESTIMATOR_TITLES = {
    "et": "smoothed Good–Turing / Efron–Thisted, KnowSum eq. (1)",
    "osw-binomial": "Orlitsky–Suresh–Wu binomial smoothing",
    "osw-poisson": "Orlitsky–Suresh–Wu Poisson smoothing",
    "good-toulmin": "Good–Toulmin, unsmoothed",
    "chao1": "Chao1 richness, bias-corrected",
}
"""One line naming each estimator and its source, shown beside its name."""

INTERVAL_TITLES = {
    "lognormal": "log-normal (Chao 1987): N_seen + Û·C^(∓1), C = exp(z·sqrt(ln(1 + v/Û²))), "
    "v = bootstrap variance of Û",
    "percentile": "bootstrap percentiles re-centred on the estimate (may fall below N_seen)",
}
"""How each interval method forms the interval."""

_K_SOURCES = {"given": "given", "default": "default", "formula": "OSW formula ⌈½·log₃(n t²/(t−1))⌉"}


def _fmt(x: float | None, digits: int = 1) -> str:
    if x is None:
        return "—"
    if isinstance(x, int) or (float(x).is_integer() and abs(x) >= 1):
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


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
    level = f"{boot.level:.0%} interval ({boot.interval})" if boot else "interval"
    queries = f", {report.n_queries:,} queries" if report.n_queries else ""
    rows = [("", "estimate", level)]
    rows.append(("observations  n", _fmt(report.n_observations) + queries, ""))
    rows.append(("seen          N_seen", _fmt(report.n_seen), ""))
    intervals = (boot.unseen, boot.total, boot.skr) if boot else (None, None, None)
    clamped = report.n_unseen_raw < 0
    beside = (
        (f"raw Û(t) = {report.n_unseen_raw:,.1f}: negative, reported as 0", "= N_seen (Û clamped at 0)", "")
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
        shown = "—" if iv is None else f"[{_fmt(iv[0], digits)}, {_fmt(iv[1], digits)}]"
        rows.append((label, _fmt(value, digits) if clamped else f"{value:,.{digits}f}", f"{shown}   {mark}"))
    return [f"  {_pad(a, 22)}{b:>16}   {c}".rstrip() for a, b, c in rows]


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
    return tail + [f"  note: {note}" for note in report.notes]


def estimate_table(report: EstimateReport) -> str:
    """The terminal table of ``knowsum estimate`` (no trailing newline)."""
    return "\n".join(_head(report) + _body(report) + _tail(report))


def estimate_json(report: EstimateReport) -> dict[str, Any]:
    """The ``--json`` object: the estimate, its interval, the choice of ``k``, the bootstrap, the
    diagnostics and the notes in the statistics layer's layout (:func:`~knowsum.stats.summary.summary_dict`),
    then the file read; NaN and infinities become ``None``."""
    record = {
        **summary_dict(report),
        "file": report.source,
        "format": report.format,
        "format_detected": report.format_detected,
        "format_reason": report.format_reason,
    }
    return dict(_json_safe(record))
