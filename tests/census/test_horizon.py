"""The trust horizon as a test: one seed scheme, the t the splits reached, exact censuses, stability."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from knowsum.census import _horizon, backtest_run, load_result, run_prevalence, trust_horizon
from knowsum.census._backtest import run_splits
from knowsum.census._horizon import horizon_caveat, horizon_from_rows
from knowsum.census.backtest_record import Backtest, BacktestRow
from knowsum.cli import main
from knowsum.stats import Prevalence, StatsWarning
from knowsum.stats import foresee as fs

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _zipf(n_queries: int, seed: int = 3, items: int = 2000, per_query: int = 12) -> Prevalence:
    """The docs' synthetic census: ``n_queries`` queries of 12 items ∝ 1/rank^1.1 from 2,000 items."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, items + 1) ** 1.1
    keys, queries = [], []
    for q in range(n_queries):
        for x in rng.choice(items, per_query, p=p / p.sum()):
            keys.append(f"i{x}")
            queries.append(q)
    return Prevalence.from_items(keys, queries=queries)


def backtest_rows(prev: Prevalence, t: float) -> list[BacktestRow]:
    """One block of sgt-k6 splits at ``t``, scored (no resamples)."""
    from knowsum.census._backtest import score_splits

    splits = run_splits(prev, t, {"sgt-k6": fs.PREDICTORS["sgt-k6"]}, 100, 0, seed=0)
    assert not isinstance(splits, str)
    return score_splits(splits)


def _score(tmp_path: Path, queries: list[list[str]], name: str = "run") -> Path:
    items = tmp_path / f"{name}.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    run = tmp_path / name
    assert main(["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20"]) == 0
    return run


def test_a_split_depends_only_on_seed_t_and_its_index() -> None:
    """Split j of t is the same in a short and a long back-test, with or without resamples, and
    whichever block it is drawn in."""
    prev = _zipf(60)
    name = {"sgt-k6": fs.PREDICTORS["sgt-k6"]}
    long = run_splits(prev, 3.0, name, 20, 8, seed=5)
    short = run_splits(prev, 3.0, name, 10, 0, seed=5)
    later = run_splits(prev, 3.0, name, 10, 0, seed=5, start=10)
    assert not isinstance(long, str) and not isinstance(short, str) and not isinstance(later, str)
    both = short.extend(later)
    np.testing.assert_array_equal(long.observed, both.observed)
    np.testing.assert_array_equal(long.point["sgt-k6"], both.point["sgt-k6"])
    # without resamples the prediction interval is the closed form's; with them, the larger of the
    # closed form and the bootstrap variance (as the census headline), so never narrower
    assert (long.pi_lower["sgt-k6"] <= both.pi_lower["sgt-k6"]).all()
    assert (long.pi_upper["sgt-k6"] >= both.pi_upper["sgt-k6"]).all()
    assert (long.pi_upper["sgt-k6"] > both.pi_upper["sgt-k6"]).any()  # the bootstrap is wider somewhere
    assert np.isnan(short.lower["sgt-k6"]).all()  # no resample: no confidence interval
    other = run_splits(prev, 3.0, name, 10, 0, seed=6)
    assert not isinstance(other, str) and not np.array_equal(other.observed, short.observed)


def test_the_horizon_cell_is_the_backtest_cell(tmp_path: Path) -> None:
    """`census score`'s horizon and `census backtest --seed S` print the same numbers for a cell."""
    rng = np.random.default_rng(1)
    p = 1 / np.arange(1, 801) ** 1.1
    run = _score(tmp_path, [[f"i{x}" for x in rng.choice(800, 12, p=p / p.sum())] for _ in range(120)])
    result, prev = run_prevalence(run)
    h = result.horizon
    assert h is not None and h.t_asked is not None and h.splits is not None and h.status == "back-tested"
    assert trust_horizon(prev, "et", result.k, result.t, seed=0) == h
    bt = backtest_run(result, prev, str(run), ts=[h.t_asked], repeats=h.splits, resamples=h.resamples, seed=0)
    row = next(r for r in bt.rows if r.estimator == h.estimator)
    assert row.pi_coverage == h.coverage and row.relative_rmse == h.error
    assert row.bias is not None and row.n_total is not None and row.bias / row.n_total == h.bias
    assert bt.horizon == h  # the back-test reports the census's own horizon


