"""The coefficients h_s: exact values, stability for t up to 1e4 and k up to 30, and errors."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from knowsum.stats import Prevalence, StatsError, StatsWarning, estimate_unseen
from knowsum.stats.weights import (
    binomial_tail_weights,
    good_toulmin_weights,
    osw_binomial_params,
    osw_poisson_rate,
    poisson_tail_weights,
)


def exact_et_weight(t: Fraction, k: int, s: int) -> Fraction:
    """h_s = -(-t)^s P(Bin(k, 1/(t+1)) >= s), in exact rational arithmetic (KnowSum eq. 1)."""
    p = 1 / (t + 1)
    tail = sum(math.comb(k, j) * p**j * (1 - p) ** (k - j) for j in range(s, k + 1))
    return -((-t) ** s) * tail


@pytest.mark.parametrize("t", [Fraction(1, 2), Fraction(1), Fraction(3), Fraction(100), Fraction(10_000)])
@pytest.mark.parametrize("k", [1, 2, 8, 30])
def test_et_weights_equal_exact_rational_values(t: Fraction, k: int) -> None:
    h = binomial_tail_weights(float(t), k, 1 / (float(t) + 1))
    assert h[0] == 0.0 and h.size == k + 1
    for s in range(1, k + 1):
        exact = float(exact_et_weight(t, k, s))
        assert h[s] == pytest.approx(exact, rel=1e-9, abs=1e-300)


def test_binomial_weights_are_zero_beyond_k() -> None:
    h = binomial_tail_weights(5.0, 3, 1 / 6, s_max=10)
    assert h.size == 11 and np.all(h[4:] == 0.0)


def test_good_toulmin_weights() -> None:
    assert good_toulmin_weights(2.0, 4) == pytest.approx([0.0, 2.0, -4.0, 8.0, -16.0], rel=1e-14)


def test_poisson_weights_match_scipy_tail() -> None:
    t, r = 20.0, 0.3
    h = poisson_tail_weights(t, r, 12)
    for s in range(1, 13):
        expected = -((-t) ** s) * stats.poisson.sf(s - 1, r)
        assert h[s] == pytest.approx(expected, rel=1e-9)


def test_osw_parameters_follow_the_pnas_formulas() -> None:
    k, q = osw_binomial_params(1000, 2.0)
    assert k == math.ceil(0.5 * math.log(1000 * 4 / 1, 3)) == 4
    assert q == pytest.approx(0.5)
    assert osw_poisson_rate(1000, 2.0) == pytest.approx(math.log(1000 * 9) / 4)


@pytest.mark.parametrize("name", ["osw-binomial", "osw-poisson"])
def test_osw_needs_t_above_one(name: str) -> None:
    prev = Prevalence.from_counts([1, 1, 2, 3])
    with pytest.raises(StatsError, match="t > 1"):
        estimate_unseen(prev, name, t=1.0)


@pytest.mark.parametrize("t", [1e-3, 0.5, 1.0, 10.0, 100.0, 1e3, 1e4])
@pytest.mark.parametrize("k", [1, 10, 20, 30])
def test_et_is_finite_for_large_t_and_k(t: float, k: int) -> None:
    h = binomial_tail_weights(t, k, 1 / (t + 1))
    assert np.all(np.isfinite(h))
    prev = Prevalence.from_table({s: 7 * s + 1 for s in range(1, 40)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)  # only finiteness is checked here
        est = estimate_unseen(prev, "et", t=t, k=k)
    assert math.isfinite(est.estimate) and math.isfinite(est.n_total)


@pytest.mark.parametrize("t", [100.0, 1e4])
def test_osw_poisson_is_finite_for_large_t_and_counts(t: float) -> None:
    prev = Prevalence.from_table({1: 50, 2: 20, 500: 3, 10_000: 1})
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore", StatsWarning
        )  # the estimate is negative here; only finiteness matters
        assert math.isfinite(estimate_unseen(prev, "osw-poisson", t=t).estimate)


def test_good_toulmin_overflow_is_an_error_not_inf() -> None:
    prev = Prevalence.from_table({1: 5, 400: 1})
    with pytest.raises(StatsError, match="overflows at s = "):
        estimate_unseen(prev, "good-toulmin", t=100.0)


@pytest.mark.parametrize("bad_t", [0, -1.0, math.nan, math.inf, True])
def test_bad_t(bad_t: float) -> None:
    with pytest.raises(StatsError, match="t must be"):
        estimate_unseen(Prevalence.from_counts([1, 2]), "et", t=bad_t)


@pytest.mark.parametrize("bad_k", [0, -3, 2.5])
def test_bad_k(bad_k: int) -> None:
    with pytest.raises(StatsError, match="k must be"):
        estimate_unseen(Prevalence.from_counts([1, 2]), "et", t=2.0, k=bad_k)
