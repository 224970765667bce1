"""``knowsum instruments`` and ``knowsum census tasks``: what is installed, and from which package."""

from __future__ import annotations

from collections.abc import Sequence

import click

from knowsum.census import task_catalogue
from knowsum.cli._options import echo_json, json_option
from knowsum.instrument import INSTRUMENTS, installed, instruments
from knowsum.report import text_table

__all__ = ["instruments_command", "tasks"]


def _listing(key: str, what: str, rows: Sequence[tuple[str, str, str, str]], as_json: bool) -> None:
    """One table (name, package, version, ``what``), or ``{key: [{…}, …]}`` with ``--json``."""
    if as_json:
        fields = ("name", "package", "version", "description")
        echo_json({key: [dict(zip(fields, r, strict=True)) for r in rows]})
    else:
        click.echo(text_table([key.removesuffix("s"), "package", "version", what], rows))


@click.command("instruments")
@json_option
def instruments_command(as_json: bool) -> None:
    """List the installed instruments: knowsum's own and every plug-in's (entry-point group
    knowsum.instruments), with the package each comes from. A budget TOML's tables name them.

    \b
    Examples:
      knowsum instruments
      knowsum instruments --json
    """
    every = instruments()
    rows = [(i.name, i.package, i.version, every[i.name].title) for i in installed(INSTRUMENTS)]
    _listing("instruments", "what it measures", rows, as_json)


@click.command("tasks")
@json_option
def tasks(as_json: bool) -> None:
    """List the census tasks: the built-in ones and every installed package's (entry-point group
    knowsum.census_tasks). `knowsum census run TASK` and a budget's [census] tasks take any of them.

    \b
    Examples:
      knowsum census tasks
      knowsum census tasks --json
    """
    rows = [(t.name, t.package, t.version, t.description) for t in task_catalogue()]
    _listing("tasks", "what it counts", rows, as_json)
