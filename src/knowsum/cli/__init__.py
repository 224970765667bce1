"""The ``knowsum`` command line: thin click commands over the library.

Sub-commands are registered lazily so that ``knowsum --help`` and light commands never import heavy
dependencies: the generic ones in ``_COMMANDS`` (a name, its one-line help and where its command
is), each instrument's group from the registry (:meth:`knowsum.Instrument.command`, its
``summary`` the help line) — knowsum's own instruments and a plug-in's alike. :func:`main` is the
entry point for the console script *and* for
tests: it takes an argument list and returns the exit code.
Every output a command is given passes the one write guard before it runs (:mod:`knowsum.cliutil.outputs`).
Library errors (:mod:`knowsum.errors`) become one line on stderr and their ``exit_code``; so does a
file that cannot be written because its disk is full or read-only (exit 1).
"""

from __future__ import annotations

import errno
import importlib
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from knowsum import __version__
from knowsum.errors import KnowsumError, KnowsumNote

if TYPE_CHECKING:
    from knowsum.instrument import Instrument

__all__ = ["cli", "main"]

_DISK_ERRORS = {
    errno.ENOSPC: "the disk is full: free space on it (or write elsewhere) and rerun",
    errno.EDQUOT: "the disk quota is used up: free space (or write elsewhere) and rerun",
    errno.EROFS: "the file system is read-only: write elsewhere and rerun",
    errno.EACCES: "this user may not write there: fix the owner or mode (or write elsewhere) and rerun",
}
"""OS errors that say the disk cannot take a write, and what to do; reported in one line."""

# name -> (one-line help shown by `knowsum --help` without importing the command's module, module:attr)
_COMMANDS: dict[str, tuple[str, str]] = {
    "ask": ("Sample a model on one prompt and print the answers.", "knowsum.cli.ask:ask"),
    "models": ("List and install the embedded local models.", "knowsum.cli.models:models"),
    "store": ("Inspect and export the response store.", "knowsum.cli.store:store"),
    "batch": ("Export/import OpenAI Batch JSONL files (scale out).", "knowsum.cli.batch:batch"),
    "kb": ("Install, inspect and match against knowledge bases.", "knowsum.cli.kb:kb"),
    "instruments": (
        "List the installed instruments (knowsum's and plug-ins') and their packages.",
        "knowsum.cli.instruments:instruments_command",
    ),
    "run": (
        "Run one installed instrument alone, as a profile runs it (its part of a budget).",
        "knowsum.cli.run:run_cmd",
    ),
    "score": (
        "Read an `inspect eval knowsum/INSTRUMENT` log back into a run directory.",
        "knowsum.cli.run:score_cmd",
    ),
    "profile": (
        "How much does this model know? Every instrument, one page (run/plan/compare/page).",
        "knowsum.cli.profile:profile",
    ),
    "estimate": (
        "Estimate unseen items from observations (Good-Turing family).",
        "knowsum.estimate.cli:estimate",
    ),
}
"""The generic commands (and the unseen-items estimator, which is no instrument of a profile)."""


def _instrument_groups() -> dict[str, Instrument[Any, Any]]:
    """The installed instruments that have a command group (not shadowing a generic command)."""
    from knowsum.instrument import Instrument, instruments

    own = Instrument.command
    return {n: i for n, i in instruments().items() if n not in _COMMANDS and type(i).command is not own}


def _read_log(log: Path, instrument: str, *, out: Path | None, overwrite: bool) -> Any:
    """``--inspect-log``: the harness reads an inspect_ai log back as a run directory."""
    from knowsum.harness import run_from_log

    return run_from_log(log, instrument, out=out, overwrite=overwrite)


