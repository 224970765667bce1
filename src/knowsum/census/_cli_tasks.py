"""``knowsum census tasks``: the census tasks installed, and from which package."""

from __future__ import annotations

import click

from knowsum.census._plugins import task_catalogue
from knowsum.cliutil.listing import listing
from knowsum.cliutil.options import json_option

__all__ = ["tasks"]


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
    listing("tasks", "what it counts", rows, broken, as_json)
