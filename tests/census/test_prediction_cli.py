"""The prediction interval and the simulated error at the census's own t on every census surface:
``census score`` (table, ``--json``, result.json, page) and ``knowsum estimate --json``, end to end
through ``main([...])``; the caveat beside N̂_tot; census records written before both still load."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.census.page import summary_data, summary_table
from knowsum.cli import main

ROOT = Path(__file__).resolve().parents[2]
STUDY = ROOT / "tests" / "fixtures" / "census" / "study" / "theorems-0.5b.jsonl"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    out, _ = capsys.readouterr()
    return code, out


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``census score`` of the theorem fixture (1,000 responses, 935 mentions, 106 items) at t = 3."""
    out = tmp_path_factory.mktemp("pi") / "run"
    args = ["census", "score", str(STUDY), "--out", str(out), "--t", "3", "--n-bootstrap", "200"]
    assert main(args) == 0
    return out


def test_census_record_holds_both_intervals_and_the_own_t_check(scored: Path) -> None:
    record = json.loads((scored / "result.json").read_text())
    lo, hi = record["prediction_interval"]
    clo, chi = record["interval"]
    assert 0 < lo < record["n_unseen"] < hi and clo < record["n_unseen"] < chi
    tlo, thi = record["prediction_interval_total"]
    assert (tlo, thi) == pytest.approx((record["n_seen"] + lo, record["n_seen"] + hi))
    assert record["prediction_reason"] is None and "Poisson" in record["prediction_method"]
    check = record["own_t_check"]
    assert check["t"] == 3.0 and check["replicates"] == 200 and check["n_queries"] == 1000
    assert check["estimator"] == "et" and check["k"] == record["k"]  # the census's own k, kept
    assert 0 < check["error_total"] < check["error"] and 0 <= check["coverage"] <= 1
    # the fitted community: the 106 items seen and Chao1's undetected ones
    assert check["community_size"] == record["n_seen"] + check["undetected"] and check["undetected"] > 0
    # every curve point carries the prediction band of a linear estimator
    at_t = next(p for p in record["curve"] if p["t"] == 3.0)
    assert at_t["unseen_pred_lower"] < at_t["unseen"] < at_t["unseen_pred_upper"]


def test_the_caveat_beside_n_tot_states_the_simulated_error_at_own_t(scored: Path) -> None:
    result = load_result(scored)
    own = [c for c in result.caveats if c.kind == "own-t-error"]
    assert len(own) == 1 and own[0].figure == "N̂_tot"
    check = result.own_t_check
    assert check is not None and check.error_total is not None
    message = own[0].message
    assert message.startswith(
        "simulated error at own t: at t = 3 from this census: "
        f"expected error {check.error_total:.0%} of N_tot"
    )
    assert f"prediction interval covers {check.coverage:.0%}" in message
    assert "Chao1's lower bound, so at large t the simulated error is optimistic" in message
    # the back-test's verdict is no longer attached to N̂_tot: the horizon is its own row
    assert "beyond-horizon" not in {c.kind for c in result.caveats}
    assert result.horizon is not None


