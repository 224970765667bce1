"""``knowsum estimate FILE``: unseen-species estimate of a list of observations."""

from __future__ import annotations

import json
import math
import unicodedata
import warnings
from typing import Any, Literal

import click

from knowsum.errors import ConfigError, UnknownNameError
from knowsum.io_observations import FORMATS, Format, Observations, read_observations
from knowsum.stats import ESTIMATORS, INTERVAL_METHODS, IntervalMethod, StatsWarning, Summary, summarize

__all__ = ["estimate"]

_TITLES = {
    "et": "smoothed Good–Turing / Efron–Thisted, KnowSum eq. (1)",
    "osw-binomial": "Orlitsky–Suresh–Wu binomial smoothing",
    "osw-poisson": "Orlitsky–Suresh–Wu Poisson smoothing",
    "good-toulmin": "Good–Toulmin, unsmoothed",
    "chao1": "Chao1 richness, bias-corrected",
}


_INTERVALS = {
    "lognormal": "log-normal (Chao 1987): N_seen + Û·C^(∓1), C = exp(z·sqrt(ln(1 + v/Û²))), "
    "v = bootstrap variance of Û",
    "percentile": "bootstrap percentiles re-centred on the estimate (may fall below N_seen)",
}


def _number(option: str, raw: str, cast: type[int] | type[float], minimum: float, strict: bool) -> Any:
    try:
        value = cast(raw)
    except ValueError:
        value = None
    bad = value is None or not math.isfinite(value) or value < minimum or (strict and value == minimum)
    if bad:
        kind = "a whole number" if cast is int else "a number"
        bound = f"> {minimum:g}" if strict else f">= {minimum:g}"
        raise ConfigError(f"{option} must be {kind} {bound}, got {raw!r}")
    return value


def _parse_k(raw: str) -> int | Literal["auto"]:
    if raw.strip().lower() == "auto":
        return "auto"
    value: int = _number("--k", raw, int, 1, strict=False)
    return value


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


def _k_line(summary: Summary) -> str:
    sel = summary.selection
    if summary.k_source == "held-out" and sel is not None:
        fractions = ", ".join(
            f"1/{round(1 / r)}" if abs(1 / r - round(1 / r)) < 1e-9 else f"{r:g}" for r in sel.fractions
        )
        table = "   ".join(f"k={k}: {e:.3g}" for k, e in zip(sel.candidates, sel.nmse, strict=True))
        split = "query splits" if sel.method == "queries" else "binomial thinnings"
        first = f"{summary.estimate.k}  (held-out: {sel.n_shuffles} {split} × r_obs {fractions})"
        return f"{first}\n{'':13}NMSE  {table}"
    labels = {"given": "given", "default": "default", "formula": "OSW formula ⌈½·log₃(n t²/(t−1))⌉"}
    if summary.k_source in labels:
        return f"{summary.estimate.k}  ({labels[summary.k_source]})"
    return "—  (not used by this estimator)"


def _table(path: str, obs: Observations, summary: Summary, notes: list[str]) -> str:
    est, boot = summary.estimate, summary.bootstrap
    how = f"auto-detected: {obs.reason}" if obs.detected else "given with --format"
    queries = f", {summary.n_queries:,} queries" if summary.n_queries else ""
    head = [
        f"knowsum estimate — {path}",
        f"  format     {obs.format}  ({how})",
        f"  estimator  {est.estimator}  ({_TITLES[est.estimator]})",
        f"  t          {'—  (not used by chao1)' if est.t is None else f'{est.t:g}'}",
        f"  k          {_k_line(summary)}",
        "",
    ]
    level = f"{boot.level:.0%} interval ({boot.interval})" if boot else "interval"
    rows = [("", "estimate", level)]
    rows.append(("observations  n", _fmt(est.n_observations) + queries, ""))
    rows.append(("seen          N_seen", _fmt(est.n_seen), ""))
    intervals = (boot.unseen, boot.total, boot.skr) if boot else (None, None, None)
    clamped = est.raw < 0
    beside = (
        (f"raw Û(t) = {est.raw:,.1f}: negative, reported as 0", "= N_seen (Û clamped at 0)", "")
        if clamped
        else ("", "", "")
    )
    for (label, value, digits), iv, mark in zip(
        [
            ("unseen        Û(t)", est.estimate, 1),
            ("total         N̂_tot", est.n_total, 1),
            ("SKR(t)", est.skr, 3),
        ],
        intervals,
        beside,
        strict=True,
    ):
        shown = "—" if iv is None else f"[{_fmt(iv[0], digits)}, {_fmt(iv[1], digits)}]"
        rows.append((label, _fmt(value, digits) if clamped else f"{value:,.{digits}f}", f"{shown}   {mark}"))
    body = [f"  {_pad(a, 22)}{b:>16}   {c}".rstrip() for a, b, c in rows]
    tail = [""]
    if boot:
        unit = "whole queries" if boot.method == "queries" else "multinomial on the counts"
        tail.append(f"  bootstrap: {boot.n_resamples:,} resamples ({unit}), seed {boot.seed}")
        tail.append(f"  interval:  {_INTERVALS[boot.interval]}")
    else:
        tail.append("  bootstrap: skipped (--bootstrap 0)")
    bound = est.diagnostics.theorem1_bound
    if bound is not None:
        ok = "holds" if est.diagnostics.within_bound else "VIOLATED"
        tail.append(f"  Theorem 1: Û(t) ≤ e^(kt/(t+1))·N_seen = {bound:,.4g} ({ok})")
    elif est.estimator == "et":
        tail.append("  Theorem 1: bound not applicable (needs t ≥ k − 1)")
    tail += [f"  note: {note}" for note in notes]
    return "\n".join(head + body + tail)


