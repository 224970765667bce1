"""``knowsum census plan PILOT --t T --error E``: how many queries a census needs, before paying."""

from __future__ import annotations

import math
from pathlib import Path

import click

from knowsum.census import PlanRow, SizePlan, pilot_sample, plan_census
from knowsum.cliutil.options import echo_json, json_option, seed_option
from knowsum.cliutil.params import FiniteRange
from knowsum.errors import ConfigError
from knowsum.report import text_table
from knowsum.stats.own_t_text import share
from knowsum.stats.unseen import MAX_T

__all__ = ["plan"]

MIN_REPLICATES = 20
"""Fewest simulated censuses per size ``--replicates`` accepts."""


def _pct(x: float, spec: str = ".0%") -> str:
    return format(x, spec) if math.isfinite(x) else "n/a"


def _cells(r: PlanRow, target: float) -> list[str]:
    """One size's row: queries, error of N_tot ± s.e., error of U, noise floor, coverage, passes."""
    error_total = f"{_pct(r.error_total, '.1%')} ± {_pct(r.error_se, '.1%')}"
    coverage = f"{share(r.coverage)} ± {r.coverage_se:.0%}"  # never 100% for a share below it
    passes = "yes" if r.passes(target) else ""
    return [f"{r.n_queries:,}", error_total, _pct(r.error), _pct(r.noise_floor), coverage, passes]


def _table(p: SizePlan) -> str:
    rows = [_cells(r, p.target) for r in p.rows]
    head = ["queries Q", "error of N_tot", "error of U", "noise floor (U)", "PI coverage", "meets"]
    return text_table(head, rows)


@click.command("plan")
@click.argument("pilot", type=click.Path(path_type=Path))
@click.option(
    "--t",
    "t",
    type=FiniteRange(min=0, min_open=True),
    default=100.0,
    show_default=True,
    help="Extrapolation factor to size for (> 0).",
)
@click.option(
    "--error",
    "error",
    type=FiniteRange(0, 1, min_open=True, max_open=True),
    default=0.2,
    show_default=True,
    help="Largest expected relative error of N_tot at t (between 0 and 1, e.g. 0.2).",
)
@click.option(
    "--replicates",
    type=click.IntRange(min=MIN_REPLICATES),
    default=100,
    show_default=True,
    help=f"Simulated censuses per size (at least {MIN_REPLICATES}).",
)
@seed_option(help_text="Seed of the simulation.")
@json_option
def plan(pilot: Path, t: float, error: float, replicates: int, seed: int, as_json: bool) -> None:
    """How many queries a census needs for its N_tot at T to be within ERROR, from a PILOT.

    \b
    PILOT: a census run folder, or a per-query items file (as `census score` reads).
    Fits a community to the pilot (its items, Chao1's undetected ones, its answer lengths),
    simulates censuses of the pilot's size, doubled until one meets the target (expected error of
    N_tot ≤ ERROR and 95 % prediction-interval coverage ≥ 90 %), and prints Q → error, coverage.
    The unseen part is Chao1's lower bound: the plan is the least a census needs.

    \b
    Examples:
      knowsum census plan census-runs/theorems-smollm2 --t 100 --error 0.2
      knowsum census plan pilot.jsonl --t 10 --error 0.1 --json
    """
    if t > MAX_T:  # every command's cap on t (its help keeps the range it has always shown: > 0)
        raise ConfigError(f"--t must be a number at most {MAX_T:g}, got {t:g}")
    found = plan_census(pilot_sample(pilot), t, error, replicates, seed)
    if as_json:
        echo_json(found.to_dict())
        return
    c = found.community
    click.echo(
        f"pilot: {found.pilot_queries:,} queries; fitted community {c.size:,} items "
        f"({c.f0:,} unseen, Chao1's lower bound); et, k = {found.k}; t = {t:g}; "
        f"{replicates} censuses per size"
    )
    click.echo(_table(found))
    last = found.rows[-1]
    if found.n_queries is not None:
        meets = f"error of N_tot ≤ {error:.0%}, coverage ≥ {found.min_coverage:.0%}"
        click.echo(f"plan: {found.n_queries:,} queries ({meets}; a lower bound: see --help)")
    elif last.mean_new < 1:
        click.echo(
            f"plan: n/a: by {last.n_queries:,} queries the fitted community is exhausted (E U < 1): its "
            "unseen part is Chao1's lower bound, so the simulation cannot size a larger census; take a "
            "larger pilot"
        )
    else:
        click.echo(
            f"plan: none of the sizes tried up to {last.n_queries:,} queries meets error ≤ {error:.0%} with "
            f"coverage ≥ {found.min_coverage:.0%}; take a smaller t or a looser error"
        )
    click.echo(
        "noise floor: U(t) varies by about sqrt(E U) itself, so the error relative to U cannot fall below "
        f"1/sqrt(E U); an error of {error:.0%} relative to U needs E U ≳ {1 / error**2:,.0f} new items"
    )
