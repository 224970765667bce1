"""Every old spelling of an option kept hidden (``cliutil.options.renamed``), found by walking the
command tree: given beside its new spelling with another value it is a usage error (the command
would otherwise run on one value and drop the other unsaid); with the same value, or alone, it works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.core import ParameterSource

from tests._cli_tree import leaf_commands

RENAMED = [
    (path, command, param)
    for path, command in leaf_commands()
    for param in command.params
    if param.name and param.name.startswith("_renamed_") and not getattr(param, "is_flag", False)
]


def _values(param: click.Parameter) -> tuple[Any, Any]:
    if isinstance(param.type, click.types.IntParamType):
        return 3, 4
    if isinstance(param.type, click.Path):
        return Path("a"), Path("b")
    return "a", "b"


def test_the_walk_finds_the_renamed_options() -> None:
    olds = {(" ".join(path), opt) for path, _, p in RENAMED for opt in p.opts}
    assert ("recall score", "--ontology") in olds and ("census backtest", "--resamples") in olds


@pytest.mark.parametrize(
    ("path", "command", "param"), RENAMED, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_an_old_spelling_that_disagrees_with_the_new_is_a_usage_error(
    path: tuple[str, ...], command: click.Command, param: click.Parameter
) -> None:
    assert param.name is not None and command.callback is not None
    dest = next(p.name for p in command.params if p.name and param.name.startswith(f"_renamed_{p.name}_"))
    new, old = _values(param)
    with click.Context(command) as ctx:
        kw: dict[str, Any] = {p.name: p.get_default(ctx) for p in command.params if p.name}
        kw[dest], kw[param.name] = new, old
        ctx.set_parameter_source(dest, ParameterSource.COMMANDLINE)
        with pytest.raises(click.UsageError) as err:
            ctx.invoke(command.callback, **kw)
    assert f"and {param.opts[0]} {old} disagree ({param.opts[0]} is the old spelling of" in str(err.value)
