"""``knowsum census plan``: sizing a census from a pilot, end to end through ``main([...])``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census._plan import MIN_COVERAGE, pilot_sample, plan_census
from knowsum.cli import main

STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study" / "theorems-0.5b.jsonl"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_plan_of_the_theorem_fixture_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["census", "plan", str(STUDY), "--t", "1", "--error", "0.2", "--json"], capsys)
    plan = json.loads(out)
    assert code == 0 and plan["pilot_queries"] == 1000 and plan["t"] == 1.0
    first = plan["rows"][0]
    assert first["n_queries"] == 1000
    # at t = 1 the 1,000-query census is within 20 % of N_tot and its prediction interval covers
    assert plan["recommended_queries"] == 1000 and first["error_total"] <= 0.2
    assert first["coverage"] >= MIN_COVERAGE
    assert first["noise_floor"] == pytest.approx(first["mean_new"] ** -0.5)


def test_plan_doubles_until_the_target_is_met_and_prints_a_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    prev = pilot_sample(STUDY)
    plan = plan_census(prev, 3.0, 0.12, replicates=50, seed=1)
    sizes = [r.n_queries for r in plan.rows]
    assert sizes == [1000 * 2**i for i in range(len(sizes))]
    if plan.n_queries is not None:
        assert plan.rows[-1].passes(0.12) and not any(r.passes(0.12) for r in plan.rows[:-1])
    code, out, _ = _run(["census", "plan", str(STUDY), "--t", "3", "--error", "0.2"], capsys)
    assert code == 0 and "queries Q" in out and "PI coverage" in out and "noise floor" in out
    assert "plan: 1,000 queries" in out


def test_a_pilot_without_doubletons_gets_one_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "pilot.tsv"
    items.write_text("Q1\ta\nQ1\tb\nQ2\tc\nQ3\td\n", encoding="utf-8")
    code, out, err = _run(["census", "plan", str(items), "--t", "3"], capsys)
    assert code != 0 and out == ""
    assert "cannot fit a community to this sample: no doubletons" in err and err.count("\n") == 1


def test_a_run_folder_is_a_pilot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["census", "score", str(STUDY), "--out", str(run), "--n-bootstrap", "0"]) == 0
    capsys.readouterr()
    from_run, from_file = pilot_sample(run), pilot_sample(STUDY)
    assert (from_run.n_queries, from_run.n_seen) == (from_file.n_queries, from_file.n_seen) == (1000, 106)
    assert sorted(from_run.counts.tolist()) == sorted(from_file.counts.tolist())
