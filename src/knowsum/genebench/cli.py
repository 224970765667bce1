"""``knowsum genebench build|run|score|compare``: the SciHorizon-GENE gene-knowledge benchmark."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, cast

import click

from knowsum.cliutil.common import ModelOptions, model_options, store_from, store_option
from knowsum.cliutil.inspect_log import from_inspect_log, inspect_log_option
from knowsum.cliutil.options import (
    compare_options,
    echo_json,
    file_option,
    finish,
    json_option,
    n_perm_option,
    note,
    out_option,
    overwrite_option,
    renamed,
    seed_option,
    temperature_option,
)
from knowsum.errors import ConfigError
from knowsum.genebench import (
    GenebenchRun,
    build_from_kb,
    compare_numbers,
    compare_tables,
    load_result,
    run_genebench,
    score_predictions,
    write_questions,
)
from knowsum.genebench._cli_options import (
    FILE,
    config_from,
    genes_option,
    lenient_option,
    types_option,
    user_files,
)
from knowsum.genebench._cli_show import show_build, show_run
from knowsum.genebench._compare import ranked
from knowsum.genebench.page import compare_text, coverage_text, write_genebench_compare
from knowsum.records import comparable_records

__all__ = ["genebench"]

_N_PERM_HELP = "Permutations of the attention curve's Spearman test."


def _given(ctx: click.Context, name: str) -> bool:
    """Whether option ``name`` was given (command line or environment), not left at its default."""
    return ctx.get_parameter_source(name) not in (None, click.core.ParameterSource.DEFAULT)


@click.group()
def genebench() -> None:
    """SciHorizon-GENE: how reliably does a model reason from gene knowledge?

    \b
    Examples:
      knowsum genebench build --per-type 50 -o questions.jsonl
      knowsum genebench run --build-default -m smollm2-135m-instruct --out gb-smollm2
      knowsum genebench run questions.jsonl -m openai:gpt-4o --base-url https://…/v1
      knowsum genebench score --questions questions.jsonl --predictions answers.jsonl
      knowsum genebench compare gb-smollm2 gb-qwen --published --markdown
    """


@genebench.command("build")
@types_option()
@genes_option
@click.option(
    "--per-type", type=click.IntRange(min=1), default=None, help="At most N questions per task and stratum."
)
@seed_option
@click.option(
    "--max-abstracts",
    type=click.IntRange(1, 50),
    default=10,
    show_default=True,
    help="Abstracts joined into one context (the release joins 2–10).",
)
@click.option("--paper-size", is_flag=True, help="The paper's sample: 210 questions per cell (2,710; §4.2).")
@user_files
@file_option(
    "-o",
    "--output",
    default=Path("genebench-questions.jsonl"),
    show_default=True,
    help_text="Question file to write (JSONL, the benchmark's released layout).",
)
@renamed("--out", "output", metavar="FILE")
@json_option
def build_cmd(types: tuple[str, ...], output: Path | str, as_json: bool, **kw: Any) -> None:
    """Generate questions from the installed gene records (+ GO, + your files) into a JSONL file."""
    config = config_from(
        "genebench build", kw, ("per_type", "genes", "seed", "max_abstracts", "paper_size"), tasks=types
    )
    questions, report = build_from_kb(config)
    if not questions:
        raise ConfigError("no question could be built with these options")
    n = write_questions(Path(output), questions)
    show_build(questions, report, Path(output), n, as_json)


@genebench.command("run")
@click.argument("questions", required=False, type=FILE)
@click.option(
    "--build-default", is_flag=True, help="Build a small balanced set (--per-type per stratum) and run it."
)
@model_options
@store_option
@types_option(" (with --build-default)")
@click.option(
    "--per-type",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Questions per task and stratum with --build-default.",
)
@click.option(
    "--permutations",
    type=click.Choice(["cyclic", "none"]),
    default="cyclic",
    show_default=True,
    help="Ask every rotation of the options (paper §4.2) or the given order only.",
)
@seed_option
@temperature_option(0.0, help_text="Sampling temperature (paper: 0).")
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=None, help="One token budget for every reply."
)
@click.option("--paper-size", is_flag=True, help="With --build-default: the paper's 2,710 questions.")
@lenient_option
@user_files
@n_perm_option(10_000, _N_PERM_HELP)
@out_option("Run directory [default: genebench-runs/MODEL].")
@overwrite_option
@json_option
def run_cmd(questions: Path | None, **kw: Any) -> None:
    """Ask a model every question (zero-shot, temperature 0, every rotation) and score it.

    Writes questions.jsonl, predictions.jsonl, plots/, report.html and result.json. Resumable: replies
    are kept in the response store; rerunning asks only what is missing.
    """
    if (questions is None) == (not kw["build_default"]):
        raise ConfigError("give a QUESTIONS file or --build-default (one of them)")
    given = [f"--{k}" for k in ("expression", "summaries", "abstracts") if kw[k] is not None]
    given += ["--paper-size"] if kw["paper_size"] else []
    ctx = click.get_current_context()  # --types/--per-type have defaults: only what was given counts
    chosen = [name for name in ("types", "per_type") if _given(ctx, name)]
    given += [f"--{name.replace('_', '-')}" for name in chosen]
    if questions is not None and given:
        raise ConfigError(
            f"{', '.join(given)} feed the question builder (--build-default or `genebench build`); "
            "a QUESTIONS file already holds its answers and contexts"
        )
    # --per-type's default is no choice: only a --per-type given conflicts with --paper-size (as in build)
    sizes = ("per_type",) if "per_type" in chosen else ()
    config = config_from(
        "genebench run",
        kw,
        (*sizes, "seed", "permutations", "temperature", "max_tokens", "lenient", "paper_size", "n_perm"),
        questions=questions,
        tasks=kw["types"],
    )
    backend = ModelOptions.take(kw).open()
    with store_from(kw) as store:
        run = run_genebench(
            config,
            backend,
            store=store,
            out=kw["out"],
            overwrite=kw["overwrite"],
            build_progress=lambda line: click.echo(f"  built {line}", err=True),
        )
    show_run(run, kw["as_json"])


@genebench.command("score")
@click.option(
    "--questions", "questions_path", type=FILE, help="Question file (JSONL). Required (or --inspect-log)."
)
@click.option(
    "--predictions",
    "predictions_path",
    type=FILE,
    help="JSONL of {question_index, flag?, permutation?, response, finish_reason?}. "
    "Required (or --inspect-log).",
)
@click.option(
    "--allow-missing",
    is_flag=True,
    help="Score the instances no prediction answers as wrong (default: refuse such a file).",
)
@seed_option
@n_perm_option(10_000, _N_PERM_HELP)
@lenient_option
@out_option("Run directory [default: genebench-runs/score-FILE] (FILE: the predictions file's stem).")
@overwrite_option
@inspect_log_option("genebench")
@json_option
def score_cmd(
    questions_path: Path | None,
    predictions_path: Path | None,
    inspect_log: Path | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Score answers produced elsewhere (no model call) with every genebench metric, written as a run
    directory (result.json, predictions.jsonl, questions.jsonl, plots/, report.html).

    A question is (question_index, flag): a with/without-abstracts pair sharing one index (as in the
    released files) needs "flag" in its prediction lines. Every question of the file must be answered
    (in every rotation, if any prediction gives a rotation other than 0); with --allow-missing the
    unanswered ones are scored as wrong, and the summary says how many.
    """
    if (
        inspect_log is not None
    ):  # an `inspect eval knowsum/genebench` log: questions and settings from its task
        show_run(
            cast(GenebenchRun, from_inspect_log("genebench", inspect_log, kw["out"], kw["overwrite"])),
            as_json,
        )
        return
    if questions_path is None or predictions_path is None:
        raise click.UsageError("give --questions and --predictions (or --inspect-log)")
    run = score_predictions(questions_path, predictions_path, **kw)  # options named as its parameters
    coverage = coverage_text(run.record)
    if coverage:
        note(coverage)
    show_run(run, as_json)


