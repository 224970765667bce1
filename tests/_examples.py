"""Command blocks of Markdown pages, run and compared with what the page shows (README and docs/).

A *command block* is a fenced code block whose first line starts with ``$ ``. Each ``$ `` line
(continued by a trailing ``\\``; a ``#`` comment is dropped) is run through the installed ``knowsum``
(the one beside ``sys.executable``) in a temporary folder that holds links to the repository's
``examples/`` and ``tests/fixtures/``, with a temporary knowsum home whose ``models``, ``kb`` and
``cache`` are the installed ones (so the response store is fresh and the user's is not touched). What
it prints (stdout and stderr, unbuffered, in order) must match the lines under the command up to the
next ``$ `` line:

- a line that is exactly ``…`` stands for any number of lines (zero or more) the page leaves out;
- ``…`` inside a line stands for text that varies (a time, a path) or that the page cuts short;
- everything else — every figure — must match to the character (trailing spaces aside).

An HTML comment on the line before a block says what the block needs (invisible on the page):

- ``<!-- readme: not run (REASON) -->``: not run here (a large model, a file that is not bundled);
- ``<!-- readme: needs model NAME -->`` / ``<!-- readme: needs kb NAME[,NAME…] -->`` (several joined
  by ``;``): run when that model or those knowledge bases are installed, skipped otherwise (``make
  test`` installs them);
- ``responses PATH``: the block runs on stored responses, so a long model run stays checked without
  asking the model: the response store at ``PATH`` (relative to the repository; a fixture with its
  provenance beside it) becomes the knowsum home's store before the block runs, and the block must
  ask the model nothing (the store holds as many responses after it as before);
- ``exit N``: every command of the block must exit with ``N`` (default 0), e.g. to show an error.

The blocks of one page run in order in one folder, so a block can read what an earlier one wrote.
So a figure that changes makes the page's test fail until the page is updated.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.models import is_installed, model_spec

__all__ = [
    "ELLIPSIS",
    "ROOT",
    "Block",
    "Command",
    "blocks",
    "check_marks",
    "param",
    "pattern",
    "run_block",
    "runnable",
    "work_folder",
]

ROOT = Path(__file__).resolve().parents[1]
KNOWSUM = Path(sys.executable).parent / "knowsum"
ELLIPSIS = "…"
_MARK = re.compile(r"<!--\s*readme:\s*(.*?)\s*-->")


@dataclass(frozen=True)
class Command:
    """One ``$`` command of a page and the output shown under it."""

    where: str
    argv: tuple[str, ...]
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    """A command block: where it starts (``PAGE:LINE``), its marker (``""`` if none), its commands."""

    where: str
    mark: str
    commands: tuple[Command, ...]


def _section(lines: list[str], heading: str | None) -> list[tuple[int, str]]:
    """The numbered lines of the ``## heading`` section (the whole page when ``heading`` is None)."""
    if heading is None:
        return [(i + 1, line) for i, line in enumerate(lines)]
    start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    return [(i + 1, lines[i]) for i in range(start, end)]


def _commands(page: str, body: list[tuple[int, str]]) -> tuple[Command, ...]:
    commands: list[Command] = []
    i = 0
    while i < len(body):
        no, line = body[i]
        assert line.startswith("$ "), f"{page}:{no}: a command block's lines start with '$ ' first"
        text = line[2:]
        while text.rstrip().endswith("\\"):
            i += 1
            text = text.rstrip()[:-1] + " " + body[i][1].strip()
        i += 1
        expected = []
        while i < len(body) and not body[i][1].startswith("$ "):
            expected.append(body[i][1].rstrip())
            i += 1
        commands.append(Command(f"{page}:{no}", tuple(shlex.split(text, comments=True)), tuple(expected)))
    return tuple(commands)


