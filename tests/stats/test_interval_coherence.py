"""Every prediction interval of one ``t`` is formed by one rule (:func:`predict_unseen`): the census
curve at the run's ``t`` is the headline, no prediction interval is narrower than the confidence
interval of its ``t``, the curve's grid stays in the estimator's domain, and the simulated check's
text says which interval it scored, in shares that never round to all or nothing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from knowsum.census._estimate import T_ABOVE, curve, heldout_check, t_grid
from knowsum.census.record import CurvePoint
from knowsum.stats import Prevalence, summarize
from knowsum.stats.community import OwnTCheck, check_at_own_t
from knowsum.stats.own_t_text import SCORED_INTERVAL, describe_own_t, percent, share
from knowsum.stats.predict_unseen import simulated_biases
from knowsum.stats.prediction import prediction_bounds
from knowsum.stats.summary import Summary
from knowsum.stats.unseen import ESTIMATORS, plan_estimator

SYNTHETIC = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study" / "synthetic.jsonl"


@pytest.fixture(scope="module")
def synthetic() -> Prevalence:
    """The 200-query synthetic census of ``tests/fixtures/census/study`` (mentions counted)."""
    items: list[str] = []
    queries: list[int] = []
    for q, line in enumerate(SYNTHETIC.read_text().splitlines()):
        row = json.loads(line)
        items += row["items"]
        queries += [q] * len(row["items"])
    return Prevalence.from_items(items, queries)


def _at(points: list[CurvePoint], t: float) -> CurvePoint:
    return next(p for p in points if p.t == t)


def _prediction(s: Summary) -> tuple[float, float]:
    assert s.prediction is not None and s.prediction.unseen is not None
    return s.prediction.unseen


@pytest.mark.parametrize("n_boot", [200, 0])
def test_curve_at_the_runs_t_is_the_headline_prediction_interval(synthetic: Prevalence, n_boot: int) -> None:
    s = summarize(synthetic, "et", 100.0, "auto", n_bootstrap=n_boot, seed=0, n_shuffles=10)
    points = curve(synthetic, "et", 100.0, s.estimate.k, n_boot, 0.95, 0)
    p = _at(points, 100.0)
    assert (p.unseen_pred_lower, p.unseen_pred_upper) == pytest.approx(_prediction(s), rel=1e-12)
    if n_boot:
        assert (p.unseen_lower, p.unseen_upper) == pytest.approx(s.estimate.interval, rel=1e-12)


@pytest.mark.parametrize("method", ["lognormal", "percentile"])
def test_no_prediction_interval_is_narrower_than_the_confidence_interval(
    synthetic: Prevalence, method: str
) -> None:
    s = summarize(synthetic, "et", 100.0, 6, n_bootstrap=200, seed=0, interval=method)  # type: ignore[arg-type]
    assert s.estimate.interval is not None
    lo, hi = s.estimate.interval
    assert _prediction(s)[0] <= lo and _prediction(s)[1] >= hi
    for p in curve(synthetic, "et", 100.0, 6, 200, 0.95, 0, method=method):  # type: ignore[arg-type]
        assert p.unseen_lower is not None and p.unseen_upper is not None
        assert p.unseen_pred_lower is not None and p.unseen_pred_upper is not None
        assert p.unseen_pred_lower <= p.unseen_lower and p.unseen_pred_upper >= p.unseen_upper, p.t


def test_simulated_bias_at_the_runs_t_is_the_checks(synthetic: Prevalence) -> None:
    plans = [plan_estimator(synthetic, "et", t, 6) for t in (0.5, 10.0, 100.0)]
    check, _, _ = check_at_own_t(synthetic, plans[-1], seed=3)
    assert check is not None
    biases = simulated_biases(synthetic, plans, seed=3)
    assert biases[-1] == check.bias_items
    assert all(b is not None and math.isfinite(b) for b in biases)
    assert simulated_biases(synthetic, [plan_estimator(synthetic, "chao1", 1.0, None)]) == [None]


@pytest.mark.parametrize("estimator", sorted(ESTIMATORS))
def test_the_default_grid_lies_in_the_estimators_domain(estimator: str) -> None:
    grid = t_grid(100.0, estimator=estimator)
    assert grid[-1] == 100.0 and all(t > T_ABOVE.get(estimator, 0.0) for t in grid)


# good-toulmin overflows at t = 100 and preseq finds no stable rational function on this sample, at
# the run's t as much as anywhere: not a question of the grid
@pytest.mark.parametrize("estimator", ["et", "osw-binomial", "osw-poisson", "chao1", "pitman-yor"])
def test_the_curve_holds_only_ts_the_estimator_can_take(synthetic: Prevalence, estimator: str) -> None:
    points = curve(synthetic, estimator, 100.0, None, 0, 0.95, 0, grid=[0.1, 0.5, 1.0, 2.0, 100.0])
    assert points[-1].t == 100.0
    if estimator.startswith("osw"):
        assert [p.t for p in points] == [2.0, 100.0]
        assert all(h.t > 1 for h in heldout_check(synthetic, estimator, None, n_shuffles=3))


def test_the_grid_keeps_the_runs_own_t_exactly() -> None:
    assert t_grid(1 / 3)[-1] == 1 / 3 and len(t_grid(1 / 3)) == len(set(np.round(t_grid(1 / 3), 6)))
    assert t_grid(1.05, estimator="osw-poisson") == [1.05]


def test_a_poisson_count_that_is_likely_0_has_lower_end_0() -> None:
    lo, hi = prediction_bounds(np.array([0.04, 3.0, 3.7, 50.0]), np.array([0.04, 3.0, 3.7, 50.0]))
    assert lo[0] == 0.0 and lo[1] == 0.0  # e^-Û > 2.5 %: U = 0 is inside the 95 % interval
    assert lo[2] > 0 and lo[3] > 0  # Û > ln 40 = 3.69: the log-normal end
    assert hi[0] > 1.0  # a tiny Û still allows one new item


def test_the_check_at_a_tiny_t_covers_what_it_predicts() -> None:
    rng = np.random.default_rng(0)
    queries = np.repeat(np.arange(20), 4)
    items = rng.zipf(1.6, queries.size)
    prev = Prevalence.from_items(items.tolist(), queries.tolist())
    check, _, why = check_at_own_t(prev, plan_estimator(prev, "et", 0.001, 8), seed=0)
    assert check is not None, why
    assert check.coverage > 0.9


def _check(coverage: float, unavailable: float, error: float = 0.2) -> OwnTCheck:
    return OwnTCheck(
        t=100.0,
        n_queries=20,
        replicates=200,
        mean_new=10.0,
        mean_total=60.0,
        error=error,
        error_total=error,
        error_se=0.01,
        bias=0.0,
        bias_items=0.0,
        coverage=coverage,
        coverage_se=0.005,
        unavailable=unavailable,
        noise_floor=0.3,
        community_size=60,
        undetected=10,
    )


def test_shares_never_round_to_all_or_nothing() -> None:
    assert [share(x) for x in (1.0, 0.0, 0.995, 0.005, 0.87, 0.9999, 0.0001, 0.123)] == [
        "100%",
        "0%",
        "99.5%",
        "0.5%",
        "87%",
        "> 99.9%",
        "< 0.1%",
        "12.3%",
    ]
    text = describe_own_t(_check(0.995, 0.005))
    assert "covers 99.5%" in text and "n/a in 0.5% of them" in text and "100%" not in text
    assert SCORED_INTERVAL in text


def test_one_formatter_for_errors_past_10000_percent() -> None:
    assert percent(158000.63) == "over 10,000%" and percent(0.22) == "22%" and percent(math.nan) == "n/a"
    assert "over 10,000% of N_tot" in describe_own_t(_check(0.5, 0.0, error=158000.63))
