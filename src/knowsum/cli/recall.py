"""``knowsum recall run|score|compare``: ontology-ID memorization (Bombieri et al.)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from knowsum.cli._common import apply_options, backend_from, model_options, slug, store_option
from knowsum.cli._recall_show import flat, summary, warn
from knowsum.errors import ConfigError
from knowsum.models import ResponseStore
from knowsum.recall import (
    RecallConfig,
    compare_tables,
    load_result,
    run_recall,
    score_predictions,
    write_outputs,
)
from knowsum.report import markdown_table, text_table

__all__ = ["recall"]

F = TypeVar("F", bound=Callable[..., Any])


def _analysis_options(func: F) -> F:
    """``--n-buckets --top-k --n-perm --seed --polysemy/--no-polysemy``, shared by ``run`` and ``score``."""
    options = [
        click.option(
            "--n-buckets",
            type=click.IntRange(min=1),
            default=50,
            show_default=True,
            help="Popularity buckets (paper: 50; its Uberon Table 2 used 3).",
        ),
        click.option(
            "--top-k",
            type=click.IntRange(min=1),
            default=500,
            show_default=True,
            help="Top-k repeated wrong IDs for R_B (paper: 500).",
        ),
        click.option(
            "--n-perm",
            type=click.IntRange(min=1),
            default=10_000,
            show_default=True,
            help="Permutations of each Spearman test and of the Granger test.",
        ),
        click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True),
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
      knowsum recall score --ontology go --predictions gpt4_go.csv --json
      knowsum recall compare runs/go-gpt4 runs/go-gpt35
    """


def _invariance(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    items = tuple(v.strip().lower() for v in value.split(",") if v.strip())
    bad = [v for v in items if v not in ("pi1", "pi2", "pi3")]
    if bad:
        raise ConfigError(f"--invariance: unknown method(s) {', '.join(bad)}; use pi1, pi2, pi3")
    return items


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
@click.option("--temperature", "-t", type=click.FloatRange(0, 2), default=0.0, show_default=True)
@click.option(
    "--max-tokens", type=click.IntRange(min=1), default=None, help="Default 32 chat, 10 completions."
)
@_analysis_options
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run directory (default ./recall-KB-MODEL).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the key numbers as one JSON object.")
def run_cmd(kb_name: str, **kw: Any) -> None:
    """Probe a model on the IDs of KB and write result.json, predictions.jsonl, plots and report.html.

    Resumable: answers are kept in the response store; rerunning asks only what is missing.
    """
    select = "stratified" if kw["per_bucket"] else "sample" if kw["sample"] else "all"
    if kw["per_bucket"] and kw["sample"]:
        raise ConfigError("give either --sample N or --per-bucket K, not both")
    try:
        config = RecallConfig(
            kb=kb_name,
            api=kw["api"],
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
        err = exc.errors()[0]
        raise ConfigError(f"invalid recall option {'.'.join(map(str, err['loc']))}: {err['msg']}") from exc
    backend = backend_from(kw)
    with ResponseStore(kw.get("store_path")) as store:
        result, records = run_recall(config, backend, store=store)
    out = kw["out_dir"] or Path(f"recall-{kb_name}-{slug(backend.model_id)}")
    write_outputs(out, result, records)
    warn(result)
    if kw["as_json"]:
        click.echo(json.dumps(flat(result), ensure_ascii=False, allow_nan=False))
    else:
        click.echo(summary(result))
        click.echo(f"wrote {out}/result.json, predictions.jsonl, report.html")


@recall.command("score")
@click.option(
    "--ontology", "kb_name", required=True, metavar="KB", help="Installed KB of the IDs (go, icd10…)."
)
@click.option(
    "--predictions",
    "path",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Release ;-rows, CSV or JSONL with id, prediction [label, popularity].",
)
@click.option(
    "--popularity", default=None, help="Override the file's popularity: web, annotations, pubmed or a file."
)
@_analysis_options
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also write result.json, predictions.jsonl, plots and report.html here.",
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def score_cmd(kb_name: str, path: Path, **kw: Any) -> None:
    """Score predictions made elsewhere (no model call): every recall metric, under the paper's rules
    and knowsum's, side by side. The paper's released files are read as they are (a malformed gold ID
    is kept and named in one warning).
    """
    result, records = score_predictions(
        kb_name,
        path,
        popularity=kw["popularity"],
        n_buckets=kw["n_buckets"],
        top_k=kw["top_k"],
        n_perm=kw["n_perm"],
        seed=kw["seed"],
        polysemy=kw["polysemy"],
    )
    warn(result)
    if kw["out_dir"] is not None:
        write_outputs(kw["out_dir"], result, records)
    if kw["as_json"]:
        click.echo(json.dumps(flat(result), ensure_ascii=False, allow_nan=False))
    else:
        click.echo(summary(result))


@recall.command("compare")
@click.argument("runs", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--markdown", is_flag=True, help="Markdown tables instead of terminal tables.")
@click.option(
    "--published",
    is_flag=True,
    help="Add the paper's Tables 1 and 3 (Pythia-12B, Gemini-1.5F, GPT-3.5, GPT-4), marked (published).",
)
def compare_cmd(runs: tuple[Path, ...], markdown: bool, published: bool) -> None:
    """Put runs side by side (paper Tables 1–3: rows = ontologies, columns = models)."""
    if not runs and not published:
        raise click.UsageError("give run directories (or result.json files), --published, or both")
    results = [load_result(p) for p in runs]
    render = markdown_table if markdown else text_table
    blocks = []
    for title, headers, rows in compare_tables(results, published=published):
        blocks.append(f"{'### ' if markdown else ''}{title}\n\n{render(headers, rows)}")
    click.echo("\n\n".join(blocks))