class _LazyGroup(click.Group):
    """A click group whose sub-commands are imported only when invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(_COMMANDS) | set(_instrument_groups()) | set(super().list_commands(ctx)))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command: object = None
        if cmd_name in _COMMANDS:
            module, _, attr = _COMMANDS[cmd_name][1].partition(":")
            command = getattr(importlib.import_module(module), attr)
        elif (found := _instrument_groups().get(cmd_name)) is not None:
            command = found.command()
        if command is None:
            return super().get_command(ctx, cmd_name)
        from knowsum.cliutil.inspect_log import use_log_reader
        from knowsum.cliutil.once import once_tree
        from knowsum.cliutil.outputs import guard_tree

        use_log_reader(_read_log)
        assert isinstance(command, click.Command)
        once_tree(command)  # a single-valued option given twice is refused, never its last value kept
        return guard_tree(command)  # every output passes the write guard before the command runs

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, help_line) for name, (help_line, _) in _COMMANDS.items()]
        rows += [(name, inst.summary) for name, inst in _instrument_groups().items()]
        rows.sort()
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="knowsum")
def cli() -> None:
    """knowsum — how much does a language model know?

    \b
    Quick start:
      knowsum estimate observations.txt      unseen-species estimate of a list of items
      knowsum models install smollm2-135m-instruct
      knowsum ask "List 5 human diseases."
      knowsum kb install doid && knowsum kb match doid "alzheimers disease"
    """


def _stored() -> dict[Path, tuple[int, int]]:
    """``(times opened, responses written)`` so far by this process, per store (empty while no store
    was opened; the model layer is not imported for it)."""
    if "knowsum.models" not in sys.modules:
        return {}
    from knowsum.models import stored_this_session

    return stored_this_session()


def _interrupted(before: dict[Path, tuple[int, int]]) -> str:
    """What an interrupt leaves: the responses this command stored (kept), and how to continue."""
    stores = {
        path: written - before.get(path, (0, 0))[1]
        for path, (opened, written) in _stored().items()
        if (opened, written) != before.get(path, (0, 0))  # opened (or written) by this command
    }
    if not stores:
        return "knowsum: interrupted"
    kept = "; ".join(
        (
            f"the {n} responses this run stored are kept in {path}"
            if n != 1
            else f"the response this run stored is kept in {path}"
        )
        if n
        else f"this run stored no response yet in {path}"
        for path, n in stores.items()
    )
    return f"knowsum: interrupted: {kept}; rerun the same command to continue where it stopped"


def _plugin_failure(exc: BaseException) -> str | None:
    """One line naming the plug-in whose code raised ``exc`` (a frame of its package's modules in the
    traceback), or ``None`` when no plug-in's code is in it."""
    if "knowsum.instrument" not in sys.modules:  # no plug-in was loaded
        return None
    from knowsum.instrument import loaded

    roots = {i.target.partition(":")[0].split(".")[0]: i for i in loaded() if i.package != "knowsum"}
    tb = exc.__traceback__
    while tb is not None:
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        if (found := roots.get(module.split(".")[0])) is not None:
            text = " ".join(str(exc).split())[:300]
            return (
                f"plug-in {found.name!r} (package {found.package}: {found.target}) failed: "
                f"{type(exc).__name__}: {text}; fix or uninstall {found.package}"
            )
        tb = tb.tb_next
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on ``argv`` (default: ``sys.argv[1:]``) and return the exit code.

    An interrupt (Ctrl-C) says how many responses this command stored and that rerunning it continues:
    every response is kept in the store as it arrives, and a rerun asks only for what is missing. An
    error raised in a plug-in's code is one line naming the plug-in and its package (exit 2).
    """
    try:
        return _main(argv)
    except Exception as exc:
        line = _plugin_failure(exc)
        if line is None:
            raise
        click.echo(f"knowsum: error: {line}", err=True)
        return 2


def _notes(shown: Callable[..., None]) -> Callable[..., None]:
    """A ``warnings.showwarning`` that prints a :class:`~knowsum.errors.KnowsumNote` as one
    ``knowsum: note: …`` line and hands any other warning to ``shown`` (the hook it replaces)."""

    def show(message: Warning | str, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if issubclass(category, KnowsumNote):
            click.echo(f"knowsum: note: {message}", err=True)
        else:
            shown(message, category, *args, **kwargs)

    return show


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    before = _stored()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", KnowsumNote)
            warnings.showwarning = _notes(warnings.showwarning)
            result = cli.main(args=args, prog_name="knowsum", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort as exc:
        by_user = isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
        click.echo(_interrupted(before) if by_user else "knowsum: aborted", err=True)
        return 130
    except click.UsageError as exc:
        # one line, like every other error: what is wrong, and where the help is
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        click.echo(f"knowsum: error: {exc.format_message()}{hint}", err=True)
        return int(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        return int(exc.exit_code)
    except KnowsumError as exc:
        click.echo(f"knowsum: error: {exc}", err=True)
        return exc.exit_code
    except ValueError as exc:
        # knowsum.stats.StatsError (a ValueError) is bad input too; it says so with `input_error`,
        # so `knowsum --help` never imports the stats layer (SciPy) to recognise it.
        if not getattr(exc, "input_error", False):
            raise
        click.echo(f"knowsum: error: {exc}", err=True)
        return 2
    except OSError as exc:
        if exc.errno not in _DISK_ERRORS:
            raise
        verb = "cannot access" if exc.errno == errno.EACCES else "cannot write"  # EACCES: reads too
        where = f"{verb} {exc.filename}" if exc.filename else verb
        click.echo(f"knowsum: error: {where}: {exc.strerror}; {_DISK_ERRORS[exc.errno]}", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo(_interrupted(before), err=True)
        return 130
    return int(result) if isinstance(result, int) else 0
