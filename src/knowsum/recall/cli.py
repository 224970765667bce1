"""``knowsum recall run|score|compare``: ontology-ID memorization (Bombieri et al.)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import click
from pydantic import ValidationError

from knowsum._util import config_error
from knowsum.cliutil.common import (
    ModelOptions,
    apply_options,
    count_option,
    model_options,
    store_from,
    store_option,
)
from knowsum.cliutil.inspect_log import from_inspect_log, inspect_log_option
from knowsum.cliutil.options import (
    compare_options,
    echo_json,
    file_option,
    finish,
    json_option,
    kb_option,
    n_perm_option,
    out_option,
    overwrite_option,
    seed_option,
    temperature_option,
)
from knowsum.errors import ConfigError
from knowsum.recall import (
    RecallConfig,
    RecallRun,
    compare_tables,
    load_result,
    parse_invariance_spec,
    run_recall,
    score_predictions,
)
from knowsum.recall.page import recall_compare_text, recall_json, recall_summary
from knowsum.records import comparable_records

__all__ = ["recall"]

F = TypeVar("F", bound=Callable[..., Any])


def _analysis_options(func: F) -> F:
    """``--n-buckets --top-k --n-perm --seed --polysemy/--no-polysemy``, shared by ``run`` and ``score``."""
    options = [
        count_option(
            "--n-buckets", 50, "Popularity buckets (paper: 50; its Uberon Table 2 used 3).", maximum=1000
        ),
        count_option("--top-k", 500, "Top-k repeated wrong IDs for R_B (paper: 500)."),
        n_perm_option(10_000, "Permutations of each Spearman test and of the Granger test."),
        seed_option,
        click.option(
            "--polysemy/--no-polysemy",
            default=None,
            help="Also accept the ID of another concept with the same label "
            "(default: the paper's rule, on for Wikidata Q-IDs only).",
        ),
    ]
    return apply_options(func, options)


@click.group()
def recall() -> None:
    """Has the model memorized an ontology's IDs? (label → ID probe, errors, popularity, invariance)

    \b
    Examples:
      knowsum recall run go -m smollm2-135m-instruct --per-bucket 2 --invariance pi2,pi3
      knowsum recall score --kb go --predictions gpt4_go.csv --json
      knowsum recall score --kb go --predictions extracted_labels.csv --per-bucket 20 \\
        --invariance-file pi2=2_different_temperatures_output.txt
      knowsum recall compare recall-runs/go-gpt-4 recall-runs/go-gpt-3.5
    """


def _invariance(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    items = tuple(v.strip().lower() for v in value.split(",") if v.strip())
    bad = [v for v in items if v not in ("pi1", "pi2", "pi3")]
    if bad:
        raise ConfigError(f"--invariance: unknown method(s) {', '.join(bad)}; use pi1, pi2, pi3")
    return items


def _invariance_files(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> tuple[tuple[str, Path], ...]:
    return tuple(parse_invariance_spec(v) for v in value)


def _show(run: RecallRun, as_json: bool) -> None:
    """Warnings on stderr, the numbers (JSON or the summary table), then ``report: PATH``."""
    for line in run.record.notes:
        click.echo(f"warning: {line}", err=True)
    if as_json:
        echo_json(recall_json(run.record))
    else:
        click.echo(recall_summary(run.record))
    finish(run.report, as_json=as_json)


@recall.command("run")
@click.argument("kb_name", metavar="KB")
@model_options
@store_option
@click.option("--sample", type=click.IntRange(min=1), default=None, help="Probe N random concepts.")
@click.option("--per-bucket", type=click.IntRange(min=1), default=None, help="Probe K concepts per bucket.")
@click.option(
    "--popularity",
    default="auto",
    show_default=True,
    help="auto, web, annotations, pubmed, none, or a table file of ID,count rows.",
)
@click.option(
    "--invariance", callback=_invariance, default=None, help="Comma list of pi1,pi2,pi3 (paper §6)."
)
@click.option("--template", default=None, help="Prompt template with {label} (overrides the paper's).")
@temperature_option(0.0, short=True, help_text="Temperature of the main run (paper: 0).")
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=None, help="Default 32 chat, 10 completions."
)
@_analysis_options
@out_option("Run directory [default: recall-runs/KB-MODEL].")
@overwrite_option
@json_option
def run_cmd(kb_name: str, **kw: Any) -> None:
    """Probe a model on the IDs of KB and write its run directory: result.json, predictions.jsonl,
    plots/ and report.html.

    Resumable: answers are kept in the response store; rerunning asks only what is missing.
    """
    if kw["per_bucket"] and kw["sample"]:
        raise ConfigError("give either --sample N or --per-bucket K, not both")
    select = "stratified" if kw["per_bucket"] else "sample" if kw["sample"] else "all"
    model = ModelOptions.take(kw)
    try:
        config = RecallConfig(
            kb=kb_name,
            api=model.api,
            template=kw["template"],
            select=select,
            sample=kw["sample"],
            per_bucket=kw["per_bucket"],
            popularity=kw["popularity"],
            n_buckets=kw["n_buckets"],
            top_k=kw["top_k"],
            n_perm=kw["n_perm"],
            seed=kw["seed"],
            temperature=kw["temperature"],
            max_tokens=kw["max_tokens"],
            polysemy=kw["polysemy"],
            invariance=kw["invariance"],
        )
    except ValidationError as exc:
        raise config_error(exc, "recall run") from None
    backend = model.open()
    with store_from(kw) as store:
        run = run_recall(config, backend, store=store, out=kw["out"], overwrite=kw["overwrite"])
    _show(run, kw["as_json"])


@recall.command("score")
@kb_option("Installed KB of the IDs (go, icd10…). Required.", old="--ontology")
@file_option(
    "--predictions",
    "path",
    help_text="Release ;-rows, CSV or JSONL with id, prediction [label, popularity]. "
    "Required (or --inspect-log).",
)
@click.option(
    "--popularity", default=None, help="Override the file's popularity: web, annotations, pubmed or a file."
)
@click.option(
    "--invariance-file",
    "invariance_files",
    multiple=True,
    metavar="METHOD=FILE",
    callback=_invariance_files,
    help="Prediction-invariance answers made elsewhere (paper §6), repeatable: METHOD pi1, pi2 or pi3; "
    "FILE holds M lines per --predictions row, in row order. Needs --per-bucket.",
)
@click.option(
    "--per-bucket",
    type=click.IntRange(min=1),
    default=None,
    help="K: the --predictions rows are K concepts per bucket, buckets in order (row i in bucket "
    "i // K + 1; the paper's §6.2 sample: 20). Only with --invariance-file.",
)
@_analysis_options
@out_option("Run directory [default: recall-runs/score-FILE] (FILE: the predictions file's stem).")
@overwrite_option
@inspect_log_option("recall")
@json_option
def score_cmd(kb: str | None, path: Path | None, inspect_log: Path | None, as_json: bool, **kw: Any) -> None:
    """Score predictions made elsewhere (no model call): every recall metric, under the paper's rules
    and knowsum's, side by side, written as a run directory. The paper's released files are read as
    they are (a malformed gold ID is kept and named in one warning). With --invariance-file, PI-1/2/3
    answers made elsewhere too, under the paper's reading and knowsum's (paper §6.3, Fig. 4).
    """
    if inspect_log is not None:  # an `inspect eval knowsum/recall` log: KB and settings from its task
        _show(cast(RecallRun, from_inspect_log("recall", inspect_log, kw["out"], kw["overwrite"])), as_json)
        return
    if kb is None:  # required, checked here so the hidden --ontology spelling still counts
        raise click.UsageError("Missing option '--kb'.")
    if path is None:
        raise click.UsageError("Missing option '--predictions' (or give --inspect-log).")
    run = score_predictions(kb, path, **kw)  # the options are named as its parameters
    _show(run, as_json)


@recall.command("compare")
@compare_options(
    "Add the paper's Tables 1 and 3 (Pythia-12B, Gemini-1.5F, GPT-3.5, GPT-4) and §6.3's "
    "invariance ρ, marked 'GPT-4 · Bombieri et al. Table 1'.",
    compared="a different release of the KB, or a different prompt template",
)
def compare_cmd(
    runs: tuple[Path, ...], markdown: bool, published: bool, allow_mixed: bool, as_json: bool
) -> None:
    """Put runs side by side (paper Tables 1–3: rows = ontologies, columns = models; §6.3's
    invariance ρ when a run or --published has it). Runs of different KB releases or prompt
    templates are refused (with --allow-mixed: shown, each marked); chat and completion runs stand in
    separate columns, the latter marked "(completion)"; runs of one KB and one model name each keep
    their column, named by their run folders ("mock (m_a)"); a run given twice is refused."""
    if not runs and not published:
        raise click.UsageError("give run directories (or result.json files), --published, or both")
    records = comparable_records([load_result(p) for p in runs], runs, allow_mixed=allow_mixed)
    folders = [(p if p.is_dir() else p.parent).absolute() for p in runs]  # name runs of one model apart
    tables = compare_tables(records, published=published, folders=folders)
    if as_json:
        echo_json({"tables": [{"title": t, "headers": hs, "rows": rows} for t, hs, rows in tables]})
    else:
        click.echo(recall_compare_text(tables, markdown=markdown))
