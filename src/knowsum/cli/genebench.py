"""``knowsum genebench build|run|score|compare``: the SciHorizon-GENE gene-knowledge benchmark."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from pydantic import ValidationError

from knowsum.cli._common import apply_options, backend_from, model_options, slug, store_option
from knowsum.cli._genebench_show import flat, summary
from knowsum.errors import ConfigError
from knowsum.genebench import (
    TASKS,
    GenebenchConfig,
    build_from_kb,
    compare_tables,
    load_result,
    parse_tasks,
    run_genebench,
    score_predictions,
    token_budgets,
    write_outputs,
    write_questions,
)
from knowsum.models import ResponseStore
from knowsum.report import markdown_table, text_table

__all__ = ["genebench"]

_FILE = click.Path(dir_okay=False, exists=True, path_type=Path)


def _tasks(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[str, ...]:
    return parse_tasks(value)


def _genes(_ctx: click.Context, _param: click.Parameter, value: str | None) -> int | None:
    if value is None or value == "all":
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"--genes: expected a positive number or 'all', got {value!r}")
    return int(value)


def _config(**kw: Any) -> GenebenchConfig:
    try:
        return GenebenchConfig(**kw)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise ConfigError(f"invalid genebench option {'.'.join(map(str, err['loc']))}: {err['msg']}") from exc


_TYPES_HELP = (
    f"Comma list of tasks ({', '.join(TASKS)}) or knowledge names (synonyms, chromosome…). Default: all."
)
_USER_FILES = [
    click.option(
        "--expression",
        type=_FILE,
        default=None,
        help="Gene expression file (Q6): GENE<TAB>CATEGORY<TAB>TISSUES.",
    ),
    click.option(
        "--summaries", type=_FILE, default=None, help="Functional summaries (Q8): GENE<TAB>SUMMARY."
    ),
    click.option(
        "--abstracts", type=_FILE, default=None, help="PubMed abstracts (Q7/Q8 context): PMID<TAB>TEXT."
    ),
]


def _user_files(func: Any) -> Any:
    return apply_options(func, _USER_FILES)


_LENIENT = click.option("--lenient", is_flag=True, help="Lenient reply checking (default: strict, App. B).")


@click.group()
def genebench() -> None:
    """SciHorizon-GENE: how reliably does a model reason from gene knowledge?

    \b
    Examples:
      knowsum genebench build --per-type 50 --out questions.jsonl
      knowsum genebench run --build-default -m smollm2-135m-instruct --out gb-smollm2
      knowsum genebench run questions.jsonl -m openai:gpt-4o --base-url https://…/v1
      knowsum genebench score --questions questions.jsonl --predictions answers.jsonl
      knowsum genebench compare gb-smollm2 gb-qwen --published --markdown
    """


@genebench.command("build")
@click.option("--types", callback=_tasks, default=None, help=_TYPES_HELP)
@click.option("--genes", callback=_genes, default=None, help="Draw questions from N random genes, or 'all'.")
@click.option(
    "--per-type", type=click.IntRange(min=1), default=None, help="At most N questions per task and stratum."
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--max-abstracts",
    type=click.IntRange(1, 50),
    default=10,
    show_default=True,
    help="Abstracts joined into one context (the release joins 2–10).",
)
@click.option("--paper-size", is_flag=True, help="The paper's sample: 210 questions per cell (2,710; §4.2).")
@_user_files
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("genebench-questions.jsonl"),
    show_default=True,
    help="Question file to write (JSONL, the benchmark's released layout).",
)
def build_cmd(types: tuple[str, ...], out: Path, **kw: Any) -> None:
    """Generate questions from the installed gene records (+ GO, + your files) into a JSONL file."""
    config = _config(
        tasks=types,
        per_type=kw["per_type"],
        genes=kw["genes"],
        seed=kw["seed"],
        max_abstracts=kw["max_abstracts"],
        paper_size=kw["paper_size"],
        expression=kw["expression"],
        summaries=kw["summaries"],
        abstracts=kw["abstracts"],
    )
    questions, report = build_from_kb(config, lambda line: click.echo(f"  {line}", err=True))
    if not questions:
        raise ConfigError("no question could be built with these options")
    n = write_questions(out, questions)
    rows = [
        [task, ", ".join(f"{k} {v}" for k, v in c.items()), sum(c.values())]
        for task, c in report.counts.items()
    ]
    click.echo(text_table(["task", "strata", "questions"], rows))
    for task, rules in report.excluded.items():
        click.echo("".join(f"left out: {task} — {n} genes: {rule}\n" for rule, n in rules.items()), nl=False)
    for task, why in report.skipped.items():
        click.echo(f"not built: {task} — {why}")
    budgets = token_budgets(questions)
    click.echo(
        "token budgets (sized from the longest gold): " + ", ".join(f"{k} {v}" for k, v in budgets.items())
    )
    click.echo(f"wrote {n} questions to {out}")


@genebench.command("run")
@click.argument("questions", required=False, type=_FILE)
@click.option(
    "--build-default", is_flag=True, help="Build a small balanced set (--per-type per stratum) and run it."
)
@model_options
@store_option
@click.option("--types", callback=_tasks, default=None, help=_TYPES_HELP + " (with --build-default)")
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
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=None, help="One token budget for every reply."
)
@click.option("--paper-size", is_flag=True, help="With --build-default: the paper's 2,710 questions.")
@_LENIENT
@_user_files
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run directory (default ./genebench-MODEL).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the key numbers as one JSON object.")
def run_cmd(questions: Path | None, **kw: Any) -> None:
    """Ask a model every question (zero-shot, temperature 0, every rotation) and score it.

    Writes questions.jsonl, predictions.jsonl, result.json, plots and report.html. Resumable: replies
    are kept in the response store; rerunning asks only what is missing.
    """
    if (questions is None) == (not kw["build_default"]):
        raise ConfigError("give a QUESTIONS file or --build-default (one of them)")
    given = [f"--{k}" for k in ("expression", "summaries", "abstracts") if kw[k] is not None]
    given += ["--paper-size"] if kw["paper_size"] else []
    if questions is not None and given:
        raise ConfigError(
            f"{', '.join(given)} feed the question builder (--build-default or `genebench build`); "
            "a QUESTIONS file already holds its answers and contexts"
        )
    config = _config(
        questions=questions,
        tasks=kw["types"],
        per_type=kw["per_type"],
        seed=kw["seed"],
        permutations=kw["permutations"],
        max_tokens=kw["max_tokens"],
        lenient=kw["lenient"],
        paper_size=kw["paper_size"],
        expression=kw["expression"],
        summaries=kw["summaries"],
        abstracts=kw["abstracts"],
    )
    backend = backend_from(kw)
    out = kw["out_dir"] or Path(f"genebench-{slug(backend.model_id)}")
    with ResponseStore(kw.get("store_path")) as store:
        result, records, qs = run_genebench(
            config, backend, store=store, build_progress=lambda line: click.echo(f"  built {line}", err=True)
        )
    write_outputs(out, result, records, qs)
    if kw["as_json"]:
        click.echo(json.dumps(flat(result), ensure_ascii=False))
    else:
        click.echo(summary(result))
        click.echo(f"wrote {out}/result.json, predictions.jsonl, questions.jsonl, report.html")


@genebench.command("score")
@click.option("--questions", "questions_path", required=True, type=_FILE, help="Question file (JSONL).")
@click.option(
    "--predictions",
    "predictions_path",
    required=True,
    type=_FILE,
    help="JSONL of {question_index, permutation?, response}.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@_LENIENT
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write result.json, predictions.jsonl, plots and report.html here.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the key numbers as one JSON object.")
def score_cmd(
    questions_path: Path,
    predictions_path: Path,
    seed: int,
    lenient: bool,
    out_dir: Path | None,
    as_json: bool,
) -> None:
    """Score answers produced elsewhere (no model call) with every genebench metric.

    A question is (question_index, flag): a with/without-abstracts pair sharing one index (as in the
    released files) needs "flag" in its prediction lines.
    """
    result, records, qs = score_predictions(questions_path, predictions_path, seed=seed, lenient=lenient)
    if out_dir is not None:
        write_outputs(out_dir, result, records, qs)
    click.echo(json.dumps(flat(result), ensure_ascii=False) if as_json else summary(result))


@genebench.command("compare")
@click.argument("runs", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--markdown", is_flag=True, help="Markdown tables instead of terminal tables.")
@click.option("--published", is_flag=True, help="Add the paper's Table 2 models as [paper] reference rows.")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a comparison page with the perspective radar (Fig. 9).",
)
def compare_cmd(runs: tuple[Path, ...], markdown: bool, published: bool, html_path: Path | None) -> None:
    """Put runs side by side: Table 2 (knowledge types, overall), Tables 5–6 cells, perspectives."""
    if not runs and not published:
        raise ConfigError("give run directories to compare (or --published for the paper's Table 2)")
    results = [load_result(p) for p in runs]
    tables = compare_tables(results, published=published)[: 3 if results else 1]
    render = markdown_table if markdown else text_table
    blocks = [
        f"{'### ' if markdown else ''}{title}\n\n{render(headers, rows)}" for title, headers, rows in tables
    ]
    click.echo("\n\n".join(blocks))
    if html_path is not None:
        from knowsum.report.genebench import write_compare

        write_compare(html_path, [r.model_dump(mode="json") for r in results], tables)
        click.echo(f"wrote {html_path}", err=not sys.stdout.isatty())
