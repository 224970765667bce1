"""``knowsum store info|export``: inspect and export the response store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from knowsum._util import paths
from knowsum.cliutil.common import store_option
from knowsum.cliutil.options import echo_json, file_option, json_option
from knowsum.errors import InputFileError
from knowsum.models import ResponseStore, StoreInfo

__all__ = ["store"]


@click.group()
def store() -> None:
    """Inspect and export the response store (SQLite).

    Both commands only read: they open the store read-only, never create or change one, and read an
    archived store in a read-only folder as it is.
    """


def _reader(kw: dict[str, Any]) -> ResponseStore | None:
    """The store of --store opened read-only; ``None`` when no --store is given and the default
    store does not exist yet (nothing sampled so far). A --store that does not exist is an error."""
    given: Path | None = kw.get("store_path")
    if given is None and not paths.store_path().exists():
        return None
    return ResponseStore(given, read_only=True)


@store.command("info")
@store_option
@json_option(
    help_text='Print {"path", "responses", "errors", "size", "models": [{"backend", "model", "responses"}]} '
    "as one JSON object instead of the lines (size in bytes)."
)
def info(as_json: bool, **kw: Any) -> None:
    """Path, number of responses (and errors), models and size of the store."""
    st = _reader(kw)
    if st is None:
        data = StoreInfo(paths.store_path(), 0, 0, (), 0)
    else:
        with st:
            data = st.info()
    if as_json:
        models = [{"backend": b, "model": m, "responses": n} for b, m, n in data.models]
        echo_json(
            {
                "path": str(data.path),
                "responses": data.responses,
                "errors": data.errors,
                "size": data.size,
                "models": models,
            }
        )
        return
    click.echo(f"path:      {data.path}")
    click.echo(f"responses: {data.responses} ({data.errors} errors)")
    click.echo(f"size:      {data.size:,} bytes")
    click.echo("models:" + ("" if data.models else "    (none)"))
    for backend, model, count in data.models:
        click.echo(f"  {backend}:{model}  {count}")


@store.command("export")
@click.option("--format", "fmt", type=click.Choice(["jsonl"]), default="jsonl", show_default=True)
@file_option("-o", "--output", default=None, help_text="Output file (default: stdout).")
@click.option("--no-errors", is_flag=True, help="Leave out recorded errors.")
@store_option
def export(fmt: str, output: Path | None, no_errors: bool, **kw: Any) -> None:
    """Export every stored response as JSON lines (key parts, params, prompt, text, tokens, …)."""
    st = _reader(kw)
    if st is None:  # no default store yet: nothing to export
        if output is not None:
            output.write_text("", encoding="utf-8")
            click.echo(f"exported 0 responses to {output}", err=True)
        return
    with st:
        if output is None:
            st.export_jsonl(sys.stdout, errors=not no_errors)
            return
        tmp = output.with_name(output.name + ".tmp")
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                n = st.export_jsonl(fh, errors=not no_errors)
            tmp.replace(output)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise InputFileError(output, f"cannot write ({exc})") from exc
    click.echo(f"exported {n} responses to {output}", err=True)
