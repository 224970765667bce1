"""``knowsum census backtest RUN``: how far does each extrapolation hold on the run's own queries?"""

from __future__ import annotations

import json
from pathlib import Path

import click

from knowsum.census import DEFAULT_TS, backtest_census
from knowsum.census._cli_studies import comma_list
from knowsum.census.backtest_page import backtest_table
from knowsum.cliutil.options import (
    echo_json,
    finish,
    json_option,
    out_option,
    overwrite_option,
    renamed,
    seed_option,
)
from knowsum.errors import ConfigError
from knowsum.stats.foresee import PREDICTORS, predictor
from knowsum.stats.unseen import MAX_K

__all__ = ["backtest"]


def _predictors(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """``--estimator`` values, each a back-test predictor (:func:`knowsum.stats.foresee.predictor`)."""
    for name in value:
        if predictor(name) is None:
            raise click.BadParameter(
                f"{name!r} is not one of {', '.join(repr(p) for p in PREDICTORS)}, "
                f"or sgt-k<k> for k in 1…{MAX_K}",
                ctx,
                param,
            )
    return value


@click.command("backtest")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--t",
    "t_values",
    default=None,
    show_default=",".join(f"{t:g}" for t in DEFAULT_TS),
    help="Comma-separated t: each keeps 1/(t+1) of the queries.",
)
@click.option(
    "--repeats", type=click.IntRange(min=1), default=100, show_default=True, help="Random splits per t."
)
@click.option(
    "--n-bootstrap",
    type=click.IntRange(min=2),
    default=50,
    show_default=True,
    help="Bootstrap resamples per split: the confidence interval, and the prediction interval's "
    "variance (for the linear estimators the larger of it and the closed form). The census's own "
    "trust horizon uses 20: --n-bootstrap 20 --seed SEED repeats its cells (a census of up to 10,000 "
    "queries; a larger one's horizon splits a random 10,000).",
)
@renamed("--resamples", "n_bootstrap", type=click.IntRange(min=2))
@seed_option(help_text="Seed of the splits.")
@click.option(
    "--estimator",
    "estimators",
    multiple=True,
    callback=_predictors,
    metavar="NAME",
    help=f"Back-test only these (repeatable; default: all): {', '.join(PREDICTORS)}, or sgt-k<k> for "
    f"any k in 1…{MAX_K} (a census run with --k k has that one as its trust horizon's estimator).",
)
@out_option(
    "Folder for backtest.json, plots/backtest.png and report.html (default: RUN_DIR/backtest); "
    "it may hold only the same back-test (the same run and settings) unless --overwrite."
)
@overwrite_option
@json_option
def backtest(
    run_dir: Path,
    t_values: str | None,
    repeats: int,
    n_bootstrap: int,
    seed: int,
    estimators: tuple[str, ...],
    out: Path | None,
    overwrite: bool,
    as_json: bool,
) -> None:
    """Back-test every extrapolation on RUN_DIR's own queries (KnowSum Fig. 7, to t = 99).

    For each t, keep a random 1/(t+1) of the queries, predict the new items the rest show, and
    print, per estimator, bias and relative RMSE (± Monte Carlo s.e., beside the noise floor), the
    RMSE relative to N_tot, and the share of 95 % confidence and prediction intervals that cover
    what they showed; then the size curve and the run's trust horizon. No new sampling.
    """
    ts = comma_list("--t", t_values, float, list(DEFAULT_TS))
    if any(t <= 0 for t in ts):
        raise ConfigError(f"--t: invalid t={min(ts):g}: each t must be > 0")
    done = backtest_census(
        run_dir, out, ts, repeats, n_bootstrap, seed, estimators or None, overwrite=overwrite
    )
    if as_json:
        echo_json({"report": str(done.report), "backtest": json.loads(done.record.model_dump_json())})
    else:
        click.echo(backtest_table(done.record))
    finish(done.report, as_json=as_json)
