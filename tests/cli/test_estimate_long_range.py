"""`knowsum estimate --estimator preseq|pitman-yor` end to end, against preseq's own output
(tests/fixtures/preseq, provenance in its README) and the Pitman–Yor optimiser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.stats import pitman_yor as py

ROOT = Path(__file__).resolve().parents[2]
FISHER = ROOT / "examples" / "fisher_butterflies.tsv"
PRESEQ = ROOT / "tests" / "fixtures" / "preseq"


def _estimate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["estimate", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _preseq_expected(name: str, reads: float) -> float:
    rows = (PRESEQ / name).read_text().splitlines()[1:]
    return next(float(b) for a, b in (r.split("\t") for r in rows) if float(a) == reads)


@pytest.mark.parametrize("t", [1, 10, 100])
def test_preseq_estimate_matches_lc_extrap(capsys: pytest.CaptureFixture[str], t: int) -> None:
    code, out, err = _estimate(
        capsys, str(FISHER), "--estimator", "preseq", "--t", str(t), "--n-bootstrap", "200", "--json"
    )
    assert code == 0, err
    record = json.loads(out)
    expected = _preseq_expected("fisher.quick.coarse.tsv", 3306.0 * (1 + t))  # N_seen + Û(t), one decimal
    assert record["n_total"] == pytest.approx(expected, abs=0.05 + 1e-9)
    assert record["parameters"] == {"degree": 16, "max_terms": 24}
    assert record["estimator"] == "preseq" and record["k"] is None
    low, high = record["interval"]
    assert low < record["n_unseen"] < high


def test_preseq_without_a_stable_approximant_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "theorems.tsv"
    table.write_text("s\tn_s\n" + (PRESEQ / "theorems.hist").read_text())
    code, out, err = _estimate(capsys, str(table), "--estimator", "preseq", "--t", "10")
    assert code != 0 and out == ""
    assert "preseq gives no estimate on this sample: no stable rational function" in err


def test_pitman_yor_estimate_is_the_fitted_predictive(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    table = tmp_path / "theorems.tsv"
    table.write_text("s\tn_s\n" + (PRESEQ / "theorems.hist").read_text())
    code, out, err = _estimate(
        capsys, str(table), "--estimator", "pitman-yor", "--t", "100", "--n-bootstrap", "200", "--json"
    )
    assert code == 0, err
    record = json.loads(out)
    hist = [0.0] * 267
    for line in (PRESEQ / "theorems.hist").read_text().splitlines():
        s, f = line.split()
        hist[int(s)] = float(f)
    found = py.fit(hist)
    assert (found.n, found.j) == (935, 106)
    params = record["parameters"]
    assert params["sigma"] == pytest.approx(found.sigma) and params["theta"] == pytest.approx(found.theta)
    expected = float(py.expected_new(found.sigma, found.theta, 935, 106, 93_500))
    assert record["n_unseen"] == pytest.approx(expected)
    assert params["predictive_sd"] > 0 and record["interval"] is not None


def test_pitman_yor_on_all_singletons_says_why(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    table = tmp_path / "singletons.tsv"
    table.write_text("s\tn_s\n1\t40\n")
    code, _, err = _estimate(capsys, str(table), "--estimator", "pitman-yor", "--t", "1")
    assert code != 0 and "every item seen once" in err
