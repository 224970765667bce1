"""Every estimator name ``knowsum estimate --estimator`` accepts, walked from ``knowsum.stats.ESTIMATORS``:
the page and ``--json`` both print it, and its prediction interval is formed for what it estimates
(Chao1's ``t = ∞`` interval only for Chao1; preseq and Pitman–Yor add the future sample's variance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.stats import ESTIMATORS
from knowsum.stats.predict_unseen import CHAO1_METHOD, FUTURE_TEXT, NONLINEAR_METHOD, PROCESS_METHOD

FISHER = Path(__file__).resolve().parents[2] / "examples" / "fisher_butterflies.tsv"


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_each_estimator_prints_its_page_and_an_interval_of_what_it_estimates(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    t = "2" if name.startswith("osw") else "1"
    args = ["estimate", str(FISHER), "--estimator", name, "--t", t, "--n-bootstrap", "100"]
    assert main(args) == 0
    page, err = capsys.readouterr()
    assert f"estimator  {name}  (" in page and "Traceback" not in err
    assert main([*args, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    method = record["prediction_method"]
    if name == "chao1":
        assert method == CHAO1_METHOD and record["prediction_interval"] == record["interval"]
        return
    assert method != CHAO1_METHOD and "t = ∞" not in (record["own_t_reason"] or "")
    lo, hi = record["prediction_interval"]
    clo, chi = record["interval"]
    # the future sample's randomness widens the confidence interval of the same Û
    assert lo < record["n_unseen"] < hi and hi - lo > chi - clo
    if name in ("preseq", "pitman-yor"):
        # a table of counts has no queries, so the future's variance is Poisson (D̂ = 1), named
        poisson = NONLINEAR_METHOD.replace(FUTURE_TEXT, "Û (Poisson U: a sample without queries)")
        assert method == (PROCESS_METHOD if name == "pitman-yor" else poisson)
        assert record["own_t_check"] is None and "not linear" in record["own_t_reason"]
    else:
        assert record["own_t_check"]["t"] == float(t)


def test_without_a_bootstrap_a_nonlinear_estimators_prediction_interval_is_na_and_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["estimate", str(FISHER), "--estimator", "pitman-yor", "--t", "1", "--n-bootstrap", "0", "--json"]
    assert main(args) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["prediction_interval"] is None and "bootstrap" in record["prediction_reason"]
