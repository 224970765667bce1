"""``knowsum census overlap RUN_A RUN_B``: the items two models both know, seen and estimated."""

from __future__ import annotations

from pathlib import Path

import click

from knowsum.census import overlap_runs
from knowsum.census.page import overlap_data, overlap_table
from knowsum.cliutil.options import echo_json, json_option

__all__ = ["overlap"]


@click.command("overlap")
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option(
    "--level", type=float, default=0.95, show_default=True, help="Confidence level of the intervals."
)
@click.option("--markdown", is_flag=True, help="Print a Markdown table.")
@json_option
def overlap(run_a: Path, run_b: Path, level: float, markdown: bool, as_json: bool) -> None:
    """Estimate how many items two census runs share, counting those neither model has named yet.

    \b
    Mention counting: observed, Chao1-shared and Chao1-shared-bc (Pan, Huang & Chao 2009; SpadeR).
    Incidence counting: observed, Chao2-shared and Chao2-shared-bc (Chao et al. 2000), each
    response a sampling unit. Each with its s.e. and log-normal interval. The two runs must be of the
    same task, knowledge base release, criterion and counting.

    \b
    Example:
      knowsum census overlap census-runs/diseases-model-a census-runs/diseases-model-b
    """
    if not 0.0 < level < 1.0:
        raise click.BadParameter(f"{level:g}: give a level strictly between 0 and 1", param_hint="--level")
    result = overlap_runs(run_a, run_b, level=level)
    if as_json:
        echo_json(overlap_data(result))
    else:
        click.echo(overlap_table(result, markdown=markdown))
