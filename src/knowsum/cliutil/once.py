"""A single-valued option given twice is refused, never resolved to its last value.

click keeps the last value of an option given more than once (``--t 1 --t 100`` runs at ``t = 100``)
without a word, so a command line that says two things runs as one of them. :func:`once_tree` wraps
the argument parsing of every command of a tree (the command line applies it to each command it
loads, as it applies the write guard): before click parses, the command's own arguments are walked
as click's parser walks them — an option that takes a value consumes the next word (one whose
value may be left out takes its flag value when the next word is an option), ``--opt=value`` and
``-oVALUE`` carry their own, ``--`` ends the options — and an option that takes one value (not
``multiple``, not a flag or a count) named twice is a usage error naming it and both values.
Options meant to repeat (``multiple=True``) and flags are left alone.
"""

from __future__ import annotations

from collections.abc import Callable

import click

__all__ = ["once_tree", "repeated_option"]

_MARK = "__knowsum_once__"


def _single_valued(option: click.Option) -> bool:
    return not (option.multiple or (option.is_flag and not option._flag_needs_value) or option.count)


def _next_value(option: click.Option, args: list[str], i: int) -> tuple[str, int]:
    """The value of ``option`` named at ``args[i - 1]`` and the index after it, as click reads it: the
    next word, or, for an option whose value may be left out (``--at-coverage [C]``), its flag value
    when the next word is missing or is itself an option."""
    if getattr(option, "_flag_needs_value", False) and (
        i >= len(args) or (args[i].startswith("-") and len(args[i]) > 1)
    ):
        return str(option.flag_value), i
    return (args[i], i + 1) if i < len(args) else ("", i)


def repeated_option(command: click.Command, args: list[str]) -> str | None:
    """The usage-error sentence for the first single-valued option of ``command`` that ``args``
    (the command's own words, as click passes them) give twice, else ``None``."""
    takes_value: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option) and not (
            (param.is_flag and not param._flag_needs_value) or param.count
        ):
            for name in param.opts:
                takes_value[name] = param
    seen: dict[str, list[str]] = {}
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            break
        if word.startswith("--"):
            name, eq, attached = word.partition("=")
        elif word.startswith("-") and len(word) > 2:  # -mNAME: a short option with its value attached
            name, eq, attached = word[:2], "=", word[2:]
        else:
            name, eq, attached = word, "", ""
        option = takes_value.get(name)
        if option is None:
            continue
        value, i = (attached, i) if eq else _next_value(option, args, i)
        if not _single_valued(option):
            continue
        key = option.name or name
        seen.setdefault(key, []).append(value)
        if len(seen[key]) > 1:
            given = ", ".join(seen[key])
            return f"{name} given {len(seen[key])} times ({given}); it takes one value: give it once"
    return None


def _parse_once(command: click.Command, parse: Callable[[click.Context, list[str]], list[str]]) -> object:
    def parse_args(ctx: click.Context, args: list[str]) -> list[str]:
        if (problem := repeated_option(command, args)) is not None:
            raise click.UsageError(problem, ctx)
        return parse(ctx, args)

    setattr(parse_args, _MARK, True)
    return parse_args


def once_tree(command: click.Command) -> click.Command:
    """Refuse a repeated single-valued option in ``command`` and every sub-command (idempotent)."""
    if isinstance(command, click.Group):  # a group's own words run on into its sub-command's
        for sub in command.commands.values():
            once_tree(sub)
    elif not getattr(command.parse_args, _MARK, False):
        setattr(command, "parse_args", _parse_once(command, command.parse_args))  # noqa: B010
    return command
