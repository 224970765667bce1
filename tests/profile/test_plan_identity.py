"""A plan file is known by what it asks, not by its file name; a profile it would replace survives a
model that answers nothing.

Two different plans both named ``c.toml`` once gave profiles that ``profile compare`` put side by side
as ``mock (c)`` with no word, and the second one's run, default ``--out``, quietly replaced the first
one's profile. A plan's budget is now ``c#<hash of its tables>``: the two are two budgets, refused side
by side and refused in one folder. And ``profile run --overwrite`` on a model that cannot be reached
once emptied the finished profile it was to replace before anything was answered.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.profile import load_budget, load_profile
from tests.conftest import FIXTURES

pytestmark = pytest.mark.realdata

PLAN = """\
description = "{description}"

[census]
tasks = ["diseases"]
criteria = ["relaxed"]
queries = {queries}
answers = 5
n_bootstrap = 20
"""


def _plan(folder: Path, queries: int, description: str = "mine") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "c.toml"
    path.write_text(PLAN.format(queries=queries, description=description), encoding="utf-8")
    return path


def _run(*args: str | Path) -> int:
    return main(["profile", "run", "-m", "mock", *(str(a) for a in args)])


def _queries(out: Path) -> int:
    return load_profile(out).plan.requests


def test_a_plan_is_named_by_its_stem_and_the_hash_of_its_tables(tmp_path: Path) -> None:
    two, six = _plan(tmp_path / "a", 2), _plan(tmp_path / "b", 6)
    assert re.fullmatch(r"c#[0-9a-f]{8}", load_budget(plan=two).name)
    assert load_budget(plan=two).name != load_budget(plan=six).name
    # the same tables elsewhere, reformatted, with another description: the same budget
    same = tmp_path / "c" / "c.toml"
    same.parent.mkdir()
    same.write_text(PLAN.format(queries=2, description="other").replace(" = ", "="), encoding="utf-8")
    assert load_budget(plan=same).name == load_budget(plan=two).name
    assert load_profile(FIXTURES / "profile" / "v2_profile.json").budget == "tiny"  # old files load


def test_two_plans_of_one_name_are_two_budgets_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    store = tmp_path / "s.sqlite"
    six, two = _plan(tmp_path / "six", 6), _plan(tmp_path / "two", 2)
    assert _run("--plan", six, "--store", store) == 0
    assert _run("--plan", two, "--store", store) == 0
    folders = sorted((tmp_path / "profile-runs").iterdir())
    # the default folders stay readable (profile-runs/c-<hash>-mock), one per plan: none replaced
    assert [re.fullmatch(r"c-[0-9a-f]{8}-mock", f.name) is not None for f in folders] == [True, True]
    assert sorted(_queries(f) for f in folders) == [2, 6]
    capsys.readouterr()
    assert main(["profile", "compare", *(str(f) for f in folders)]) == 2
    err = capsys.readouterr().err
    assert "budget" in err and err.count("\n") == 1, err
    # one plan's run into the other's folder is refused, the profile in it untouched
    (six_out,) = [f for f in folders if _queries(f) == 6]
    before = (six_out / "profile.json").read_bytes()
    assert _run("--plan", two, "--store", store, "--out", six_out) == 2
    err = capsys.readouterr().err
    (error,) = [line for line in err.splitlines() if line.startswith("knowsum: error")]
    assert "holds a profile of mock at budget c#" in error and "--overwrite" in error, err
    assert (six_out / "profile.json").read_bytes() == before


def _refused_port() -> int:
    """A loopback port nothing listens on (bound, then closed): connecting is refused at once."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_overwrite_with_an_unreachable_model_keeps_the_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, out, store = _plan(tmp_path, 2), tmp_path / "cmpA", tmp_path / "s.sqlite"
    assert _run("--plan", plan, "--store", store, "--out", out) == 0
    before = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    url = f"http://127.0.0.1:{_refused_port()}/v1"
    capsys.readouterr()
    argv = ["profile", "run", "-m", "openai:foo", "--base-url", url, "--plan", str(plan)]
    assert main([*argv, "--store", str(store), "--out", str(out), "--overwrite"]) == 5
    err = capsys.readouterr().err
    assert "cannot reach" in err and f"{out} keeps its profile" in err, err
    after = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before  # the claim marker too: the folder is still the mock's profile
    assert json.loads((out / ".knowsum-run.json").read_text())["model"] == "mock"
    # a model that answers does replace it
    three = _plan(tmp_path / "b", 3)
    assert _run("--plan", three, "--store", store, "--out", out, "--overwrite") == 0
    assert _queries(out) == 3
