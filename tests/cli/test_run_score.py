"""``knowsum run INSTRUMENT`` through ``main([...])`` on knowsum's census and on a plug-in (the yes
instrument of tests/instrument/_yes.py): its part of a budget or of a plan, each step a run folder
OUT/STEP/ exactly as a profile writes it, its card rows; and the one-line refusals (an unknown
instrument, a plan without its table, a budget it ships no table of). ``knowsum score`` on inspect
logs is tested beside the other inspect tests (tests/harness/test_inspect_generic.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.cli import main
from tests.census.conftest import kb_home
from tests.instrument._registered import yes_plug_in

__all__ = ["kb_home", "yes_plug_in"]

CENSUS_PLAN = """\
description = "the census part only"
[census]
tasks = ["diseases"]
criteria = ["relaxed", "strict"]
queries = 3
answers = 5
n_bootstrap = 50
"""


def _plan(tmp_path: Path, text: str) -> str:
    path = tmp_path / "plan.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_run_census_alone_writes_each_step_as_a_profile_does(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "alone"
    args = ["run", "census", "-m", "mock", "--plan", _plan(tmp_path, CENSUS_PLAN), "--store"]
    assert main([*args, str(tmp_path / "s.sqlite"), "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert shown["instrument"] == "census"
    assert [r["name"] for r in shown["runs"]] == ["census-diseases-relaxed", "census-diseases-strict"]
    for run in shown["runs"]:
        assert run["out_dir"] == str(out / run["name"]) and Path(run["report"]).is_file()
        record = load_result(Path(run["out_dir"]))
        assert record.task == "diseases" and record.n_queries == 3 and record.model == "mock"
        assert run["measures"] and all(m["key"].startswith("census/diseases/") for m in run["measures"])
    assert captured.err.count("report: ") == 2  # one line per run (stderr under --json)
    # a rerun asks nothing more and rewrites the same folders (each its own run)
    assert main([*args, str(tmp_path / "s.sqlite"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "census: " in text and f"report: {out / 'census-diseases-strict' / 'report.html'}" in text


def test_run_a_plug_in_from_a_plan_and_its_default_folder(
    yes_plug_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    plan = _plan(tmp_path, "[yes]\nqueries = 3\n")
    assert main(["run", "yes", "-m", "mock", "--plan", plan, "--store", "s.sqlite"]) == 0
    out = capsys.readouterr().out
    assert "yes: share of yes" in out and "0.0%" in out  # the mock echoes the question: no "yes" reply
    record = json.loads((tmp_path / "yes-runs/plan-mock/yes/result.json").read_text(encoding="utf-8"))
    assert record["kind"] == "yes" and record["n"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "cencus"], "unknown instrument 'cencus'; known: census, genebench, recall, yes"),
        (["score", "cencus", "--inspect-log", "x.eval"], "unknown instrument 'cencus'; known: census,"),
        (["run", "yes"], "yes ships no smoke budget (budgets/smoke.toml of its package): give --plan FILE"),
        (["run", "yes", "--plan", "PLAN"], "has no [yes] table: add one"),
        (["run", "yes", "--plan", "PLAN", "--budget", "quick"], "give --budget quick or --plan"),
    ],
)
def test_refusals_are_one_line_with_exit_2(
    yes_plug_in: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    plan = _plan(tmp_path, '[census]\ntasks = ["diseases"]\n')
    argv = [plan if a == "PLAN" else a for a in args]
    assert main([*argv, "-m", "mock"] if args[0] == "run" else argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s.sqlite").exists()
