"""``knowsum instruments``: what is installed, and from which package."""

from __future__ import annotations

import click

from knowsum.cliutil.listing import listing
from knowsum.cliutil.options import json_option
from knowsum.instrument import INSTRUMENTS, broken_instruments, installed, instruments

__all__ = ["instruments_command"]


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
    listing("instruments", "what it measures", rows, list(broken_instruments().values()), as_json)
