"""``--inspect-log LOG``: the ``score`` command of every instrument reads an inspect_ai log back.

One option and one handler for ``census score``, ``recall score`` and ``genebench score``: the log
of ``inspect eval knowsum/<instrument>`` becomes an ordinary run directory of that instrument
(``knowsum.harness.run_from_log``, which the top-level command line hands over through
:func:`use_log_reader`: the harness sits above the instruments). The settings are the log's task
arguments, so a command line giving the command's other inputs or settings beside
``--inspect-log`` is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from knowsum.cliutil.options import file_option
from knowsum.records import Record, Run

__all__ = ["LogReader", "from_inspect_log", "inspect_log_option", "use_log_reader"]

LogReader = Callable[..., tuple[Run[Record], Any]]
"""``reader(log, instrument, *, out, overwrite)`` → ``(run, …)``: a log read back as a run directory."""
_READERS: list[LogReader] = []


def use_log_reader(reader: LogReader) -> None:
    """Read inspect_ai logs with ``reader`` (the top-level command line sets it once)."""
    _READERS[:] = [reader]


F = TypeVar("F", bound=Callable[..., Any])

_WITH_LOG = frozenset({"inspect_log", "out", "overwrite", "as_json", "markdown"})
"""The parameters that go with ``--inspect-log`` (where the run goes and how it is shown)."""


def inspect_log_option(instrument: str) -> Callable[[F], F]:
    """``--inspect-log LOG``: read the log of ``inspect eval knowsum/<instrument>`` instead."""
    return file_option(
        "--inspect-log",
        "inspect_log",
        default=None,
        metavar="LOG",
        help_text=f"Read the log of `inspect eval knowsum/{instrument}` (.eval or .json) instead: its "
        "replies become an ordinary run directory (settings from the log's task arguments).",
    )


def from_inspect_log(instrument: str, log: Path, out: Path | None, overwrite: bool) -> Run[Record]:
    """The run directory of ``log`` (the click command's other inputs and settings must be unset).

    Raises:
        click.UsageError: another input or setting given beside ``--inspect-log``.
    """
    ctx = click.get_current_context()
    explicit = (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    given = [
        p
        for p in ctx.command.params
        if p.name is not None and p.name not in _WITH_LOG and ctx.get_parameter_source(p.name) in explicit
    ]
    if given:
        shown = given[0].opts[0] if given[0].opts else given[0].name
        raise click.UsageError(
            f"--inspect-log takes the task and settings from the log's task arguments: drop {shown}"
        )
    if not _READERS:
        raise click.UsageError("--inspect-log needs the knowsum command line (no log reader is set)")
    done, _ = _READERS[0](log, instrument, out=out, overwrite=overwrite)
    return done
