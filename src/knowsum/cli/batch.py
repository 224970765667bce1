"""``knowsum batch export|import``: OpenAI Batch JSONL files (OpenAI Batch API, vLLM ``run-batch``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from knowsum._util import read_text_file
from knowsum.cliutil.common import backend_from, prompt_options, requests_from, store_option
from knowsum.cliutil.options import echo_json, file_option, json_option
from knowsum.errors import ConfigError, InputFileError
from knowsum.models import export_batch, import_batch

__all__ = ["batch"]


def _prompts(path: Path) -> tuple[list[str], list[tuple[int, int]]]:
    """The distinct prompts of ``path`` (one per non-empty line) and the repeated lines, as
    ``(line, line it repeats)``."""
    lines = read_text_file(path, "prompts file").splitlines()
    first: dict[str, int] = {}
    repeats: list[tuple[int, int]] = []
    for no, raw in enumerate(lines, 1):
        prompt = raw.strip()
        if prompt and prompt in first:
            repeats.append((no, first[prompt]))
        elif prompt:
            first[prompt] = no
    if not first:
        raise InputFileError(path, "no prompts (one prompt per non-empty line)")
    return list(first), repeats


def _repeats(path: Path, repeats: list[tuple[int, int]]) -> str:
    """The note on repeated prompt lines (asked once), or ""."""
    if not repeats:
        return ""
    (line, of), count = repeats[0], len(repeats)
    lines = "line" if count == 1 else "lines"
    return f"; {count} repeated prompt {lines} of {path} asked once (line {line} repeats line {of})"


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
@file_option(
    "-o",
    "--output",
    required=True,
    help_text="The OpenAI Batch JSONL file to write (one request line per pending request; not written "
    "when every request is stored).",
)
@prompt_options
def export(prompts_file: Path, n: int, output: Path, **kw: Any) -> None:
    """Write the requests not yet in the store as an OpenAI Batch JSONL file.

    A repeated prompt line is asked once; when every request is stored, no file is written.

    --base-url defaults to https://api.openai.com/v1; it is part of each sample's key, so use the
    same value when you later sample the same run online.
    """
    if not (kw["model"] or "").startswith("openai:"):
        raise ConfigError("batch export needs --model openai:MODEL (the model name the batch server serves)")
    kw["base_url"] = kw["base_url"] or "https://api.openai.com/v1"
    prompts, repeats = _prompts(prompts_file)
    requests = requests_from(prompts, n, kw)
    # the store is opened (and perhaps made) only once the backend and the parameters are checked
    count = export_batch(backend_from(kw), requests, kw.get("store_path"), output)
    note = _repeats(prompts_file, repeats)
    if count == 0:
        click.echo(f"nothing to export: every request is stored (no file written){note}")
    else:
        stored = len(requests) - count
        click.echo(f"exported {count} pending requests ({stored} already stored) to {output}{note}")


@batch.command("import")
@click.argument("results", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--allow-model-mismatch",
    is_flag=True,
    help="Store results whose response.body.model is another model than the exported request's "
    "(under the request's model); without it such a file is refused.",
)
@store_option
@json_option(
    help_text='Print {"results", "new", "errors", "refusals", "unchanged", "failed_again", "missing"} as one '
    "JSON object instead of the sentence (missing: exported requests still without a result)."
)
def import_(results: Path, allow_model_mismatch: bool, as_json: bool, **kw: Any) -> None:
    """Import an OpenAI Batch results file into the store (all or nothing).

    Every line must be a result the batch server returned (not a request line of the exported file),
    for a request exported from the same --store (which must exist), once, answered by the model it
    was exported for (or a dated snapshot of it); otherwise nothing is imported and the first bad
    line is named. A stored answer is never replaced: a result with the same answer is counted as
    unchanged, an error result as failed again, and a file with another answer for a stored request
    is refused. A failed request or a refusal of the model is stored as that request's error and
    exported again by the next `batch export`.
    """
    # the store is opened once the file is read; a --store with no store is refused, not made
    done = import_batch(kw.get("store_path"), results, allow_model_mismatch=allow_model_mismatch)
    if as_json:
        echo_json(
            {
                "results": str(results),
                "new": done.new,
                "errors": done.errors,
                "refusals": done.refusals,
                "unchanged": done.unchanged,
                "failed_again": done.failed_again,
                "missing": done.missing,
            }
        )
        return
    pending = ""
    if done.missing:
        pending = f"; {done.missing} exported requests have no result in this file"
        pending += " (still pending: `batch export` again)"
    click.echo(
        f"imported {done.new} new responses ({done.errors} errors, {done.refusals} of them refusals) from "
        f"{results}; {done.unchanged} already stored (unchanged), {done.failed_again} failed again "
        f"(stored answer kept){pending}"
    )
