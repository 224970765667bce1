"""Every option two commands share, declared once, and the one way a command ends.

Command modules reuse these decorators so every command spells ``--model``, ``--base-url``,
``--store``, ``--out``, ``--json``, ``--seed``, ``--n-bootstrap``, ``--n-perm``, ``--kb`` and
``--temperature`` the same way, with the same help format (click's ``[default: …]``)::

    @click.command()
    @model_options
    @store_option
    @out_option("Run directory [default: census-runs/TASK-MODEL].")
    @json_option
    def mycommand(**kw):
        backend = ModelOptions.take(kw).open()
        ...
        finish(report_path)          # the last line of every command that writes a run: "report: PATH"

A renamed option keeps its old spelling for one release as a hidden alias that prints a deprecation
line (:func:`renamed`).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, overload

import click

from knowsum.cliutil.params import ResampleCount

__all__ = [
    "compare_options",
    "ctx_default",
    "echo_json",
    "file_option",
    "finish",
    "json_option",
    "kb_option",
    "n_bootstrap_option",
    "n_perm_option",
    "note",
    "out_option",
    "overwrite_option",
    "renamed",
    "seed_option",
    "temperature_option",
]

F = TypeVar("F", bound=Callable[..., Any])


def file_option(*decls: str, help_text: str | None = None, **extra: Any) -> Callable[[F], F]:
    """An option naming one file, never a folder (``-o/--output``, ``--config``, ``--html``…)."""
    return click.option(*decls, type=click.Path(dir_okay=False, path_type=Path), help=help_text, **extra)


def out_option(help_text: str, *, dest: str = "out") -> Callable[[F], F]:
    """``--out DIR``: a run directory (always a folder; a single output file is ``-o/--output``)."""
    return click.option(
        "--out", dest, type=click.Path(file_okay=False, path_type=Path), default=None, help=help_text
    )


def overwrite_option(func: F) -> F:
    """``--overwrite``: empty a run directory that holds another run before writing this one
    (without it such a directory is refused before anything is asked: ``knowsum.records.claim_run_dir``)."""
    return click.option(
        "--overwrite",
        is_flag=True,
        help="Replace the run in --out when it is another run (its files are deleted first); "
        "without it such a folder is refused.",
    )(func)


@overload
def json_option(func: F) -> F: ...
@overload
def json_option(func: None = None, *, help_text: str | None = None) -> Callable[[F], F]: ...
def json_option(func: F | None = None, *, help_text: str | None = None) -> F | Callable[[F], F]:
    """``--json``: print one JSON object on stdout instead of the tables (notes go to stderr).

    Use as ``@json_option`` or ``@json_option(help_text="Print {...}.")``.
    """

    def deco(f: F) -> F:
        return click.option(
            "--json",
            "as_json",
            is_flag=True,
            help=help_text or "Print one JSON object on stdout instead of tables.",
        )(f)

    return deco(func) if func is not None else deco


@overload
def seed_option(func: F) -> F: ...
@overload
def seed_option(
    func: None = None, *, default: int | None = 0, help_text: str | None = None
) -> Callable[[F], F]: ...
def seed_option(
    func: F | None = None, *, default: int | None = 0, help_text: str | None = None
) -> F | Callable[[F], F]:
    """``--seed N``: the run seed (selection, sampling, resampling), a whole number >= 0.

    Use as ``@seed_option``, ``@seed_option(default=None)`` (None: the config's value applies) or
    ``@seed_option(help_text="Seed of the splits.")`` (what this command's seed seeds). Every
    ``--seed`` is this option: a negative seed is refused by click in one line naming it and the value.
    """

    def deco(f: F) -> F:
        text = help_text or "Run seed: each sample's, resample's and permutation's seed derives from it."
        return click.option(
            "--seed",
            type=click.IntRange(min=0),
            default=default,
            show_default=default is not None,
            help=text if default is not None else text.rstrip(".") + " [default: 0, or the config's].",
        )(f)

    return deco(func) if func is not None else deco


def n_bootstrap_option(
    default: int | None = 1000, help_text: str = "Bootstrap resamples."
) -> Callable[[F], F]:
    """``--n-bootstrap N`` (old spelling ``--bootstrap``, hidden, for one release)."""

    def deco(func: F) -> F:
        func = renamed("--bootstrap", "n_bootstrap", type=ResampleCount())(func)
        return click.option(
            "--n-bootstrap",
            type=ResampleCount(),
            default=default,
            show_default=default is not None,
            help=f"{help_text} Not 1: one resample has no spread.",
        )(func)

    return deco


def n_perm_option(default: int = 10_000, help_text: str = "Permutations per test.") -> Callable[[F], F]:
    """``--n-perm N``: permutations of each permutation test."""
    return click.option(
        "--n-perm", type=click.IntRange(min=1), default=default, show_default=True, help=help_text
    )


def kb_option(help_text: str, *, old: str | None = None) -> Callable[[F], F]:
    """``--kb NAME``: an installed knowledge base (``old``: a former spelling kept hidden).

    Not ``required`` at the click level (the hidden old spelling must still be able to supply it):
    a command that needs it checks ``kb is None`` and says so.
    """

    def deco(func: F) -> F:
        if old is not None:
            func = renamed(old, "kb")(func)
        return click.option("--kb", "kb", default=None, metavar="KB", help=help_text)(func)

    return deco


def temperature_option(
    default: float, *, short: bool = False, help_text: str | None = None
) -> Callable[[F], F]:
    """``--temperature T`` (``-t`` only where it already meant the temperature)."""
    names = ("--temperature", "-t") if short else ("--temperature",)
    return click.option(
        *names,
        "temperature",
        type=float,
        default=default,
        show_default=True,
        help=help_text or "Sampling temperature (0 = greedy; at most 2).",
    )


def renamed(
    old: str, dest: str, *, type: Any = None, metavar: str | None = None, flag: bool = False
) -> Callable[[F], F]:
    """A hidden option ``old`` that still works for one release and says what replaced it.

    ``type`` is the new option's click type, so the old spelling is checked the same way. Its value
    goes to ``dest`` (the new option's parameter), and a line ``knowsum: note: OLD is renamed NEW; …``
    goes to stderr. Both spellings given must agree: with two values the command would run on one
    and drop the other unsaid, so that is a usage error.
    """
    hidden = f"_renamed_{dest}_{old.strip('-').replace('-', '_')}"
    new = "--" + dest.replace("_", "-")

    def deco(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kw: Any) -> Any:
            value = kw.pop(hidden, None)
            if value is not None and value is not False:
                click.echo(f"knowsum: note: {old} is renamed {new}; {old} will be removed", err=True)
                if kw.get(dest) is None or ctx_default(dest, kw):
                    kw[dest] = value
                elif kw[dest] != value:
                    raise click.UsageError(
                        f"{new} {kw[dest]} and {old} {value} disagree ({old} is the old spelling of {new}): "
                        f"give {new} only"
                    )
            return func(*args, **kw)

        if flag:
            opt = click.option(old, hidden, is_flag=True, default=False, hidden=True)
        else:
            opt = click.option(old, hidden, type=type, default=None, hidden=True, metavar=metavar)
        return opt(wrapper)  # type: ignore[return-value]

    return deco


def ctx_default(dest: str, kw: dict[str, Any]) -> bool:
    """Whether ``dest`` holds its default (it was not given on the command line)."""
    ctx = click.get_current_context(silent=True)
    if ctx is None:
        return False
    source = ctx.get_parameter_source(dest)
    return source is None or source.name in ("DEFAULT", "DEFAULT_MAP")


def note(message: str) -> None:
    """A note for the user on stderr (``knowsum: note: …``); stdout stays for results."""
    click.echo(f"knowsum: note: {message}", err=True)


def echo_json(data: Any) -> None:
    """Print ``data`` as one JSON object on stdout (NaN refused: undefined numbers are null)."""
    click.echo(json.dumps(data, ensure_ascii=False, allow_nan=False))


def finish(report: Path, *, as_json: bool = False) -> None:
    """The last line of every command that writes a run directory: ``report: PATH``.

    With ``--json`` stdout holds only the JSON object, so the line goes to stderr.
    """
    click.echo(f"report: {report}", err=as_json)


def compare_options(
    published_help: str,
    *,
    html_help: str | None = None,
    required: bool = False,
    compared: str = "",
) -> Callable[[F], F]:
    """``RUNS… --markdown --published --allow-mixed [--html FILE] --json``: what every ``compare``
    command takes (``--allow-mixed``: :func:`knowsum.records.check_comparable` marks, not refuses).

    RUNS are run directories or their ``result.json`` (a missing one is reported by the loader, with
    the file named); ``required``: at least one run (else ``--published`` alone may show the paper).
    ``compared``: what the instrument's records compare (its
    :meth:`~knowsum.records.Record.comparable_on`), named in the help of ``--allow-mixed``.
    """
    what = f" ({compared})" if compared else ""

    def deco(func: F) -> F:
        options: list[Callable[[F], F]] = [
            click.argument("runs", nargs=-1, required=required, type=click.Path(path_type=Path)),
            click.option("--markdown", is_flag=True, help="Markdown tables instead of terminal tables."),
            click.option("--published", is_flag=True, help=published_help),
            click.option(
                "--allow-mixed",
                is_flag=True,
                help=f"Show runs that measured different things{what} side by side, each row marked "
                "with what differs, instead of refusing them.",
            ),
        ]
        if html_help is not None:
            options.append(file_option("--html", "html_path", default=None, help_text=html_help))
        options.append(json_option)
        for option in reversed(options):
            func = option(func)
        return func

    return deco
