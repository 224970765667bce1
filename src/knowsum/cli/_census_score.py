"""``knowsum census score ITEMS``: the estimation half of a census on your own per-query items."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from knowsum.census import CensusConfig, score_items
from knowsum.census._config import config_error
from knowsum.errors import ConfigError

__all__ = ["k_value", "score"]


def k_value(value: str | None) -> int | str | None:
    """``--k``: ``auto``, an integer, or ``None`` (not given)."""
    if value is None or value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise ConfigError(f"invalid --k {value!r}: give 'auto' or an integer in [1, 50]") from None


@click.command("score")
@click.argument("items", type=click.Path(path_type=Path))
@click.option("--kb", default=None, help="Verify and cluster against this installed KB (e.g. mesh) [none].")
@click.option("--criterion", type=click.Choice(["strict", "relaxed"]), default=None, help="[relaxed].")
@click.option("--cutoff", type=float, default=None, help="Fuzzy match cut-off with --kb [0.9].")
@click.option(
    "--model", "-m", "model", default="items", show_default=True, help="Name of what made the items."
)
@click.option("--name", default=None, help="Task name in the result [score:<file stem>].")
@click.option("--t", "t", type=float, default=None, help="Extrapolation factor t [100].")
@click.option("--k", "k", default=None, help="Truncation k: 'auto' or an integer.")
@click.option("--n-bootstrap", type=int, default=None, help="Bootstrap resamples [1000].")
@click.option("--interval", type=click.Choice(["lognormal", "percentile"]), default=None, help="[lognormal].")
@click.option("--count", type=click.Choice(["mention", "incidence"]), default=None, help="[mention].")
@click.option("--seed", type=int, default=None, help="Seed [0].")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Run directory.")
@click.option("--markdown", is_flag=True, help="Print the summary as a Markdown table.")
def score(items: Path, model: str, name: str | None, markdown: bool, **opts: Any) -> None:
    """Estimate from ITEMS, per-query items you verified yourself (KnowSum App. 2 and any pipeline).

    \b
    ITEMS: JSON lines {"query": "Q1", "items": ["Humans", "COVID-19"]}, or QUERY<TAB>ITEM lines.
    Writes result.json, items.jsonl, plots/ and report.html like `census run`; `census compare`
    ranks such runs with any others.

    \b
    Example:
      knowsum census score bioasq_mesh.jsonl --kb mesh --model gpt-4o --out runs/gpt-4o-mesh
    """
    opts["k"] = k_value(opts["k"])
    try:
        cfg = CensusConfig(task="custom", **{k: v for k, v in opts.items() if v is not None})
    except ValidationError as exc:
        raise config_error(exc, "census score") from None
    outcome = score_items(items, cfg, model=model, name=name)
    from knowsum.report.census import summary_table

    result = outcome.analysis.result
    for note in result.notes:
        click.echo(f"census: note: {note}", err=True)
    click.echo(summary_table(result, markdown=markdown))
    click.echo(f"report: {outcome.report}")
