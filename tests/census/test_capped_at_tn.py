"""Û(t) never exceeds t·n: t·n further observations show at most t·n new items.

A deep truncation k at a large t can give the smoothed estimator values orders of magnitude above
it (k = 30 on the disease census at t = 100: 1.6·10⁷ against t·n = 47,700). Every surface reports
min(Û, t·n) with the raw value kept and the caveat "Û capped at t·n", and every interval — the
confidence and prediction intervals of the headline and of each curve point — ends at or below it.
Data: tests/fixtures/census/study/diseases-0.5b.jsonl (477 verified mentions), Fisher's butterflies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main

ROOT = Path(__file__).resolve().parents[2]
DISEASES = ROOT / "tests" / "fixtures" / "census" / "study" / "diseases-0.5b.jsonl"
FISHER = ROOT / "examples" / "fisher_butterflies.tsv"


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main([*args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_a_census_reports_at_most_t_n(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "k30"
    _run(capsys, "census", "score", str(DISEASES), "--k", "30", "--n-bootstrap", "200", "--out", str(out))
    record = json.loads((out / "result.json").read_text(encoding="utf-8"))
    ceiling = record["t"] * record["n_observations"]
    assert ceiling == 47_700 and record["n_unseen_raw"] > 100 * ceiling
    assert record["n_unseen"] == ceiling and record["n_total"] == record["n_seen"] + ceiling
    assert "capped" in [c["kind"] for c in record["caveats"]]
    for key in ("interval", "prediction_interval"):
        assert record[key][1] <= ceiling
    for p in record["curve"]:
        top = p["t"] * record["n_observations"]
        assert p["unseen"] == min(max(p["unseen_raw"], 0.0), top)
        assert p["unseen_upper"] <= top and p["unseen_pred_upper"] <= top
    assert any(p["unseen_raw"] > p["t"] * record["n_observations"] for p in record["curve"])


def test_estimate_reports_at_most_t_n(capsys: pytest.CaptureFixture[str]) -> None:
    found = _run(capsys, "estimate", str(FISHER), "--k", "50", "--n-bootstrap", "200")
    ceiling = found["t"] * found["n_observations"]
    assert found["n_unseen_raw"] > ceiling == found["n_unseen"]
    assert found["interval"][1] <= ceiling and found["prediction_interval"][1] <= ceiling
    assert "Û capped at t·n" in [c["mark"] for c in found["caveats"]]
    assert found["skr"] == pytest.approx(found["n_seen"] / (found["n_seen"] + ceiling))
