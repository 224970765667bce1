"""``knowsum census sensitivity RUN_DIR`` and ``knowsum census sweep TASK`` (KnowSum §5.2)."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from knowsum.census import K_GRID, T_GRID, add_sensitivity, run_sweep, sweep_cells, sweep_configs
from knowsum.census._cli_options import census_settings, default, estimation_options, run_opened
from knowsum.census.page import sensitivity_tables, sweep_table
from knowsum.cliutil.common import model_options, store_option
from knowsum.cliutil.options import (
    echo_json,
    finish,
    json_option,
    n_bootstrap_option,
    out_option,
    overwrite_option,
)
from knowsum.errors import ConfigError
from knowsum.stats.caveats import caveat_dicts
from knowsum.stats.unseen import MAX_K

__all__ = ["comma_list", "sensitivity", "sweep"]

V = TypeVar("V")


def comma_list(
    option: str,
    raw: str | None,
    cast: Callable[[str], V],
    fallback: list[V],
    *,
    valid: Callable[[V], bool] | None = None,
    need: str = "",
) -> list[V]:
    """A comma-separated option value (``0.7,1``); ``fallback`` when not given.

    ``valid``: each value must pass it, else one line names the option and the value, and says what
    each must be (``need``: ``--k-grid: 0 is not a whole number in [1, 50] (in '0,5')``).
    """
    if raw is None:
        return fallback
    parts = [x.strip() for x in raw.split(",")]
    if not any(parts):
        raise ConfigError(f"{option}: no value in {raw!r}")
    if not all(parts):  # "1,,3" or "1,": a value left out is a typo, not a shorter list
        raise ConfigError(f"{option}: an empty value in {raw!r}: give comma-separated values (1,3)")
    try:
        values = [cast(x) for x in parts]
    except ValueError:
        raise ConfigError(f"{option}: expected comma-separated values, got {raw!r}") from None
    for part, value in zip(parts, values, strict=True):
        if valid is not None and not valid(value):
            where = f" (in {raw!r})" if len(parts) > 1 else ""
            raise ConfigError(f"{option}: {part} is not {need}{where}")
    return values


def _variant(x: str) -> Any:
    if x not in ("full", "simple"):
        raise ConfigError(f"--prompt-variant: {x!r} is neither full nor simple")
    return x


@click.command("sensitivity")
@click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--t-grid",
    default=None,
    show_default=",".join(f"{t:g}" for t in T_GRID),
    help="Comma-separated t values (each > 0).",
)
@click.option(
    "--k-grid",
    default=None,
    show_default=f"{K_GRID[0]},…,{K_GRID[-1]}",
    help=f"Comma-separated k values (whole numbers in [1, {MAX_K}]).",
)
@n_bootstrap_option(None, "Resamples of the t band (default: the run's own --n-bootstrap).")
@json_option
def sensitivity(
    run_dir: Path, t_grid: str | None, k_grid: str | None, n_bootstrap: int | None, as_json: bool
) -> None:
    """N_tot and SKR over t, N_tot and held-out NMSE over k, from one run (KnowSum Figs. 8-9 left).

    No new sampling: the run's items.jsonl is re-estimated. Prints both tables, adds
    plots/sensitivity_t.png, plots/sensitivity_k.png and a section to report.html, and stores the
    study in result.json (sensitivity).
    """
    ts = comma_list(
        "--t-grid",
        t_grid,
        float,
        list(T_GRID),
        valid=lambda t: math.isfinite(t) and t > 0,
        need="a number > 0",
    )
    ks = comma_list(
        "--k-grid",
        k_grid,
        int,
        list(K_GRID),
        valid=lambda k: 1 <= k <= MAX_K,
        need=f"a whole number in [1, {MAX_K}]",
    )
    done = add_sensitivity(run_dir, ts, ks, n_bootstrap)
    study = done.record.sensitivity
    assert study is not None
    if as_json:
        echo_json(
            {
                "run": str(run_dir),
                "report": str(done.report),
                "sensitivity": json.loads(study.model_dump_json()),
                "caveats": caveat_dicts(done.record.caveats),  # the run's, which its figures share
            }
        )
    else:
        click.echo(sensitivity_tables(study))
    finish(done.report, as_json=as_json)


@click.command("sweep")
@click.argument("task")
@model_options
@click.option("--queries", type=int, default=default("queries"), show_default=True, help="N_query per cell.")
@click.option(
    "--temperature", "temps", default="1", show_default=True, help="Temperatures, e.g. 0.7,1 (the paper's)."
)
@click.option(
    "--top-p", "top_ps", default="1", show_default=True, help="Nucleus masses, e.g. 1,0.9 (the paper's)."
)
@click.option(
    "--answers",
    "answers",
    default=None,
    show_default="task default",
    help="N_ans values, e.g. 10,20 (the paper's).",
)
@click.option(
    "--prompt-variant", "variants", default="full", show_default=True, help="full,simple (paper App. B.2)."
)
@estimation_options
@store_option
@out_option("Sweep directory [default: census-runs/sweep-TASK[-strict][-incidence][-simple]-MODEL].")
@overwrite_option
@json_option
def sweep(
    task: str,
    temps: str,
    top_ps: str,
    answers: str | None,
    variants: str,
    as_json: bool,
    overwrite: bool,
    **kw: Any,
) -> None:
    """Run TASK once per setting and compare N_seen and N_tot (KnowSum Figs. 8-9 right).

    Each cell is an ordinary, resumable run directory OUT/<cell>; the sweep writes OUT/sweep.html
    and OUT/sweep.json. OUT is the sweep's own: another sweep's folder is refused unless
    --overwrite, a folder of other files always. The paper's grids: --temperature 0.7,1
    --top-p 1,0.9 (sampling) and --answers 10,20 --prompt-variant full,simple (prompt; 30,50
    answers for diseases).

    \b
    Example:
      knowsum census sweep theorems --answers 10,20 --prompt-variant full,simple --queries 40
    """
    base, model, settings = census_settings(task, None, kw, "census sweep")
    cells = sweep_cells(
        comma_list("--temperature", temps, float, [base.temperature]),
        comma_list("--top-p", top_ps, float, [base.top_p]),
        comma_list("--answers", answers, int, [base.answers]),
        comma_list("--prompt-variant", variants, _variant, [base.prompt_variant]),
    )
    sweep_configs(base, cells)  # every cell is checked before the model is opened
    done = run_opened(run_sweep, (base, cells), model, settings, overwrite=overwrite)
    entries = [(label, r, str(d)) for label, (_, r, d) in zip(done.labels, done.cells, strict=True)]
    if as_json:
        echo_json(
            {
                "task": base.task,
                "out_dir": str(done.page.parent),
                "page": str(done.page),
                "summary": str(done.summary),
                "cells": done.rows,
            }
        )
    else:
        click.echo(sweep_table(entries))
    click.echo(f"page: {done.page}", err=as_json)
