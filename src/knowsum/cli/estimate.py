"""``knowsum estimate FILE``: unseen-species estimate of a list of observations."""

from __future__ import annotations

import math
from typing import Any

import click
from pydantic import ValidationError

from knowsum._util import config_error
from knowsum.cli._options import echo_json, json_option, n_bootstrap_option, seed_option
from knowsum.errors import ConfigError
from knowsum.estimate import EstimateConfig
from knowsum.estimate import estimate as estimate_unseen
from knowsum.report.estimate import estimate_json, estimate_table
from knowsum.stats import ESTIMATORS, INTERVAL_METHODS, IntervalMethod

__all__ = ["estimate"]


class _Number(click.ParamType[float | str]):
    """A number above a bound; a bad value is one line naming the option (``--t must be …``).

    ``auto_ok`` also lets the word ``auto`` through (``--k auto``).
    """

    def __init__(self, option: str, *, whole: bool, minimum: float, strict: bool, auto_ok: bool = False):
        self.option, self.whole, self.auto_ok = option, whole, auto_ok
        self.minimum, self.strict = minimum, strict
        self.name = "auto|integer" if auto_ok else ("integer" if whole else "number")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float | str:
        raw = str(value)
        if self.auto_ok and raw.strip().lower() == "auto":
            return "auto"
        try:
            number: float | None = int(raw) if self.whole else float(raw)
        except ValueError:
            number = None
        too_small = number is not None and (number < self.minimum or (self.strict and number == self.minimum))
        if number is None or not math.isfinite(number) or too_small:
            kind = "a whole number" if self.whole else "a number"
            bound = f"> {self.minimum:g}" if self.strict else f">= {self.minimum:g}"
            raise ConfigError(f"{self.option} must be {kind} {bound}, got {raw!r}")
        return number


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
    "t",
    type=_Number("--t", whole=False, minimum=0, strict=True),
    metavar="T",
    default="100",
    show_default=True,
    help="Extrapolation factor t > 0 (U(t) = new items in t·n more observations).",
)
@click.option(
    "--k",
    "k",
    type=_Number("--k", whole=True, minimum=1, strict=False, auto_ok=True),
    metavar="auto|INT",
    default="auto",
    show_default=True,
    help="Truncation level for 'et': auto (held-out selection among 6, 8, 10) or an integer >= 1.",
)
@n_bootstrap_option(1000, "Bootstrap resamples for the interval; 0 skips it.")
@seed_option
@click.option(
    "--interval",
    "interval",
    type=click.Choice(INTERVAL_METHODS),
    default="lognormal",
    show_default=True,
    help="lognormal: Chao's log-transformed interval (never below N_seen); percentile: re-centred.",
)
@json_option
def estimate(
    file: str,
    fmt: str | None,
    estimator: str,
    t: float,
    k: int | str,
    n_bootstrap: int | str,
    seed: int,
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
    # n_bootstrap is the raw text when given with the old spelling --bootstrap; the config converts it
    options = {"estimator": estimator, "format": fmt, "t": t, "k": k, "n_bootstrap": n_bootstrap}
    try:
        config = EstimateConfig(**options, seed=seed, interval=interval)
    except ValidationError as exc:
        raise config_error(exc, "estimate") from exc
    report = estimate_unseen(file, config)
    if as_json:
        echo_json(estimate_json(report))
    else:
        click.echo(estimate_table(report))
    return 0