def test_census_table_json_and_page_show_both_intervals(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = load_result(scored)
    rows = {line.split("  ")[0]: line for line in summary_table(result).splitlines()}
    assert result.prediction_interval_total is not None
    labels = ["U(t) 95% confidence interval (lognormal)", "U(t) 95% prediction interval"]
    labels += ["N_tot confidence interval", "N_tot prediction interval", "error at own t (simulated)"]
    for label in labels:
        assert label in rows, label
    assert "prediction interval covers" in rows["error at own t (simulated)"]
    data = summary_data(result)
    assert data["prediction_interval_total"] == list(result.prediction_interval_total)
    assert data["own_t_check"]["coverage"] == result.own_t_check.coverage  # type: ignore[union-attr]
    html = (scored / "report.html").read_text(encoding="utf-8")
    assert "prediction interval" in html and "simulated error at own t" in html


def test_estimate_json_names_the_prediction_interval(capsys: pytest.CaptureFixture[str]) -> None:
    fisher = ROOT / "examples" / "fisher_butterflies.tsv"
    code, out = _run(["estimate", str(fisher), "--t", "2", "--json", "--n-bootstrap", "200"], capsys)
    record = json.loads(out)
    assert code == 0 and record["interval"] is not None
    lo, hi = record["prediction_interval"]
    assert lo < record["n_unseen"] < hi
    assert record["prediction_interval_total"] == pytest.approx(
        [record["n_seen"] + lo, record["n_seen"] + hi]
    )
    assert record["own_t_check"]["t"] == 2.0 and record["own_t_reason"] is None
    # Chao1 estimates t = ∞: no future sample is random there, its prediction interval is its
    # confidence interval
    code, out = _run(
        ["estimate", str(fisher), "--estimator", "chao1", "--json", "--n-bootstrap", "200"], capsys
    )
    chao = json.loads(out)
    assert chao["prediction_interval"] == chao["interval"] and "t = ∞" in chao["prediction_method"]
    assert chao["own_t_check"] is None and "t = ∞" in chao["own_t_reason"]


@pytest.mark.parametrize("name", ["result_v1.json", "result_v3.json", "result_v5.json"])
def test_records_written_before_prediction_intervals_still_load(name: str) -> None:
    result = load_result(FIXTURES / name)
    assert result.prediction_interval is None and result.own_t_check is None
    data = summary_data(result)
    assert data["prediction_interval"] is None and data["own_t_text"] == "–"


def test_census_score_json_names_the_prediction_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["census", "score", str(STUDY), "--out", str(tmp_path / "run"), "--t", "1", "--json"]
    code, out = _run([*args, "--n-bootstrap", "50"], capsys)
    data = json.loads(out)
    assert code == 0 and data["interval"] is not None and data["interval_total"] is not None
    lo, hi = data["prediction_interval_total"]
    assert lo < data["n_total"] < hi
    assert data["prediction_interval"] == pytest.approx([lo - data["n_seen"], hi - data["n_seen"]])
    assert data["own_t_check"]["t"] == 1.0 and data["own_t_text"].startswith(
        f"{data['own_t_check']['error_total']:.0%} of N_tot at t = 1"
    )


def _shape(message: str) -> str:
    """The sentence with its figures and its nouns for one replicate taken out."""
    text = re.sub(r"; n/a in [\d.]+% of them, each a miss", "", message)  # only where some are n/a
    text = re.sub(r"[+-]?\d[\d,.]*%?", "#", text)
    for word, noun in (
        ("censuses", "WHOLES"),
        ("samples", "WHOLES"),
        ("census", "WHOLE"),
        ("sample", "WHOLE"),
    ):
        text = text.replace(word, noun)
    return text.replace("observations", "UNIT").replace("queries", "UNIT")


def test_estimate_states_the_own_t_check_in_the_census_caveat_words(
    scored: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    census = load_result(scored).own_t_check
    assert census is not None
    fisher = ROOT / "examples" / "fisher_butterflies.tsv"
    args = ["estimate", str(fisher), "--t", "1", "--n-bootstrap", "50"]
    code, text = _run(args, capsys)
    code_json, out = _run([*args, "--json"], capsys)
    check = json.loads(out)["own_t_check"]
    assert code == code_json == 0
    # the page prints the JSON's sentence, which is the census caveat's sentence with "sample"
    assert f"  simulated at own t: {check['message']}\n" in text
    assert check["message"].startswith(
        f"at t = 1 from this sample: expected error {check['error_total']:.0%}"
    )
    assert "200 samples of 3,306 observations" in check["message"]
    assert _shape(check["message"]) == _shape(census.message)
    # one object: the same keys in estimate's JSON and the census's result.json
    stored = json.loads((scored / "result.json").read_text())["own_t_check"]
    assert set(check) == set(stored) and stored["bias_items"] is not None and check["seed"] == 0
    assert "k = 6 kept" in check["message"] and f"k = {census.k} kept" in census.message
    assert f"{census.replicates} censuses of 1,000 queries" in census.message
    # a Monte Carlo s.e. below 1 % keeps a decimal rather than reading ±0%
    assert "±0% MC" not in check["message"] and "(±0.1% MC;" in check["message"]
    # an estimator without a truncation level claims none was kept
    code, out = _run([*args, "--json", "--estimator", "good-toulmin"], capsys)
    message = json.loads(out)["own_t_check"]["message"]
    assert code == 0 and "k =" not in message and message.endswith("simulated error is optimistic)")
