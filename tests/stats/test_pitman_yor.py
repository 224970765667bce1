"""The Pitman–Yor predictive: the closed forms against a seeded simulation of the urn, the maximum-likelihood
fit against a brute-force grid, and the samples that have no maximum."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy.special import polygamma, psi

from knowsum.stats import StatsError
from knowsum.stats import pitman_yor as py

PRESEQ = Path(__file__).resolve().parents[1] / "fixtures" / "preseq"


def _hist(name: str, width: int = 300) -> np.ndarray:
    h = np.zeros(width)
    for line in (PRESEQ / f"{name}.hist").read_text().splitlines():
        s, f = line.split()
        h[int(s)] = float(f)
    return h


@pytest.mark.parametrize(
    ("sigma", "theta", "n", "j", "m"), [(0.47, 4.3, 935, 106, 935), (0.2, 10.0, 50, 20, 400)]
)
def test_closed_forms_match_the_urn(sigma: float, theta: float, n: int, j: int, m: int) -> None:
    draws = py.simulate_new(sigma, theta, n, j, m, replicates=4000, seed=1)
    mean = float(py.expected_new(sigma, theta, n, j, m))
    var = float(py.predictive_variance(sigma, theta, n, j, m))
    se_mean = math.sqrt(var / draws.size)
    assert abs(draws.mean() - mean) < 4 * se_mean
    # the sample variance of 4,000 draws is within ~ 4·sqrt(2/4000) ≈ 9 % of the true one
    assert draws.var(ddof=1) == pytest.approx(var, rel=0.1)


def test_small_sigma_tends_to_the_dirichlet_process() -> None:
    theta, n, j, m = 5.0, 100, 20, 1000
    dp_mean = theta * (psi(theta + n + m) - psi(theta + n))
    dp_var = dp_mean - theta**2 * (polygamma(1, theta + n) - polygamma(1, theta + n + m))
    assert float(py.expected_new(1e-8, theta, n, j, m)) == pytest.approx(dp_mean, rel=1e-6)
    assert float(py.predictive_variance(1e-8, theta, n, j, m)) == pytest.approx(dp_var, rel=1e-6)


def test_one_further_draw_is_the_urn_probability() -> None:
    sigma, theta, n, j = 0.3, 2.0, 40, 12
    p = (theta + j * sigma) / (theta + n)
    assert float(py.expected_new(sigma, theta, n, j, 1)) == pytest.approx(p, rel=1e-12)
    assert float(py.predictive_variance(sigma, theta, n, j, 1)) == pytest.approx(p * (1 - p), rel=1e-9)


def test_a_hundredfold_extrapolation_is_finite() -> None:
    value = py.expected_new(0.47, 4.3, 935, 106, 93_500)
    assert np.isfinite(value) and 500 < float(value) < 2000


def test_mle_beats_a_brute_force_grid() -> None:
    h = _hist("theorems")
    found = py.fit(h)
    assert found.reason is None
    grid = max(
        (py.log_likelihood(s, t, h), s, t)
        for s in np.linspace(0.01, 0.99, 99)
        for t in np.linspace(-0.5, 20, 206)
        if t > -s
    )
    assert found.log_likelihood >= grid[0] - 1e-9
    assert found.sigma == pytest.approx(grid[1], abs=0.011)
    assert found.theta == pytest.approx(grid[2], abs=0.11)


@pytest.mark.parametrize("name", ["theorems", "fisher", "ciliates", "spider_logged"])
def test_vectorised_fit_agrees_with_the_optimiser(name: str) -> None:
    h = _hist(name)
    one = py.fit(h)
    sigma, theta, reasons = py.fit_rows(np.repeat(h[None, :], 5, axis=0))
    assert reasons == (None,) * 5
    assert (
        py.log_likelihood(float(sigma[0]), float(theta[0]), h) >= one.log_likelihood - 0.02
    )  # its σ stops at 1e-4, the optimiser's at 1e-8
    for m in (one.n, 100 * one.n):
        ours = py.expected_new(sigma[0], theta[0], one.n, one.j, m)
        theirs = py.expected_new(one.sigma, one.theta, one.n, one.j, m)
        assert float(ours) == pytest.approx(float(theirs), rel=2e-3)


def test_all_singletons_have_no_maximum() -> None:
    h = np.array([0, 7, 0, 0])
    assert py.fit(h).reason == py.ALL_SINGLETONS_REASON
    sigma, _, reasons = py.fit_rows(np.repeat(h[None, :], 5, axis=0))
    assert math.isnan(float(sigma[0])) and reasons == (py.ALL_SINGLETONS_REASON,) * 5


def test_one_item_has_no_interior_maximum() -> None:
    h = np.array([0, 0, 0, 1])  # one item seen three times
    assert py.fit(h).reason == py.ONE_ITEM_REASON
    assert py.fit_rows(h[None, :])[2] == (py.ONE_ITEM_REASON,)


def test_no_singletons_still_fits_and_predicts_few() -> None:
    h = np.array([0, 0, 3, 2])  # f1 = 0
    found = py.fit(h)
    assert found.reason is None
    new = float(py.expected_new(found.sigma, found.theta, found.n, found.j, found.n))
    assert 0 < new < 3


def test_nan_parameters_predict_nan() -> None:
    assert math.isnan(float(py.expected_new(math.nan, math.nan, 10, 3, 10)))
    assert math.isnan(float(py.predictive_variance(math.nan, 1.0, 10, 3, 10)))


@pytest.mark.parametrize(("sigma", "theta"), [(1.0, 1.0), (0.5, -0.6), (-0.1, 1.0)])
def test_bad_parameters_are_refused(sigma: float, theta: float) -> None:
    with pytest.raises(StatsError):
        py.log_likelihood(sigma, theta, np.array([0, 2, 1]))


def test_bad_histogram_is_refused() -> None:
    with pytest.raises(StatsError):
        py.fit(np.array([0, -1, 2]))
