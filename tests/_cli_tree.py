"""Every leaf command of ``knowsum``'s command tree, with its path: the one walk that the tests which
check a property of every command (write guard, option values) enumerate."""

from __future__ import annotations

from collections.abc import Iterator

import click

from knowsum.cli import cli

Command = tuple[tuple[str, ...], click.Command]


def _walk(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()) -> Iterator[Command]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from _walk(command, ctx, (*path, name))
        else:
            yield (*path, name), command


def leaf_commands() -> list[Command]:
    """``(("census", "plan"), <command>)``… for every command that runs (groups are walked through)."""
    with click.Context(cli) as ctx:
        return list(_walk(cli, ctx))
