"""``knowsum census run|compare|score|plan|sensitivity|sweep|tasks``: the KnowSum census, command line."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import click

from knowsum._util import paths, sampling_lock
from knowsum.census import (
    CensusRecord,
    check_coverage,
    compare_results,
    equal_coverage,
    prepare_census,
    run_census,
)
from knowsum.census._cli_backtest import backtest
from knowsum.census._cli_options import (
    census_settings,
    estimation_options,
    print_run,
    run_opened,
    run_options,
)
from knowsum.census._cli_overlap import overlap
from knowsum.census._cli_plan import plan
from knowsum.census._cli_score import score
from knowsum.census._cli_studies import sensitivity, sweep
from knowsum.census._cli_tasks import tasks
from knowsum.census.page import (
    compare_data,
    compare_text,
    coverage_data,
    coverage_html,
    coverage_table,
    ranking_figure,
    write_census_compare,
)
from knowsum.cliutil.common import model_options, store_option
from knowsum.cliutil.options import (
    compare_options,
    echo_json,
    file_option,
    json_option,
    n_bootstrap_option,
    note,
    out_option,
    overwrite_option,
)
from knowsum.cliutil.outputs import guard
from knowsum.report import save

__all__ = ["census"]


@click.group()
def census() -> None:
    """Count what a model knows: N_seen, estimated total N_tot, SKR (KnowSum), with sample coverage,
    the Chao estimate and Hill numbers beside them.

    \b
    Examples:
      knowsum census tasks
      knowsum census run diseases --model smollm2-135m-instruct --queries 20
      knowsum census run theorems --criterion strict --until-new-rate 0.5
      knowsum census run diseases --until-coverage 0.9 --queries 500
      knowsum census run ontology:go --answers 30
      knowsum census run --config census.toml
      knowsum census compare census-runs/*
      knowsum census compare census-runs/* --at-coverage 0.9
      knowsum census overlap census-runs/diseases-model-a census-runs/diseases-model-b
      knowsum census score items.jsonl --kb mesh --model my-llm
      knowsum census sensitivity census-runs/diseases-qwen2.5-coder-1.5b-instruct
      knowsum census sweep theorems --answers 10,20 --prompt-variant full,simple
      knowsum census plan census-runs/theorems-smollm2-135m-instruct --t 100 --error 0.2
    """


census.add_command(score)
census.add_command(plan)
census.add_command(overlap)
census.add_command(sensitivity)
census.add_command(sweep)
census.add_command(backtest)
census.add_command(tasks)


@census.command("run")
@click.argument("task", required=False)
@file_option(
    "--config",
    "config_path",
    help_text="TOML config file (its keys are the options' names; options given here win).",
)
@model_options
@run_options
@estimation_options
@store_option
@out_option("Run directory [default: census-runs/TASK[-strict][-incidence][-simple]-MODEL].")
@overwrite_option
@json_option
@click.option("--markdown", is_flag=True, help="Print the summary as a Markdown table.")
def run(
    task: str | None, config_path: Path | None, markdown: bool, as_json: bool, overwrite: bool, **kw: Any
) -> None:
    """Run a census of TASK (diseases, theorems, ontology:KB, diversity[:dream-jobs]) or of --config.

    Responses are kept in the response store: rerunning the same command resumes an interrupted run
    and asks the model only for what is missing. Writes result.json, items.jsonl, plots/ and
    report.html into the run directory.
    """
    store_given = kw.get("store_path") is not None
    cfg, model, settings = census_settings(task, config_path, kw, "census run")
    if config_path is not None:  # the file may name the run folder and the store: the same guard
        kept = settings.store or paths.store_path()
        inputs = {"response store": kept, "config file": config_path, "pooled run": cfg.pool_with}
        guard([("out (from --config)", "run", settings.out)], inputs)
    # the config's store is the one sampled: locked here (the command's guard locks a --store only)
    held = sampling_lock(settings.store or paths.store_path()) if config_path and not store_given else None
    with held or contextlib.nullcontext():
        plan = prepare_census(cfg)  # a bad task or a missing KB fails before the model is opened
        done = run_opened(run_census, (cfg,), model, settings, plan=plan, overwrite=overwrite)
    print_run(done, markdown=markdown, as_json=as_json)


@census.command("compare")
@compare_options(
    "Add the KnowSum paper's Table 1 rows (9 models) of the runs' task and criterion, marked "
    "'MODEL · KnowSum Table 1'.",
    html_help="Also write an HTML page.",
    required=True,
    compared="task, prompt, KB release, criterion, counting, t, k, estimator or interval method",
)
@file_option(
    "--figure",
    "figure_path",
    help_text="Also write the Fig. 1-style PNG: N_seen vs N_tot per run and the two rankings.",
)
@click.option(
    "--at-coverage",
    "at_coverage",
    is_flag=False,
    flag_value="auto",
    default=None,
    metavar="C|auto",
    help="Also rank the runs at equal sample coverage C (q=0 richness, iNEXT estimateD); auto or no "
    "value: the lowest coverage among the runs' doubled samples.",
)
@n_bootstrap_option(200, "Bootstrap replicates of the equal-coverage bands (0 = none).")
def compare(
    runs: tuple[Path, ...],
    html_path: Path | None,
    markdown: bool,
    published: bool,
    allow_mixed: bool,
    figure_path: Path | None,
    at_coverage: str | None,
    n_bootstrap: int,
    as_json: bool,
) -> None:
    """Compare census runs side by side: N_seen, N_tot, SKR and rank changes (KnowSum Fig. 1).

    With --at-coverage, the runs are also ranked at equal sample coverage (Chao & Jost 2012; iNEXT
    estimateD): each run's richness where its sample is as complete as the others', next to the
    N_tot(t) ranking, with a change mark where the two rankings differ.

    With --published, the paper's Table 1 rows with the same criterion (diseases strict =
    "Anatomical disease", relaxed = "Human diseases"; theorems strict = "Theorem only", relaxed =
    "All math concepts") are ranked with the runs, each marked "MODEL · KnowSum Table 1".

    Runs that measured different things (task, prompt, KB release, criterion, counting) or whose
    figures were computed differently (t, k, estimator, interval method) are refused; with
    --allow-mixed they are ranked with each such row marked on every table (and a t column when
    their t differ). A run given twice is refused.
    """
    coverage = None if at_coverage is None else _coverage(at_coverage)
    check_coverage(coverage)  # an invalid option before any run is read
    comparison = compare_results(runs, published=published, allow_mixed=allow_mixed)
    ranked = None
    if at_coverage is not None:
        runs_only = [r for r in comparison.rows if isinstance(r, CensusRecord)]
        ranked = equal_coverage(runs_only, coverage, n_bootstrap=n_bootstrap)
        if len(runs_only) < len(comparison.rows):
            note("published rows have no sample: they are not ranked at equal coverage")
    if comparison.missing:
        note(f"KnowSum Table 1 has no column for {', '.join(comparison.missing)}")
    for sentence in comparison.same_sample:
        note(sentence)
    if figure_path is not None:
        save(ranking_figure(comparison.rows), figure_path)
    page = None
    if html_path is not None:
        extra = [] if ranked is None else [coverage_html(ranked)]
        page = write_census_compare(html_path, comparison.rows, [str(p) for p in comparison.reports], extra)
    if as_json:
        echo_json(
            {
                "rows": compare_data(comparison.rows),
                "page": page and str(page),
                "figure": figure_path and str(figure_path),
                **({} if ranked is None else {"at_coverage": coverage_data(ranked)}),
            }
        )
    else:
        click.echo(compare_text(comparison.rows, markdown=markdown))
        if ranked is not None:
            click.echo("")
            click.echo(coverage_table(ranked, markdown=markdown))
    if figure_path is not None:
        click.echo(f"figure: {figure_path}", err=as_json)
    if page is not None:
        click.echo(f"page: {page}", err=as_json)


def _coverage(value: str) -> float | None:
    """``--at-coverage``: ``auto`` (``None``: the iNEXT default) or a number in (0, 1)."""
    if value == "auto":
        return None
    try:
        return float(value)
    except ValueError:
        raise click.BadParameter(
            f"{value!r}: give a coverage in (0, 1) or auto (put --at-coverage after the runs)",
            param_hint="--at-coverage",
        ) from None
