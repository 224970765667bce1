"""The README stays true by test: every command block of its quick tour is run and its output compared.

A *command block* is a fenced code block of the "A quick tour" section whose first line starts with
``$ ``. Each ``$ `` line (continued by a trailing ``\\``; a ``#`` comment is dropped) is run through
the installed ``knowsum`` (the one beside ``sys.executable``) in a temporary folder that holds links to
the repository's ``examples/`` and ``tests/fixtures/``, with a temporary knowsum home whose ``models``,
``kb`` and ``cache`` are the installed ones (so the response store is fresh and the user's is not
touched). What it prints (stdout and stderr, unbuffered, in order) must match the lines under the
command up to the next ``$ `` line:

- a line that is exactly ``…`` stands for any number of lines (zero or more) the README leaves out;
- ``…`` inside a line stands for text that varies (a time, a path) or that the README cuts short;
- everything else — every figure — must match to the character (trailing spaces aside).

An HTML comment on the line before a block says what the block needs (invisible on the page):

- ``<!-- readme: not run (REASON) -->``: not run here (a large model, a file that is not bundled);
- ``<!-- readme: needs model NAME -->`` / ``<!-- readme: needs kb NAME[,NAME…] -->`` (several joined
  by ``;``): run when that model or those knowledge bases are installed, skipped otherwise (``make
  test`` installs them).

So a README figure that changes makes this test fail until the README is updated.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.models import is_installed, model_spec

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
KNOWSUM = Path(sys.executable).parent / "knowsum"
ELLIPSIS = "…"
_MARK = re.compile(r"<!--\s*readme:\s*(.*?)\s*-->")


@dataclass(frozen=True)
class Command:
    """One ``$`` command of the README and the output shown under it."""

    line: int
    argv: tuple[str, ...]
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    """A command block of the tour: its first line, its marker (``""`` if none) and its commands."""

    line: int
    mark: str
    commands: tuple[Command, ...]


def _tour(text: str) -> list[tuple[int, str]]:
    """The numbered lines of the "A quick tour" section."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "## A quick tour")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [(i + 1, lines[i]) for i in range(start, end)]


def _commands(body: list[tuple[int, str]]) -> tuple[Command, ...]:
    commands: list[Command] = []
    i = 0
    while i < len(body):
        no, line = body[i]
        assert line.startswith("$ "), f"README.md:{no}: a command block's lines start with '$ ' first"
        text = line[2:]
        while text.rstrip().endswith("\\"):
            i += 1
            text = text.rstrip()[:-1] + " " + body[i][1].strip()
        i += 1
        expected = []
        while i < len(body) and not body[i][1].startswith("$ "):
            expected.append(body[i][1].rstrip())
            i += 1
        commands.append(Command(no, tuple(shlex.split(text, comments=True)), tuple(expected)))
    return tuple(commands)


def blocks(text: str) -> list[Block]:
    """Every command block of the tour, with the marker on the line before it."""
    found: list[Block] = []
    tour = _tour(text)
    i = 0
    while i < len(tour):
        no, line = tour[i]
        if line.startswith("```"):
            j = next(k for k in range(i + 1, len(tour)) if tour[k][1].startswith("```"))
            body = tour[i + 1 : j]
            if body and body[0][1].startswith("$ "):
                mark = _MARK.search(tour[i - 1][1]) if i else None
                found.append(Block(no, mark.group(1) if mark else "", _commands(body)))
            i = j
        i += 1
    return found


def pattern(expected: tuple[str, ...]) -> re.Pattern[str]:
    """The regular expression of what a command must print (module docstring)."""
    parts = []
    for line in expected:
        if line.strip() == ELLIPSIS:
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*?".join(re.escape(piece) for piece in line.split(ELLIPSIS)) + r"[ \t]*\n")
    return re.compile("".join(parts))


def _needs(mark: str) -> str | None:
    """Why a block cannot run here (``None``: it can); marks are separated by ``;``."""
    for need in (m.strip() for m in mark.split(";") if m.strip()):
        if need.startswith("needs model "):
            name = need.removeprefix("needs model ").strip()
            if not is_installed(model_spec(name)):
                return f"the model {name} is not installed (knowsum models install {name})"
        if need.startswith("needs kb "):
            names = [n.strip() for n in need.removeprefix("needs kb ").split(",")]
            missing = [n for n in names if not (paths.kb_dir() / f"{n}.sqlite").is_file()]
            if missing:
                return f"knowledge bases not installed: {', '.join(missing)} (knowsum kb install …)"
    return None


BLOCKS = blocks(README.read_text(encoding="utf-8"))
RUN = [b for b in BLOCKS if not b.mark.startswith("not run")]
"""The blocks this test runs (a "not run" block is left out, not skipped: under CI a skip fails)."""


def test_the_tour_has_command_blocks_and_every_mark_is_known() -> None:
    assert len(BLOCKS) >= 8 and len(RUN) >= 5
    for block in BLOCKS:
        for need in (m.strip() for m in block.mark.split(";") if m.strip()):
            assert need.startswith(("not run (", "needs model ", "needs kb ")), block
        for command in block.commands:
            assert command.argv[0] == "knowsum", f"README.md:{command.line}: not a knowsum command"


def test_the_matcher_allows_only_the_marked_parts() -> None:
    shown = ("  total         N̂_tot               41.0   [16.2, 184.8]", "…", "report: …/report.html")
    good = "  total         N̂_tot               41.0   [16.2, 184.8]\nx\ny\nreport: runs/a/report.html\n"
    assert pattern(shown).fullmatch(good)
    assert not pattern(shown).fullmatch(good.replace("184.8", "184.9"))  # a figure that changed
    assert not pattern(shown).fullmatch("extra first line\n" + good)  # only a marked part may vary


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("readme")
    (folder / "examples").symlink_to(ROOT / "examples")
    (folder / "tests").mkdir()
    (folder / "tests" / "fixtures").symlink_to(ROOT / "tests" / "fixtures")
    home = folder / "home"
    home.mkdir()
    for name in ("models", "kb", "cache"):
        real = paths.home() / name
        if real.exists():
            (home / name).symlink_to(real)
    env = {**os.environ, "KNOWSUM_HOME": str(home), "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    env.pop("KNOWSUM_MODEL", None)
    return folder, env


def _param(block: Block) -> object:
    marks = [pytest.mark.realmodel] if "needs model" in block.mark else []
    marks += [pytest.mark.realdata] if "needs kb" in block.mark else []
    return pytest.param(block, marks=marks, id=f"README.md:{block.line}")


@pytest.mark.parametrize("block", [_param(b) for b in RUN])
def test_a_tour_block_prints_what_the_readme_shows(block: Block, work: tuple[Path, dict[str, str]]) -> None:
    why = _needs(block.mark)
    if why is not None:
        pytest.skip(why)
    folder, env = work
    for command in block.commands:
        argv = [str(KNOWSUM), *command.argv[1:]]
        done = subprocess.run(
            argv,
            cwd=folder,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            check=False,
        )
        shown = "\n".join(command.expected)
        actual = "\n".join(line.rstrip() for line in done.stdout.splitlines()) + "\n"
        assert done.returncode == 0, f"README.md:{command.line}: exit {done.returncode}\n{done.stdout}"
        assert pattern(command.expected).fullmatch(actual), (
            f"README.md:{command.line}: `{shlex.join(command.argv)}` printed\n{actual}\n"
            f"the README shows\n{shown}"
        )
