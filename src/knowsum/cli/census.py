"""``knowsum census run|compare``: the KnowSum census from the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from knowsum.census import CensusConfig, load_config, load_result, run_census
from knowsum.census._config import config_error
from knowsum.cli._census_score import k_value, score
from knowsum.cli._census_studies import sensitivity, sweep
from knowsum.cli._common import SERVER_KIND_HELP
from knowsum.models import SERVER_KINDS

__all__ = ["census"]

_K_HELP = "Truncation k: 'auto' (held-out choice among 6, 8, 10) or an integer."


@click.group()
def census() -> None:
    """Count what a model knows: N_seen, estimated total N_tot, SKR (KnowSum).

    \b
    Examples:
      knowsum census run diseases --model smollm2-135m-instruct --queries 20
      knowsum census run theorems --criterion strict --until-new-rate 0.5
      knowsum census run ontology:go --answers 30
      knowsum census run --config census.toml
      knowsum census compare census-runs/*
      knowsum census score items.jsonl --kb mesh --model my-llm
      knowsum census sensitivity census-runs/diseases-qwen2.5-coder-1.5b-instruct
      knowsum census sweep theorems --answers 10,20 --prompt-variant full,simple
    """


census.add_command(score)
census.add_command(sensitivity)
census.add_command(sweep)


@census.command("run")
@click.argument("task", required=False)
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False, path_type=Path), help="TOML config file."
)
@click.option(
    "--model", "-m", default=None, envvar="KNOWSUM_MODEL", help="Model spec (default: the embedded model)."
)
@click.option("--base-url", default=None, help="API root for openai:MODEL.")
@click.option(
    "--server-kind", type=click.Choice(list(SERVER_KINDS)), default=None, help=SERVER_KIND_HELP + " [auto]"
)
@click.option("--concurrency", type=int, default=None, help="openai: requests in flight [8].")
@click.option("--timeout", type=float, default=None, help="openai: seconds per request [120].")
@click.option("--retries", type=int, default=None, help="openai: retries per request [8].")
@click.option("--queries", type=int, default=None, help="N_query, independent queries [30].")
@click.option(
    "--answers", type=int, default=None, help="N_ans per query [task default: 50 diseases, 20 theorems]."
)
@click.option("--temperature", type=float, default=None, help="Sampling temperature [1].")
@click.option("--top-p", type=float, default=None, help="Nucleus mass [1 = off].")
@click.option("--max-tokens", type=int, default=None, help="Token budget per response [from --answers].")
@click.option("--t", "t", type=float, default=None, help="Extrapolation factor t [100].")
@click.option("--k", "k", default=None, help=_K_HELP)
@click.option("--seed", type=int, default=None, help="Run seed [0].")
@click.option(
    "--criterion", type=click.Choice(["strict", "relaxed"]), default=None, help="Verification [relaxed]."
)
@click.option("--until-new-rate", type=float, default=None, help="Stop when < EPS new items/query predicted.")
@click.option("--batch-queries", type=int, default=None, help="Queries per batch with --until-new-rate.")
@click.option("--n-bootstrap", type=int, default=None, help="Bootstrap resamples [1000].")
@click.option(
    "--interval",
    type=click.Choice(["lognormal", "percentile"]),
    default=None,
    help="Interval: lognormal (Chao 1987, never below N_seen) or percentile (re-centred) [lognormal].",
)
@click.option(
    "--count",
    type=click.Choice(["mention", "incidence"]),
    default=None,
    help="Counting unit: every mention (paper App. B.3) or once per response [mention].",
)
@click.option("--quantile", type=float, default=None, help="Diversity: q of pooled 10-NN distances [0.5].")
@click.option(
    "--pool-with",
    multiple=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Diversity: pool runs.",
)
@click.option("--prompt", default=None, help="Prompt override ({n} = answers).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None, help="Run directory.")
@click.option(
    "--store", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Response store."
)
@click.option("--markdown", is_flag=True, help="Print the summary as a Markdown table.")
def run(task: str | None, config_path: Path | None, markdown: bool, **opts: Any) -> None:
    """Run a census of TASK (diseases, theorems, ontology:KB, diversity[:dream-jobs]) or of --config.

    Responses are kept in the response store: rerunning the same command resumes an interrupted run
    and asks the model only for what is missing. Writes result.json, items.jsonl, plots/ and
    report.html into the run directory.
    """
    opts["k"] = k_value(opts["k"])
    opts["pool_with"] = tuple(opts["pool_with"]) or None
    if task is not None:
        opts["task"] = task
    if config_path is not None:
        cfg = load_config(config_path, opts)
    else:
        if task is None:
            raise click.UsageError(
                "give a TASK (diseases, theorems, ontology:KB, diversity) or --config FILE"
            )
        try:
            cfg = CensusConfig(**{k: v for k, v in opts.items() if v is not None})
        except ValidationError as exc:
            raise config_error(exc, "census run") from None
    outcome = run_census(cfg, echo=lambda m: click.echo(m, err=True))
    from knowsum.report.census import summary_table

    result = outcome.analysis.result
    for note in result.notes:
        click.echo(f"census: note: {note}", err=True)
    click.echo(summary_table(result, markdown=markdown))
    click.echo(f"report: {outcome.report}")


@census.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), help="Also write an HTML page."
)
@click.option("--markdown", is_flag=True, help="Print a Markdown table.")
@click.option(
    "--published",
    is_flag=True,
    help="Add the KnowSum paper's Table 1 rows (9 models) of the runs' task and criterion, marked.",
)
@click.option(
    "--figure",
    "figure_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the Fig. 1-style PNG: N_seen vs N_tot per run and the two rankings.",
)
def compare(
    runs: tuple[Path, ...], html_path: Path | None, markdown: bool, published: bool, figure_path: Path | None
) -> None:
    """Compare census runs side by side: N_seen, N_tot, SKR and rank changes (KnowSum Fig. 1).

    With --published, the paper's Table 1 rows with the same criterion (diseases strict =
    "Anatomical disease", relaxed = "Human diseases"; theorems strict = "Theorem only", relaxed =
    "All math concepts") are ranked with the runs and marked [KnowSum Table 1].
    """
    from knowsum.census._published import published_rows
    from knowsum.report.census import compare_table, write_compare

    results: list[Any] = [load_result(r) for r in runs]
    if published:
        columns = dict.fromkeys((r.task, r.criterion) for r in results)
        reference = [row for task, crit in columns for row in published_rows(task, crit)]
        if not reference:
            names = ", ".join(f"{t} {c}" for t, c in columns)
            click.echo(f"census: note: KnowSum Table 1 has no column for {names}", err=True)
        results += reference
    click.echo(compare_table(results, markdown=markdown))
    if figure_path is not None:
        from knowsum.report._census_rank import ranking_figure
        from knowsum.report._plots import save

        save(ranking_figure(results), figure_path)
        click.echo(f"figure: {figure_path}")
    if html_path is not None:
        links = [str((r / "report.html" if r.is_dir() else r.parent / "report.html").resolve()) for r in runs]
        click.echo(f"page: {write_compare(results, html_path, links)}")
