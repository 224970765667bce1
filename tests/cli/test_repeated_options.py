"""Every single-valued option of every command, found by walking the command tree: given twice it is a
usage error naming it and both values (click would keep the last one without a word, so the command
would run on one value and drop the other unsaid); options meant to repeat and flags are left alone."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from knowsum.cli import main
from knowsum.cliutil.once import repeated_option
from tests._cli_tree import leaf_commands

SINGLE = [
    (path, command, option)
    for path, command in leaf_commands()
    for option in command.params
    if isinstance(option, click.Option) and not (option.multiple or option.is_flag or option.count)
]


def test_the_walk_finds_single_valued_options_of_every_instrument() -> None:
    found = {(" ".join(path), option.opts[0]) for path, _, option in SINGLE}
    assert {("census run", "--t"), ("estimate", "--t"), ("recall run", "--seed"), ("ask", "--model")} <= found
    assert len({path for path, _, _ in SINGLE}) >= 25


@pytest.mark.parametrize(
    ("path", "command", "option"), SINGLE, ids=lambda v: " ".join(v) if isinstance(v, tuple) else ""
)
def test_a_single_valued_option_given_twice_is_refused(
    path: tuple[str, ...], command: click.Command, option: click.Option
) -> None:
    """Through the command's own argument parsing, as the command line calls it (before any callback)."""
    name = option.opts[-1]
    with click.Context(command) as ctx, pytest.raises(click.UsageError) as err:
        command.parse_args(ctx, [name, "1", name, "2"])
    assert f"{name} given 2 times (1, 2); it takes one value: give it once" in str(err.value)


def test_values_that_look_like_options_and_repeatable_options_are_not_counted() -> None:
    """An option's value is consumed as click consumes it (``--prompt --t`` gives ``--t`` as text);
    ``--opt=value`` carries its own; ``--`` ends the options; a ``multiple`` option may repeat."""
    command = next(c for p, c in leaf_commands() if p == ("estimate",))
    assert repeated_option(command, ["f.tsv", "--t", "1", "--seed", "--t"]) is None
    assert repeated_option(command, ["--t=1", "--t", "2"]) == (
        "--t given 2 times (1, 2); it takes one value: give it once"
    )
    assert repeated_option(command, ["--", "--t", "1", "--t", "2"]) is None
    assert repeated_option(command, ["--at-size", "10", "--at-size", "20"]) is None


def test_the_command_line_refuses_it_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ask", "-m", "mock", "--store", str(tmp_path / "s.sqlite"), "-m", "mock:other", "hi"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "-m given 2 times (mock, mock:other); it takes one value: give it once" in err
    assert not (tmp_path / "s.sqlite").exists()


def test_attached_short_values_and_optional_values_are_read_as_click_reads_them() -> None:
    """``-mNAME`` carries its value; ``--at-coverage`` with no value (the next word an option) takes
    its flag value ``auto`` and consumes nothing, so a repeat after it is still seen."""
    commands = dict(leaf_commands())
    ask, compare = commands[("ask",)], commands[("census", "compare")]
    assert repeated_option(ask, ["-m", "mock", "-mmock:other", "hi"]) == (
        "-m given 2 times (mock, mock:other); it takes one value: give it once"
    )
    assert repeated_option(ask, ["-mmock", "hi"]) is None
    args = ["r1", "--at-coverage", "--n-bootstrap", "5", "--n-bootstrap", "6"]
    assert (
        repeated_option(compare, args)
        == "--n-bootstrap given 2 times (5, 6); it takes one value: give it once"
    )
    assert repeated_option(compare, ["r1", "--at-coverage", "--json", "--at-coverage", "0.5"]) == (
        "--at-coverage given 2 times (auto, 0.5); it takes one value: give it once"
    )
    assert repeated_option(compare, ["r1", "--at-coverage", "0.5"]) is None