def test_a_census_at_any_k_has_a_horizon_census_backtest_repeats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A census run with ``--k 3`` back-tests sgt-k3 as its trust horizon; ``census backtest
    --estimator sgt-k3 --n-bootstrap 20 --seed 0`` takes that name (was: refused, as not one of the
    listed predictors) and prints the same cell, in the smoothed Good–Turing panel."""
    rng = np.random.default_rng(1)
    p = 1 / np.arange(1, 801) ** 1.1
    items = tmp_path / "k3.jsonl"
    items.write_text(
        "".join(
            json.dumps({"query": f"q{i}", "items": [f"i{x}" for x in rng.choice(800, 12, p=p / p.sum())]})
            + "\n"
            for i in range(120)
        )
    )
    run = tmp_path / "k3"
    assert main(["census", "score", str(items), "--out", str(run), "--k", "3"]) == 0
    h = json.loads((run / "result.json").read_text())["horizon"]
    assert h["estimator"] == "sgt-k3" and h["status"] == "back-tested"
    capsys.readouterr()
    args = ["census", "backtest", str(run), "--estimator", "sgt-k3", "--n-bootstrap", "20", "--seed", "0"]
    assert main([*args, "--t", f"{h['t_asked']:g}", "--repeats", str(h["splits"]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["backtest"]
    (row,) = data["rows"]
    assert row["estimator"] == "sgt-k3" and row["family"] == "smoothed Good–Turing (KnowSum eq. 1)"
    assert row["pi_coverage"] == h["coverage"] and row["relative_rmse"] == h["error"]
    assert main(["census", "backtest", str(run), "--estimator", "sgt-k51"]) == 2
    assert "'sgt-k51' is not one of 'sgt-k6'" in capsys.readouterr().err


def test_a_three_query_census_claims_only_what_its_splits_reach() -> None:
    """Three queries: every split keeps 2 and holds back 1 (t = 0.5), whatever t is asked."""
    prev = Prevalence.from_items(["a", "b", "c", "a", "d", "e", "f"], queries=[0, 0, 0, 1, 1, 2, 2])
    h = trust_horizon(prev, "et", 6, 100.0)
    assert h.checked == [0.5] and (h.t is None or h.t == 0.5)
    assert h.status == "back-tested" and h.t == 0.5  # 3 items, each new: unbiased within its floor
    assert "covers t = 100" not in h.message and "back-tested to t = 0.5" in h.message
    assert horizon_caveat(h) is not None


def test_a_census_naming_the_same_items_every_time_is_exact(tmp_path: Path) -> None:
    """Twelve queries naming the same items: eq. (1) weighs only f_1..f_k (k ≤ 10), so Û = 0 and
    N̂_tot = N_seen is exact."""
    run = _score(tmp_path, [["A", "B", "C"]] * 12)
    result = load_result(run)
    assert result.n_unseen == 0 and result.horizon is not None and result.horizon.status == "exact"
    assert "exact" in result.horizon.message and horizon_caveat(result.horizon) is None
    assert "beyond-horizon" not in [c.kind for c in result.caveats]


def test_the_same_items_with_a_spurious_raw_estimate_are_reported_as_exact(tmp_path: Path) -> None:
    """Five such queries: Q ≤ k gives f_5 a positive weight, a raw Û(100) ≈ 17 beside N_seen = 3 —
    from no singleton at all (f_1 = 0: Good–Turing's missing mass and Chao1's f̂0 are 0). It is
    reported as Û = 0, the raw value kept and the caveat "no singletons" saying why, and the horizon
    calls N̂_tot = N_seen exact, as for twelve such queries. (Before, the spurious Û was the headline
    and the horizon failed at t = 0.667 on the same artefact.)"""
    run = _score(tmp_path, [["A", "B", "C"]] * 5)
    result = load_result(run)
    assert result.n_seen == 3 and result.n_unseen == 0 and result.n_unseen_raw > 10
    assert "no-singletons" in [c.kind for c in result.caveats]
    h = result.horizon
    assert h is not None and h.status == "exact" and horizon_caveat(h) is None


def test_a_horizon_undecided_at_the_cap_says_so() -> None:
    """A t whose bias straddles the limit after the most splits passes (nothing is significantly
    violated) and its message says it is borderline; a decided pass does not."""
    prev = _zipf(200)
    decided = trust_horizon(prev, "et", 6, 1.0, seed=0)
    assert decided.decided and "borderline" not in decided.message
    rows = [r.model_copy(update={"bias": 0.10 * (r.n_total or 0.0)}) for r in backtest_rows(prev, 1.0)]
    h = horizon_from_rows(rows, "sgt-k6", 1.0, 100, 0)
    assert h.status == "back-tested" and h.decided is False
    assert f"borderline: undecided after {rows[0].repeats} splits" in h.message


def test_long_range_census_estimators_are_back_tested() -> None:
    """Pitman–Yor and preseq censuses carry a horizon of their own (not "no back-test")."""
    prev = _zipf(60)
    for name in ("pitman-yor", "preseq"):
        h = trust_horizon(prev, name, None, 10.0, seed=0)
        assert h.status in ("back-tested", "fails") and h.estimator == name and h.checked
    other = trust_horizon(prev, "osw-binomial", None, 10.0)
    assert other.status == "not-applicable" and "back-tested: et, good-toulmin" in other.message


def test_the_horizon_is_stable_over_seeds() -> None:
    """The docs' synthetic census (200 queries): the same horizon for every seed tried (the study
    measures 30 seeds: bench/foresee_study.py)."""
    prev = _zipf(200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        got = {(h.status, h.t) for h in (trust_horizon(prev, "et", 6, 100.0, seed=s) for s in range(4))}
    assert got == {("back-tested", 3.0)}


def test_the_horizon_starts_below_t1(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Back-tested to t = 3" covers t < 1: t = 0.5 (133 of 200 queries kept) is the first t tested, and
    a census failing there says so instead of passing from t = 1."""
    prev = _zipf(200)
    h = trust_horizon(prev, "et", 6, 100.0, seed=0)
    assert h.checked[:3] == pytest.approx([67 / 133, 1.0, 3.0]) and h.t == 3.0
    real = _horizon._passes
    monkeypatch.setattr(_horizon, "_passes", lambda row: row.t > 0.9 and real(row))  # t = 0.5 fails
    failed = trust_horizon(prev, "et", 6, 100.0, seed=0)
    assert failed.status == "fails" and failed.checked == pytest.approx([67 / 133])
    assert failed.message.startswith("not back-tested even at t = 0.504")