@genebench.command("compare")
@compare_options(
    "Add the paper's Table 2 models as reference rows (marked 'MODEL · SciHorizon-GENE Table 2').",
    html_help="Also write a comparison page with the perspective radar (Fig. 9).",
    compared="a different question set, by its SHA-256, or different releases of the KBs it was built from",
)
def compare_cmd(
    runs: tuple[Path, ...],
    markdown: bool,
    published: bool,
    allow_mixed: bool,
    html_path: Path | None,
    as_json: bool,
) -> None:
    """Put runs side by side: Table 2 (knowledge types, overall), Tables 5–6 cells, perspectives.
    Runs of different question sets, KB releases, reply rules (strict/lenient) or rotation modes
    (cyclic/given order) are refused (with --allow-mixed: shown, each marked); a run given twice is
    refused. Beside --published, Table 2 names each run measured otherwise than the paper."""
    if not runs and not published:
        raise ConfigError("give run directories to compare (or --published for the paper's Table 2)")
    results = comparable_records([load_result(p) for p in runs], runs, allow_mixed=allow_mixed)
    tables = compare_tables(results, published=published, folders=runs)[: 3 if results else 1]
    if as_json:
        echo_json(compare_numbers(results, published=published, folders=runs))
    else:
        click.echo(compare_text(tables, markdown=markdown))
    if html_path is not None:
        named = ranked(results, runs)
        write_genebench_compare(html_path, [r for _, r in named], tables, [n for n, _ in named])
        finish(html_path, as_json=as_json or not sys.stdout.isatty())
