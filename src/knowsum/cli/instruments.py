"""``knowsum instruments`` and ``knowsum census tasks``: what is installed, and from which package."""

from __future__ import annotations

from collections.abc import Sequence

import click

from knowsum.census import task_catalogue
from knowsum.cli._options import echo_json, json_option
from knowsum.instrument import INSTRUMENTS, broken_instruments, installed, instruments
from knowsum.report import text_table

__all__ = ["instruments_command", "tasks"]


EXIT_BROKEN = 1
"""The exit code of a listing that shows the healthy entries but names a broken plug-in."""


def _listing(
    key: str, what: str, rows: Sequence[tuple[str, str, str, str]], broken: Sequence[str], as_json: bool
) -> None:
    """One table (name, package, version, ``what``), then one line per broken plug-in on stderr; or
    ``{key: [{…}, …], "broken": [line, …]}`` with ``--json``. Exits 1 when a plug-in is broken."""
    if as_json:
        fields = ("name", "package", "version", "description")
        echo_json({key: [dict(zip(fields, r, strict=True)) for r in rows], "broken": list(broken)})
    else:
        click.echo(text_table([key.removesuffix("s"), "package", "version", what], rows))
    for line in broken:
        click.echo(f"knowsum: broken {line}", err=True)
    if broken:
        click.get_current_context().exit(EXIT_BROKEN)


@click.command("instruments")
@json_option
def instruments_command(as_json: bool) -> None:
    """List the installed instruments: knowsum's own and every plug-in's (entry-point group
    knowsum.instruments), with the package each comes from. A budget TOML's tables name them.

    A plug-in that cannot be used is left out of the table and named on one line (its package and
    why; "broken" in --json). Exit code: 0, or 1 when a plug-in is broken (the others are listed).

    \b
    Examples:
      knowsum instruments
      knowsum instruments --json
    """
    every = instruments()
    rows = [
        (i.name, i.package, i.version, every[i.name].title)
        for i in installed(INSTRUMENTS)
        if i.name in every and every[i.name] is i.obj
    ]
    _listing("instruments", "what it measures", rows, list(broken_instruments().values()), as_json)


@click.command("tasks")
@json_option
def tasks(as_json: bool) -> None:
    """List the census tasks: the built-in ones and every installed package's (entry-point group
    knowsum.census_tasks). `knowsum census run TASK` and a budget's [census] tasks take any of them.

    A plug-in task that cannot be used is left out of the table and named on one line (its package
    and why; "broken" in --json). Exit code: 0, or 1 when a plug-in is broken (the others are listed).

    \b
    Examples:
      knowsum census tasks
      knowsum census tasks --json
    """
    found, broken = task_catalogue()
    rows = [(t.name, t.package, t.version, t.description) for t in found]
    _listing("tasks", "what it counts", rows, broken, as_json)