@click.command("estimate")
@click.argument("file", metavar="FILE")
@click.option(
    "--format", "fmt", metavar="items|counts|prevalence", help="Input format (default: auto-detect)."
)
@click.option(
    "--estimator", default="et", show_default=True, metavar="NAME", help=f"One of: {', '.join(ESTIMATORS)}."
)
@click.option(
    "--t",
    "t_raw",
    metavar="T",
    default="100",
    show_default=True,
    help="Extrapolation factor t > 0 (U(t) = new items in t·n more observations).",
)
@click.option(
    "--k",
    "k_raw",
    metavar="auto|INT",
    default="auto",
    show_default=True,
    help="Truncation level for 'et': auto (held-out selection among 6, 8, 10) or an integer >= 1.",
)
@click.option(
    "--bootstrap",
    "boot_raw",
    metavar="N",
    default="1000",
    show_default=True,
    help="Bootstrap resamples for the interval; 0 skips it.",
)
@click.option(
    "--seed",
    "seed_raw",
    metavar="S",
    default="0",
    show_default=True,
    help="Seed for held-out splits and bootstrap.",
)
@click.option(
    "--interval",
    "interval",
    type=click.Choice(INTERVAL_METHODS),
    default="lognormal",
    show_default=True,
    help="lognormal: Chao's log-transformed interval (never below N_seen); percentile: re-centred.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the table.")
def estimate(
    file: str,
    fmt: str | None,
    estimator: str,
    t_raw: str,
    k_raw: str,
    boot_raw: str,
    seed_raw: str,
    interval: IntervalMethod,
    as_json: bool,
) -> int:
    """Estimate how many unseen items FILE's source still holds (Good–Turing family).

    \b
    FILE formats (tab-separated; blank lines and '#' comments are skipped):
      items       one observation per line: ITEM, or QUERY<TAB>ITEM
      counts      ITEM<TAB>COUNT (header line allowed)
      prevalence  S<TAB>N_S: N_S items seen exactly S times (header line allowed)

    \b
    Example:
      knowsum estimate examples/fisher_butterflies.tsv --t 1 --k auto
    """
    if estimator not in ESTIMATORS:
        raise UnknownNameError("estimator", estimator, tuple(ESTIMATORS))
    if fmt is not None and fmt not in FORMATS:
        raise UnknownNameError("format", fmt, FORMATS)
    t = _number("--t", t_raw, float, 0, strict=True)
    k = _parse_k(k_raw)
    n_boot: int = _number("--bootstrap", boot_raw, int, 0, strict=False)
    seed: int = _number("--seed", seed_raw, int, 0, strict=False)
    chosen: Format | None = next((f for f in FORMATS if f == fmt), None)
    obs = read_observations(file, chosen)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
        summary = summarize(obs.prevalence, estimator, t, k, n_bootstrap=n_boot, seed=seed, interval=interval)
    notes = list(summary.notes)
    notes += [f"warning: {w.message}" for w in caught if issubclass(w.category, StatsWarning)]
    if as_json:
        record = summary.to_dict()
        record.update(file=file, format=obs.format, format_detected=obs.detected, format_reason=obs.reason)
        record["notes"] = notes
        click.echo(json.dumps(_json_safe(record), ensure_ascii=False, allow_nan=False))
    else:
        click.echo(_table(file, obs, summary, notes))
    return 0
