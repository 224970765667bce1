"""`knowsum estimate` end to end: iNEXT's q = 0 extrapolation at --at-size/--at-coverage and along --curve
carries a prediction interval beside its confidence interval (text and --json), n/a with the reason
where none can be formed; the spider/ciliates reference values are unchanged
(tests/fixtures/estimate_reference/README.md)."""

from __future__ import annotations

import pytest

from knowsum.stats.q0_prediction import Q0_METHOD
from tests.estimate.test_richness_cli import CILIATES, GIRDLED
from tests.estimate.test_richness_cli import run as _run
from tests.estimate.test_richness_cli import run_json as _json


def test_at_size_json_names_the_prediction_interval(capsys: pytest.CaptureFixture[str]) -> None:
    args = (GIRDLED, "--estimator", "chao1-classic", "--at-size", "84", "--at-size", "336")
    record = _json(capsys, *args, "--at-coverage", "0.95", "--n-bootstrap", "200")
    assert record["n_total"] == pytest.approx(43.893, abs=5e-4)  # SpadeR/iNEXT: unchanged
    assert record["interval"] == pytest.approx([30.511, 96.971], abs=5e-4)
    rare, ext = record["at_size"]
    assert ext["q0"] == pytest.approx(34.731, abs=5e-4)  # iNEXT vignette
    s_obs = record["s_obs"]
    lo, hi = ext["prediction_interval_total"]
    assert ext["prediction_interval"] == pytest.approx([lo - s_obs, hi - s_obs])
    ci_lo, ci_hi = ext["q0_interval"]
    assert s_obs <= lo <= max(ci_lo, s_obs) and ci_hi <= hi and lo < ext["q0"] < hi
    assert ext["prediction_reason"] is None and ext["prediction_method"] == Q0_METHOD
    assert rare["prediction_interval"] is None and rare["prediction_interval_total"] is None
    assert rare["prediction_reason"].startswith("m < n interpolates") and rare["q0_interval"] is not None
    at_c = record["at_coverage"]
    assert at_c["q0"] == pytest.approx(31.318, abs=5e-4) and at_c["prediction_interval_total"] is not None


def test_curve_json_has_a_prediction_interval_at_every_extrapolated_size(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = _json(capsys, GIRDLED, "--estimator", "ace", "--curve", "--n-bootstrap", "100")
    curve = record["curve"]
    assert curve["prediction_method"] == Q0_METHOD
    s_obs = record["s_obs"]
    for name in ("size_based", "coverage_based"):
        part = curve[name]
        sizes = part["size"]
        assert len(part["prediction_interval_total"]) == len(sizes) == len(part["prediction_reason"])
        for j, m in enumerate(sizes):
            pi, reason = part["prediction_interval_total"][j], part["prediction_reason"][j]
            if m <= record["size"]:
                assert pi is None and reason is not None and reason.startswith("m ")
                continue
            assert reason is None
            q0, ci_lo, ci_hi = part["diversity"][0][j], part["lower"][0][j], part["upper"][0][j]
            assert pi[0] <= max(ci_lo, s_obs) + 1e-9 and pi[1] >= ci_hi - 1e-9 and pi[0] <= q0 <= pi[1]
            assert part["prediction_interval"][j] == pytest.approx([pi[0] - s_obs, pi[1] - s_obs])


def test_text_prints_both_intervals_and_na_reasons(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, GIRDLED, "--estimator", "ace", "--at-size", "84", "--at-size", "336")
    assert code == 0, err
    assert "q0 95% confidence interval [" in out
    assert "q0 95% prediction interval (what m − n = 168.00 further observations show): N_tot [" in out
    assert "q0 95% prediction interval n/a: m < n interpolates" in out
    code, out, err = _run(capsys, GIRDLED, "--estimator", "ace", "--at-size", "336", "--n-bootstrap", "0")
    assert code == 0, err
    assert "prediction interval n/a: no bootstrap replicates" in out


def test_incidence_extrapolation_in_units(capsys: pytest.CaptureFixture[str]) -> None:
    record = _json(capsys, CILIATES, "--count", "incidence", "--at-size", "38", "--n-bootstrap", "100")
    assert record["interval"] == pytest.approx([290.496, 419.928], abs=5e-4)  # Chao2, unchanged
    point = record["at_size"]
    lo, hi = point["prediction_interval_total"]
    assert record["s_obs"] <= lo < point["q0"] < hi
    code, out, _ = _run(capsys, CILIATES, "--count", "incidence", "--at-size", "10")
    assert code == 0 and "prediction interval n/a: m < T interpolates" in out
