"""Options that ask for contrary things are refused together by every command that takes both
(``--markdown`` with ``--json``; ``--no-store`` with ``--store``), never one silently winning. The
command tree is walked — every command routes its options through ``check_command`` (the write
guard's entry, which every command's callback passes) — so a new command with such a pair is covered
too; two commands are also run end to end."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

from knowsum.cli import main
from knowsum.cliutil.outputs import EXCLUSIVE, check_command
from knowsum.errors import ConfigError
from tests._cli_tree import leaf_commands


def _has(command: click.Command, name: str) -> bool:
    return any(p.name == name and isinstance(p, click.Option) for p in command.params)


def test_every_command_refuses_a_contrary_pair(tmp_path: Path) -> None:
    checked = []
    for path, command in leaf_commands():
        assert getattr(command.callback, "__knowsum_guarded__", False), path  # passes check_command
        for first, second, why in EXCLUSIVE:
            if not (_has(command, first) and _has(command, second)):
                continue
            given = {first: True, second: True if second != "store_path" else tmp_path / "s.sqlite"}
            with pytest.raises(ConfigError, match=why.split(":")[0]):
                check_command(command, given)
            checked.append(path)
    assert len(checked) >= 6, checked  # the compare commands, census run/score, ask…


def test_two_commands_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "-m", "mock", "hi", "--no-store", "--store", str(tmp_path / "s.sqlite")]) == 2
    assert "--no-store reads and writes no store, --store names one: give one" in capsys.readouterr().err
    assert not (tmp_path / "s.sqlite").exists()
    items = tmp_path / "items.tsv"
    items.write_text("q1\ta\nq1\tb\nq2\ta\n", encoding="utf-8")
    code = main(["census", "score", str(items), "--out", str(tmp_path / "r"), "--markdown", "--json"])
    assert code == 2 and "--markdown prints tables, --json one JSON object" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
