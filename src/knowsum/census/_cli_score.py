"""``knowsum census score ITEMS``: the estimation half of a census on your own per-query items."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import click

from knowsum.census import CensusRun, score_items
from knowsum.census._cli_options import census_settings, estimation_options, print_run, setting_option
from knowsum.cliutil.inspect_log import from_inspect_log, inspect_log_option
from knowsum.cliutil.options import json_option, kb_option, out_option, overwrite_option

__all__ = ["score"]


@click.command("score")
@click.argument("items", type=click.Path(path_type=Path), required=False)
@kb_option("Verify and cluster against this installed KB (e.g. mesh); default: no verification.")
@setting_option("--cutoff", float, "Fuzzy match cut-off with --kb.")
@click.option(
    "--model", "-m", "model", default="items", show_default=True, help="Name of what made the items."
)
@click.option("--name", default=None, show_default="score:<file stem>", help="Task name in the result.")
@estimation_options
@out_option(
    "Run directory [default: census-runs/score-<file stem>, or the --name with ':' as '-'; then -strict, "
    "-incidence for a criterion or counting other than the default]."
)
@overwrite_option
@inspect_log_option("census")
@json_option
@click.option("--markdown", is_flag=True, help="Print the summary as a Markdown table.")
def score(
    items: Path | None,
    inspect_log: Path | None,
    model: str,
    name: str | None,
    markdown: bool,
    as_json: bool,
    overwrite: bool,
    **kw: Any,
) -> None:
    """Estimate from ITEMS, per-query items you verified yourself (KnowSum App. 2 and any pipeline).

    \b
    ITEMS: JSON lines {"query": "Q1", "items": ["Humans", "COVID-19"]}, or QUERY<TAB>ITEM lines.
    A query split over JSON lines is joined; a line repeating an earlier one is refused.
    Writes result.json, items.jsonl, plots/ and report.html like `census run`; `census compare`
    ranks such runs with any others. With --inspect-log, the replies of an `inspect eval
    knowsum/census` log instead, verified, clustered and estimated as the log's task asked.

    \b
    Examples:
      knowsum census score bioasq_mesh.jsonl --kb mesh --model gpt-4o --out runs/gpt-4o-mesh
      knowsum census score --inspect-log logs/2026-01-01T00-00-00_census_abc.eval
    """
    if inspect_log is not None:
        if items is not None:
            raise click.UsageError("give ITEMS or --inspect-log, not both")
        read = from_inspect_log("census", inspect_log, kw.get("out"), overwrite)
        print_run(cast(CensusRun, read), markdown=markdown, as_json=as_json)
        return
    if items is None:
        raise click.UsageError("give ITEMS (a per-query items file) or --inspect-log LOG")
    cfg, _, settings = census_settings("custom", None, kw, "census score")
    done = score_items(items, cfg, model=model, name=name, out=settings.out, overwrite=overwrite)
    print_run(done, markdown=markdown, as_json=as_json)
