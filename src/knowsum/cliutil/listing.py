"""A listing of installed entries (instruments, census tasks): one table, broken plug-ins named."""

from __future__ import annotations

from collections.abc import Sequence

import click

from knowsum.cliutil.options import echo_json
from knowsum.report import text_table

__all__ = ["EXIT_BROKEN", "listing"]


EXIT_BROKEN = 1
"""The exit code of a listing that shows the healthy entries but names a broken plug-in."""


def listing(
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
