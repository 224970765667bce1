"""``knowsum batch export|import``: OpenAI Batch JSONL files (OpenAI Batch API, vLLM ``run-batch``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from knowsum._util import check_file, read_text_file
from knowsum.cliutil.common import backend_from, prompt_options, requests_from, store_from, store_option
from knowsum.cliutil.options import file_option
from knowsum.errors import ConfigError, InputFileError
from knowsum.models import export_batch, import_batch

__all__ = ["batch"]


def _prompts(path: Path) -> list[str]:
    lines = read_text_file(path, "prompts file").splitlines()
    prompts = [ln.strip() for ln in lines if ln.strip()]
    if not prompts:
        raise InputFileError(path, "no prompts (one prompt per non-empty line)")
    return prompts


@click.group()
def batch() -> None:
    """Scale out: export pending requests as OpenAI Batch JSONL, import the results.

    \b
    knowsum batch export -m openai:MODEL --prompts prompts.txt -n 1000 -o batch.jsonl
    vllm run-batch -i batch.jsonl -o results.jsonl --model MODEL      (or the OpenAI Batch API)
    knowsum batch import results.jsonl
    """


@batch.command("export")
@file_option("--prompts", "prompts_file", required=True, help_text="Text file, one prompt per line.")
@click.option("-n", "n", type=click.IntRange(min=1), default=1, show_default=True, help="Samples per prompt.")
@file_option("-o", "--output", required=True)
@prompt_options
def export(prompts_file: Path, n: int, output: Path, **kw: Any) -> None:
    """Write the requests not yet in the store as an OpenAI Batch JSONL file.

    --base-url defaults to https://api.openai.com/v1; it is part of each sample's key, so use the
    same value when you later sample the same run online.
    """
    if not (kw["model"] or "").startswith("openai:"):
        raise ConfigError("batch export needs --model openai:MODEL (the model name the batch server serves)")
    kw["base_url"] = kw["base_url"] or "https://api.openai.com/v1"
    requests = requests_from(_prompts(prompts_file), n, kw)
    backend = backend_from(kw)
    with store_from(kw) as st:
        count = export_batch(backend, requests, st, output)
    click.echo(f"exported {count} pending requests ({len(requests) - count} already stored) to {output}")


@batch.command("import")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--allow-model-mismatch",
    is_flag=True,
    help="Store results whose response.body.model is another model than the exported request's "
    "(under the request's model); without it such a file is refused.",
)
@store_option
def import_(results: Path, allow_model_mismatch: bool, **kw: Any) -> None:
    """Import an OpenAI Batch results file into the store (all or nothing).

    Every line must be a result the batch server returned (not a request line of the exported file),
    for a request exported from the same --store, once, answered by the model it was exported for
    (or a dated snapshot of it); otherwise nothing is imported and the first bad line is named. A
    stored answer is never replaced: results already stored are counted as unchanged (same answer)
    or conflicting (another answer; the stored one is kept).
    """
    check_file(results, "batch results file")  # before the store is opened (and perhaps made)
    with store_from(kw) as st:
        done = import_batch(st, results, allow_model_mismatch=allow_model_mismatch)
    click.echo(
        f"imported {done.new} new responses ({done.errors} errors) from {results}; {done.unchanged} "
        f"already stored (unchanged), {done.conflicting} conflicting (the stored answers are kept)"
    )
