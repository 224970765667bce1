"""``N̂_tot falls as t grows``: a census whose ``N̂_tot`` at its own ``t`` lies below the same
estimator's ``N̂_tot`` at a smaller ``t`` of its curve says so beside ``N̂_tot``.

A longer census cannot show fewer items, so such a fall is a contradiction between two estimates of
the same run (the smoothed Good–Turing weights alternate in sign far beyond the data); it used to be
visible only in the curve, while ``census compare`` ranked the run on the lower figure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census._estimate import FALLS, falling_curve
from knowsum.census.record import CurvePoint
from knowsum.cli import main

STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study"


def _curve(totals: dict[float, float], seen: float = 100.0) -> list[CurvePoint]:
    return [CurvePoint(t=t, unseen=n - seen, n_total=n, skr=seen / n) for t, n in totals.items()]


def test_the_rule_flags_a_fall_beyond_one_percent_and_one_item() -> None:
    assert falling_curve(_curve({0.5: 110, 1: 120, 10: 150, 100: 180}), 100) is None  # rising
    assert falling_curve(_curve({0.5: 110, 10: 150, 100: 150}), 100) is None  # flat
    assert falling_curve(_curve({0.5: 110, 10: 150, 100: 148.6}), 100) is None  # within 1 % of 150
    assert falling_curve(_curve({0.5: 101.5, 100: 100.6}), 100) is None  # within one item
    assert falling_curve(_curve({100: 90.0}, 50), 100) is None  # no smaller t to compare with
    found = falling_curve(_curve({0.5: 110, 4.33: 156.0, 100: 127.3}), 100)
    assert found is not None and found.kind == "curve-falls" and found.mark == FALLS
    assert found.figure == "N̂_tot"
    assert found.message.startswith(f"{FALLS}: 156.0 at t = 4.33 on this run's curve, 127.3 at t = 100.")


def test_a_census_whose_curve_falls_says_so_and_one_whose_curve_rises_does_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The theorem fixture's N̂_tot peaks at 156.0 (t = 4.33) and ends at 127.3 (t = 100); the disease
    fixture's rises to its t: the caveat is on the first only, in the table and the record."""
    for name, falls in (("theorems-0.5b", True), ("diseases-0.5b", False)):
        out = tmp_path / name
        assert main(["census", "score", str(STUDY / f"{name}.jsonl"), "--out", str(out)]) == 0
        text = capsys.readouterr().out
        record = json.loads((out / "result.json").read_text())
        curve = {p["t"]: p["n_total"] for p in record["curve"]}
        fell = max(n for t, n in curve.items() if t < record["t"]) > curve[record["t"]] + 1
        assert fell is falls and (FALLS in text) is falls
        kinds = [c["kind"] for c in record["caveats"]]
        assert ("curve-falls" in kinds) is falls
