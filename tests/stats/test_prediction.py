"""Prediction intervals, interval scores and Wilson bounds (knowsum.stats.prediction)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from knowsum.stats import StatsError
from knowsum.stats.prediction import (
    interval_score,
    plugin_variance,
    prediction_bounds,
    prediction_variance,
    wilson_bounds,
)
from knowsum.stats.weights import binomial_tail_weights, et_q, good_toulmin_weights


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_newcombe_1998(k: int, n: int, low: float, high: float) -> None:
    # Newcombe (1998), Stat. Med. 17:857, Table I, method 3 (Wilson score interval without correction)
    lo, hi = wilson_bounds(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_refuses_impossible_counts() -> None:
    with pytest.raises(StatsError):
        wilson_bounds(5, 4)
    with pytest.raises(StatsError):
        wilson_bounds(0, 0)


def test_interval_score_charges_width_and_misses() -> None:
    # alpha = 0.05: a miss by d costs 40 d on top of the width
    got = interval_score(np.array([2.0, 2.0, 2.0]), np.array([5.0, 5.0, 5.0]), np.array([3.0, 1.0, 6.5]))
    assert got.tolist() == pytest.approx([3.0, 3.0 + 40.0, 3.0 + 60.0])
    assert math.isnan(float(interval_score(math.nan, 5.0, 3.0)))


def test_prediction_interval_contains_confidence_interval_and_bounds_u_at_zero() -> None:
    lo, hi = prediction_bounds(np.array([50.0, 0.0, -3.0, 0.0]), np.array([100.0, 4.0, 4.0, 0.0]))
    assert lo[0] < 50 < hi[0]
    # wider than the log-normal interval of the estimate alone (variance 100 vs 100 + 50)
    c = math.exp(1.959964 * math.sqrt(math.log1p(100 / 2500)))
    assert lo[0] < 50 / c and hi[0] > 50 * c
    # Û ≤ 0 with Var(Û) = 4: E U ≤ μ⁺ = 1.96·2 = 3.92 at 97.5 %, and P(Poisson(3.92) ≤ 7) = 0.953,
    # P(≤ 8) = 0.981, so U ≤ 8: [0, 8], whatever the sign of Û
    assert (lo[1], hi[1]) == (0.0, 8.0) and (lo[2], hi[2]) == (0.0, 8.0)
    assert math.isnan(lo[3]) and math.isnan(hi[3])  # no variance either: a point, n/a
    assert prediction_variance(50.0, math.nan).item() != prediction_variance(50.0, math.nan).item()


def _poisson_census(rng: np.random.Generator, p: np.ndarray, n: float) -> np.ndarray:
    return rng.poisson(p * n)


@pytest.mark.parametrize(("estimator", "t"), [("good-toulmin", 1.0), ("sgt-k6", 1.0), ("sgt-k6", 3.0)])
def test_plugin_and_poisson_variances_match_simulation(estimator: str, t: float) -> None:
    """Under Poisson sampling from a known community (Zipf 1.1 over 3,000 items, 1,500 mentions):
    the mean of Σ h_s² f_s tracks Var(Û) within 15 %, the Poisson bound E U is above Var(U) by at most
    1.6x (the Σ q_i² it drops grows with t); at t = 1, where the estimators are unbiased, their sum
    tracks E(Û − U)² within 15 %."""
    rng = np.random.default_rng(7)
    p = 1.0 / np.arange(1, 3001) ** 1.1
    p /= p.sum()
    n = 1500.0
    s_max = 60
    h = (
        good_toulmin_weights(t, s_max)
        if estimator == "good-toulmin"
        else binomial_tail_weights(t, 6, et_q(t), s_max)
    )
    u_hats, us, plugins = [], [], []
    for _ in range(400):
        now = _poisson_census(rng, p, n)
        later = _poisson_census(rng, p, n * t)
        f = np.bincount(np.minimum(now, s_max), minlength=s_max + 1).astype(np.float64)
        f[0] = 0.0
        u_hats.append(float(f @ h))
        us.append(float(((now == 0) & (later > 0)).sum()))
        plugins.append(float(plugin_variance(f, h)))
    u_hat, u = np.array(u_hats), np.array(us)
    assert np.mean(plugins) / np.var(u_hat) == pytest.approx(1.0, abs=0.15)
    assert 1.0 <= np.mean(u) / np.var(u) < 1.6  # an upper bound: by Σ q_i², 1.5x here at t = 3
    if t == 1.0:
        predicted = np.mean(prediction_variance(u_hat, np.array(plugins)))
        assert predicted / np.mean((u_hat - u) ** 2) == pytest.approx(1.0, abs=0.15)


def test_a_model_that_states_its_own_future_variance_replaces_the_poisson_bound() -> None:
    # Pitman–Yor states Var(U | σ̂, θ̂) itself: it replaces max(Û, 0), it is not added to it
    assert prediction_variance(50.0, 10.0).item() == 60.0
    assert prediction_variance(50.0, 10.0, 400.0).item() == 410.0
    lo, hi = prediction_bounds(50.0, 10.0, future_variance=400.0)
    lo0, hi0 = prediction_bounds(50.0, 10.0)
    assert lo < lo0 < 50 < hi0 < hi
    assert math.isnan(float(prediction_variance(50.0, 10.0, math.nan)))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("per_query", [1, 12])
def test_the_census_prediction_interval_holds_its_confidence_interval(seed: int, per_query: int) -> None:
    """A prediction interval adds the future's randomness to the estimate's: it is never narrower than
    the log-normal confidence interval of the same Û (here with answers of 1 and of 12 items, where the
    query bootstrap varies more than the Poisson plug-in Σ h_s² f_s)."""
    from knowsum.stats import Prevalence, summarize

    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, 801) ** 1.2
    p /= p.sum()
    queries = 120
    items = [int(x) for q in range(queries) for x in rng.choice(800, size=per_query, replace=False, p=p)]
    prev = Prevalence.from_items([str(i) for i in items], queries=[i // per_query for i in range(len(items))])
    for t in (1.0, 3.0, 100.0):
        s = summarize(prev, "et", t=t, k=6, n_bootstrap=200, seed=seed, own_t=False)
        assert s.prediction is not None and s.prediction.unseen is not None
        lo, hi = s.estimate.interval
        plo, phi = s.prediction.unseen
        assert plo <= lo + 1e-9 and phi >= hi - 1e-9, (t, (lo, hi), (plo, phi))
