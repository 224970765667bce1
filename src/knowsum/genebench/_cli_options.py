"""The options of ``knowsum genebench`` that several of its commands share, and its config builder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError

from knowsum._util import check_file, config_error
from knowsum.cliutil.common import apply_options
from knowsum.errors import ConfigError
from knowsum.genebench import TASKS, GenebenchConfig, parse_tasks

__all__ = ["FILE", "config_from", "genes_option", "lenient_option", "types_option", "user_files"]

F = TypeVar("F", bound=Callable[..., Any])


class _InputFile(click.ParamType):  # type: ignore[type-arg]  # generic in click >= 8.2 stubs
    """An existing input file; a missing one is reported like every file error (file, problem)."""

    name = "file"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path:
        return check_file(value)


FILE = _InputFile()
"""An existing input file."""

_TYPES_HELP = (
    f"Comma list of tasks ({', '.join(TASKS)}) or knowledge names (synonyms, chromosome…). Default: all."
)


def _tasks(_ctx: click.Context, _param: click.Parameter, value: str | None) -> tuple[str, ...]:
    return parse_tasks(value)


def _genes(_ctx: click.Context, _param: click.Parameter, value: str | None) -> int | None:
    if value is None or value == "all":
        return None
    if not value.isdigit() or int(value) < 1:
        raise ConfigError(f"--genes: expected a positive number or 'all', got {value!r}")
    return int(value)


def types_option(suffix: str = "") -> Callable[[F], F]:
    """``--types LIST``: the tasks to build (parsed to task IDs)."""
    return click.option("--types", callback=_tasks, default=None, help=_TYPES_HELP + suffix)


def genes_option(func: F) -> F:
    """``--genes N|all``: draw questions from N random genes."""
    return click.option(
        "--genes", callback=_genes, default=None, help="Draw questions from N random genes, or 'all'."
    )(func)


def lenient_option(func: F) -> F:
    """``--lenient``: knowsum's lenient reply checking instead of the paper's strict rule."""
    return click.option("--lenient", is_flag=True, help="Lenient reply checking (default: strict, App. B).")(
        func
    )


def user_files(func: F) -> F:
    """``--expression --summaries --abstracts``: the user files the question builder reads."""
    return apply_options(
        func,
        [
            click.option(
                "--expression",
                type=FILE,
                default=None,
                help="Gene expression file (Q6): GENE<TAB>CATEGORY<TAB>TISSUES.",
            ),
            click.option(
                "--summaries", type=FILE, default=None, help="Functional summaries (Q8): GENE<TAB>SUMMARY."
            ),
            click.option(
                "--abstracts",
                type=FILE,
                default=None,
                help="PubMed abstracts (Q7/Q8 context): PMID<TAB>TEXT.",
            ),
        ],
    )


_USER_KEYS = ("expression", "summaries", "abstracts")


def config_from(where: str, kw: dict[str, Any], names: tuple[str, ...], **fields: Any) -> GenebenchConfig:
    """A :class:`GenebenchConfig` from the options ``names`` and the user files in ``kw``, and
    ``fields`` (errors name ``where``).

    Raises:
        ConfigError: an invalid value (``genebench run: invalid per_type=0: …``).
    """
    try:
        return GenebenchConfig(**fields, **{k: kw[k] for k in (*names, *_USER_KEYS)})
    except ValidationError as exc:
        raise config_error(exc, where) from None