def blocks(path: Path, heading: str | None = None) -> list[Block]:
    """Every command block of the page at ``path`` (of its ``heading`` section), with its marker."""
    page = path.relative_to(ROOT).as_posix()
    found: list[Block] = []
    lines = _section(path.read_text(encoding="utf-8").splitlines(), heading)
    i = 0
    while i < len(lines):
        no, line = lines[i]
        if line.lstrip().startswith("```"):
            j = next(k for k in range(i + 1, len(lines)) if lines[k][1].lstrip().startswith("```"))
            body = lines[i + 1 : j]
            if body and body[0][1].startswith("$ "):
                mark = _MARK.search(lines[i - 1][1]) if i else None
                found.append(Block(f"{page}:{no}", mark.group(1) if mark else "", _commands(page, body)))
            i = j
        i += 1
    return found


def runnable(found: list[Block]) -> list[Block]:
    """The blocks a test runs (a "not run" block is left out, not skipped: under CI a skip fails)."""
    return [b for b in found if not b.mark.startswith("not run")]


def check_marks(found: list[Block]) -> None:
    """Every marker is one this module knows, and every command of a block that runs is ``knowsum``.

    A "not run" block may show another program's command (``inspect eval …``): it is only shown.
    """
    for block in found:
        for need in (m.strip() for m in block.mark.split(";") if m.strip()):
            assert need.startswith(("not run (", "needs model ", "needs kb ", "responses ", "exit ")), block
            if need.startswith("responses "):
                assert (ROOT / need.removeprefix("responses ").strip()).is_file(), block
            if need.startswith("exit "):
                assert need.removeprefix("exit ").strip().isdigit(), block
    for block in runnable(found):
        for command in block.commands:
            assert command.argv[0] == "knowsum", f"{command.where}: not a knowsum command"


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


def work_folder(folder: Path) -> tuple[Path, dict[str, str]]:
    """Lay out ``folder`` for running commands (module docstring) and return it with the environment."""
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
    # the pages show the defaults: the default model, batched decoding of 4 (part of a store key)
    env.pop("KNOWSUM_MODEL", None)
    env.pop("KNOWSUM_BATCH", None)
    return folder, env


def param(block: Block) -> object:
    """``block`` as a pytest parameter, marked ``realmodel``/``realdata`` as its marker says."""
    marks = [pytest.mark.realmodel] if "needs model" in block.mark else []
    marks += [pytest.mark.realdata] if "needs kb" in block.mark else []
    return pytest.param(block, marks=marks, id=block.where)


def _mark(mark: str, key: str) -> str | None:
    """The value of the ``key`` part of a block's marker (``None``: the marker has none)."""
    found = [m.strip().removeprefix(key).strip() for m in mark.split(";") if m.strip().startswith(key)]
    return found[0] if found else None


def _stored(env: dict[str, str], folder: Path) -> str:
    """The ``responses:`` line of ``knowsum store info`` for the knowsum home of ``env``."""
    done = subprocess.run(
        [str(KNOWSUM), "store", "info"], cwd=folder, env=env, capture_output=True, text=True, check=True
    )
    return next(line for line in done.stdout.splitlines() if line.startswith("responses:"))


def run_block(block: Block, folder: Path, env: dict[str, str]) -> None:
    """Run every command of ``block`` in ``folder``; each must exit as the marker says (0 unless
    ``exit N``) and print what the page shows; a ``responses`` block must ask the model nothing."""
    why = _needs(block.mark)
    if why is not None:
        pytest.skip(why)
    responses, code = _mark(block.mark, "responses "), int(_mark(block.mark, "exit ") or 0)
    before = ""
    if responses is not None:
        store = Path(env["KNOWSUM_HOME"]) / "store.sqlite"
        for old in store.parent.glob("store.sqlite*"):
            old.unlink()
        shutil.copyfile(ROOT / responses, store)
        before = _stored(env, folder)
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
        assert done.returncode == code, f"{command.where}: exit {done.returncode}\n{done.stdout}"
        assert pattern(command.expected).fullmatch(actual), (
            f"{command.where}: `{shlex.join(command.argv)}` printed\n{actual}\nthe page shows\n{shown}"
        )
    if responses is not None:
        assert _stored(env, folder) == before, f"{block.where}: the model was asked (the store was {before})"
