"""``knowsum estimate FILE``: unseen-species estimate of a list of observations."""

from __future__ import annotations

from typing import Any

import click
from click.core import ParameterSource
from pydantic import ValidationError

from knowsum._util import config_error
from knowsum.cliutil.options import echo_json, json_option, n_bootstrap_option, note, seed_option
from knowsum.errors import ConfigError
from knowsum.estimate import FORMATS, RICHNESS_ESTIMATORS, EstimateConfig, RichnessConfig, richness
from knowsum.estimate import estimate as estimate_unseen
from knowsum.estimate._cli_options import RICHNESS_OPTIONS, Number, richness_options
from knowsum.estimate.page import (
    estimate_json,
    estimate_table,
    plot_richness_curve,
    richness_json,
    richness_table,
)
from knowsum.stats import ESTIMATORS, INTERVAL_METHODS, IntervalMethod
from knowsum.stats.unseen import MAX_K, MAX_T

__all__ = ["estimate"]


@click.command("estimate")
@click.argument("file", metavar="FILE")
@click.option(
    "--format",
    "fmt",
    metavar="items|counts|prevalence|incidence-freq",
    help="Input format (default: auto-detect; incidence-freq must be given).",
)
@click.option(
    "--estimator",
    metavar="NAME",
    help=f"KnowSum family: {', '.join(ESTIMATORS)}; richness: {', '.join(RICHNESS_ESTIMATORS)} "
    "[default: et; chao2 on incidence data]",
)
@click.option(
    "--t",
    "t",
    type=Number("--t", whole=False, minimum=0, strict=True, maximum=MAX_T),
    metavar="T",
    default="100",
    show_default=True,
    help="Extrapolation factor t > 0 (U(t) = new items in t·n more observations).",
)
@click.option(
    "--k",
    "k",
    type=Number("--k", whole=True, minimum=1, strict=False, auto_ok=True, maximum=MAX_K),
    metavar="auto|INT",
    default="auto",
    show_default=True,
    help=f"Truncation level for 'et': auto (held-out selection among 6, 8, 10) or an integer in "
    f"[1, {MAX_K}] (as in the census).",
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
@richness_options
@json_option
def estimate(
    file: str,
    fmt: str | None,
    estimator: str | None,
    t: float,
    k: int | str,
    n_bootstrap: int | str,
    seed: int,
    interval: IntervalMethod,
    as_json: bool,
    **extra: Any,
) -> int:
    """Estimate how many unseen items FILE's source still holds (Good–Turing family).

    \b
    FILE formats (tab-separated; blank lines and '#' comments are skipped):
      items           one observation per line: ITEM, or QUERY<TAB>ITEM
      counts          ITEM<TAB>COUNT (header line allowed)
      prevalence      S<TAB>N_S: N_S items seen exactly S times (header line allowed)
      incidence-freq  first line T, then COUNT or SPECIES<TAB>COUNT (must be given)

    \b
    Example:
      knowsum estimate examples/fisher_butterflies.tsv --t 1 --k auto
    """
    # n_bootstrap is the raw text when given with the old spelling --bootstrap; the config converts it
    options = {"estimator": estimator or "et", "format": fmt, "t": t, "k": k, "n_bootstrap": n_bootstrap}
    plot = extra.pop("plot")
    toolkit = _toolkit_asked(estimator, fmt, extra, plot)
    try:
        if toolkit:
            unseen = {**options, "format": None, "estimator": "et"} | (
                {"estimator": estimator} if estimator in ESTIMATORS else {}
            )
            config = RichnessConfig(
                estimator=estimator,
                format=fmt,
                **{name: value for name, value in extra.items() if name != "plot"},
                n_bootstrap=n_bootstrap,
                seed=seed,
                unseen=EstimateConfig(**unseen, seed=seed, interval=interval),
            )
        else:
            unseen_config = EstimateConfig(**options, seed=seed, interval=interval)
    except ValidationError as exc:
        raise config_error(exc, "estimate") from exc
    if not toolkit:
        report = estimate_unseen(file, unseen_config)
        echo_json(estimate_json(report)) if as_json else click.echo(estimate_table(report))
        return 0
    _unused_options(estimator)
    result = richness(file, config)
    if plot is not None:
        if result.curve is None:
            raise ConfigError("--plot FILE draws the curve: add --curve")
        plot_richness_curve(result.curve, plot, title=f"{file}: rarefaction / extrapolation")
    echo_json(richness_json(result)) if as_json else click.echo(richness_table(result))
    if plot is not None:
        note(f"curve plot: {plot}")
    return 0


COMMANDLINE = ParameterSource.COMMANDLINE


def _unused_options(estimator: str | None) -> None:
    """Say which KnowSum-family options given on the command line a richness estimator leaves unused
    (it estimates the total richness with its own log-normal interval), rather than drop them silently."""
    if estimator is None or estimator in ESTIMATORS:
        return
    ctx = click.get_current_context()
    given = [
        f"--{n.replace('_', '-')}"
        for n in ("t", "k", "interval")
        if ctx.get_parameter_source(n) is COMMANDLINE
    ]
    if given:
        note(
            f"{', '.join(given)} not used by {estimator}: a richness estimator estimates the total with its "
            "own log-normal interval (they apply to the unseen-item estimators: et, good-toulmin, …)"
        )


def _toolkit_asked(estimator: str | None, fmt: str | None, extra: dict[str, Any], plot: str | None) -> bool:
    """Whether any option of the richness toolkit is used (otherwise the output is the KnowSum table)."""
    if estimator is not None and estimator not in ESTIMATORS:
        return True
    if fmt is not None and fmt not in FORMATS:
        return True
    defaults = {"count": "abundance", "hill": False, "curve": False, "at_coverage": (), "at_size": ()}
    return plot is not None or any(
        extra[name] != defaults.get(name) for name in RICHNESS_OPTIONS if name != "plot"
    )