def test_a_saturated_census_is_not_failed_for_predicting_nothing() -> None:
    """400 queries of 20 items from 60: every item is seen many times, no split's held-back queries
    show a new item, and Û ≤ 0 on most splits, where the prediction interval is n/a. The census says
    "0 new items" and none came: the horizon passes there (it said "not back-tested even at t = 0.5"
    with coverage 40 %, counting each n/a as a miss)."""
    prev = _zipf(400, items=60, per_query=20)
    assert prev.f(1) == 0
    h = trust_horizon(prev, "et", 6, 100.0, seed=0)
    assert h.status == "back-tested" and h.t is not None and h.t >= 0.5, h.message
    assert "no split showed a new item" in h.message and "diverged" not in h.message


def test_a_large_census_is_back_tested_on_a_sample_of_its_queries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above HORIZON_MAX_QUERIES a census is back-tested on that many of its queries (seeded), which
    its message states; its splits then keep shares of the sample (here 100 of 200 queries)."""
    monkeypatch.setattr(_horizon, "HORIZON_MAX_QUERIES", 100)
    prev = _zipf(200)
    h = trust_horizon(prev, "et", 6, 100.0, seed=0)
    assert h.message.endswith(
        "(back-tested on a random 100 of its 200 queries: a smaller census's horizon, which errs short)"
    )
    assert h.kept_queries is not None and h.kept_queries <= 67 and "of 100 queries kept" in h.message
    assert trust_horizon(prev, "et", 6, 100.0, seed=0) == h  # the same sample for the same seed
    monkeypatch.setattr(_horizon, "HORIZON_MAX_QUERIES", 200)
    assert "random" not in trust_horizon(prev, "et", 6, 100.0, seed=0).message


def test_prediction_interval_covers_at_t1_and_t3() -> None:
    """On the synthetic census the 95 % prediction interval covers ≥ 85 % of the splits at t = 1, 3."""
    prev = _zipf(200)
    for t in (1.0, 3.0):
        s = run_splits(prev, t, {"sgt-k6": fs.PREDICTORS["sgt-k6"]}, 200, 0, seed=0)
        assert not isinstance(s, str)
        o = s.observed
        share = np.mean((s.pi_lower["sgt-k6"] <= o) & (o <= s.pi_upper["sgt-k6"]))
        assert share >= 0.85, (t, share)


def test_backtest_json_fields_and_an_old_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(2)
    p = 1 / np.arange(1, 801) ** 1.1
    run = _score(tmp_path, [[f"i{x}" for x in rng.choice(800, 12, p=p / p.sum())] for _ in range(80)])
    capsys.readouterr()
    args = ["census", "backtest", str(run), "--t", "1,3", "--repeats", "20", "--n-bootstrap", "4"]
    assert main([*args, "--estimator", "sgt-k6", "--estimator", "chao1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["backtest"]
    assert data["version"] == 2
    for row in data["rows"]:
        for key in ("pi_coverage", "pi_score", "ci_score", "noise_floor", "bias_se", "relative_rmse_se"):
            assert key in row
        assert row["repeats"] == 20 and "of U" in row["pi_method"]
        assert row["noise_floor"] == pytest.approx(row["observed"] ** 0.5)
        assert row["n_total"] > row["observed"]
    sgt = [r for r in data["rows"] if r["estimator"] == "sgt-k6"]
    assert all("closed form" in r["pi_method"] for r in sgt)
    assert {p["t"] for p in data["size_curve"]} <= {1.0, 3.0} and data["size_curve"]
    assert {p["estimator"] for p in data["size_curve"]} == {data["horizon"]["estimator"]}  # whose curve
    assert main([*args, "--estimator", "sgt-k6", "--estimator", "chao1", "--overwrite"]) == 0  # the text too
    text = capsys.readouterr().out
    assert f"error against kept size of the census's own estimator, {data['horizon']['estimator']} (" in text
    assert set(data["size_extrapolation"]) <= {"1", "3"}
    for key in ("t_asked", "kept_queries", "bias", "coverage_bound", "splits", "decided"):
        assert key in data["horizon"]
    # a version-1 record (no new field) still loads
    old = {k: v for k, v in data.items() if k not in ("size_curve", "size_extrapolation")}
    old["version"] = 1
    old["rows"] = [{k: r[k] for k in list(r)[:14]} for r in data["rows"]]
    old["horizon"] = {k: data["horizon"][k] for k in list(data["horizon"])[:12]}
    loaded = Backtest.model_validate(old)
    assert loaded.rows[0].pi_coverage is None and loaded.horizon.splits is None


def test_compare_names_why_a_run_has_no_horizon(tmp_path: Path) -> None:
    """`census compare`'s horizon column says exact / too small as the page does, not "no t passed"."""
    from knowsum.census.page import compare_table

    exact = load_result(_score(tmp_path, [["A", "B", "C"]] * 12, "exact"))
    small = load_result(_score(tmp_path, [["A", "B"]], "small"))
    assert exact.horizon is not None and small.horizon is not None
    assert (exact.horizon.status, small.horizon.status) == ("exact", "too-small")
    headers, rows = compare_table([exact, small])
    col = headers.index(next(h for h in headers if "horizon" in h))
    assert sorted(r[col] for r in rows) == ["exact: no split shows a new item", "n/a: too small to back-test"]
