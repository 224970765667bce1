"""The prediction intervals and the own-t sentence as the commands print them, end to end through
``main([...])``: ``census score`` (result.json's headline vs its curve, with and without a bootstrap;
the own-t row past 10,000 %), ``census run`` with an OSW estimator, and ``knowsum estimate`` on a
prevalence table whose coverage is 99.5 %."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main

STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study"


def _score(tmp: Path, *args: str) -> dict:  # type: ignore[type-arg]
    out = tmp / "run"
    assert main(["census", "score", str(STUDY / "synthetic.jsonl"), "--out", str(out), *args]) == 0
    return json.loads((out / "result.json").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("boot", [[], ["--n-bootstrap", "0"]])
def test_census_curve_at_its_t_prints_the_headline_prediction_interval(
    tmp_path: Path, tmp_home: Path, boot: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    record = _score(tmp_path, *boot)
    at_t = next(p for p in record["curve"] if p["t"] == record["t"])
    assert [at_t["unseen_pred_lower"], at_t["unseen_pred_upper"]] == pytest.approx(
        record["prediction_interval"], rel=1e-12
    )
    for p in record["curve"]:  # never narrower than the confidence band of the same t
        if p["unseen_lower"] is not None:
            assert p["unseen_pred_lower"] <= p["unseen_lower"] and p["unseen_pred_upper"] >= p["unseen_upper"]
    assert "plug-in interval" in record["own_t_check"]["message"]


def test_census_own_t_row_bounds_an_error_past_10000_percent(
    tmp_path: Path, tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = tmp_path / "small20.jsonl"
    small.write_text("".join((STUDY / "diseases-0.5b.jsonl").read_text().splitlines(True)[:20]))
    args = ["census", "score", str(small), "--t", "1e5", "--k", "30", "--out", str(tmp_path / "big")]
    assert main(args) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("error at own t"))
    assert "over 10,000% of N_tot" in row and "1580" not in row


def test_census_run_with_an_osw_estimator_estimates_its_curve_above_t_1(
    tmp_path: Path, tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "osw.toml"
    config.write_text(
        'task = "custom"\nprompt = "a; b; c; {n} cakes"\nseparator = ";"\nestimator = "osw-binomial"\n'
    )
    out = tmp_path / "osw"
    args = ["census", "run", "--config", str(config), "-m", "mock", "--queries", "30", "--out", str(out)]
    assert main([*args, "--store", str(tmp_path / "s.sqlite")]) == 0
    record = json.loads((out / "result.json").read_text())
    assert record["estimator"] == "osw-binomial" and record["curve"][-1]["t"] == 100.0
    assert all(p["t"] > 1 for p in record["curve"]) and all(h["t"] > 1 for h in record["heldout"])


def test_estimate_never_prints_a_coverage_of_995_as_100(
    tmp_path: Path, tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "p.tsv"
    table.write_text("1\t5\n2\t2\n")
    assert main(["estimate", str(table), "--format", "prevalence", "--k", "1", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)["own_t_check"]
    assert check["coverage"] == pytest.approx(0.995) and check["unavailable"] == pytest.approx(0.005)
    assert "covers 99.5%" in check["message"] and "n/a in 0.5% of them" in check["message"]
    assert "covers 100%" not in check["message"]
