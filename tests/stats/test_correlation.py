"""Spearman correlation with a permutation p-value; set precision/recall/F1."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from knowsum.stats import PRF, StatsError, macro_prf, set_prf, spearman_permutation


def exact_permutation_p(x: list[float], y: list[float]) -> float:
    """Two-sided p over all n! permutations of y (ranks correlated in one matrix product)."""
    rx, ry = stats.rankdata(x), stats.rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    norm = math.sqrt(float(rx @ rx) * float(ry @ ry))
    rho = float(rx @ ry) / norm
    perms = np.array(list(itertools.permutations(ry)))
    null = perms @ rx / norm
    assert rho == pytest.approx(stats.spearmanr(x, y).statistic)
    return float(np.mean(np.abs(null) >= abs(rho) - 1e-12))


def test_rho_matches_scipy_with_ties() -> None:
    x = [1, 2, 2, 3, 5, 5, 5, 8, 9, 10]
    y = [2, 1, 4, 4, 3, 6, 7, 7, 9, 8]
    result = spearman_permutation(x, y, n_perm=100, seed=0)
    assert result.rho == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_p_value_matches_exact_enumeration() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
    y = [2.0, 1.0, 4.0, 3.0, 7.0, 5.0, 6.0]
    exact = exact_permutation_p(x, y)  # over all 5,040 permutations
    result = spearman_permutation(x, y, n_perm=10_000, seed=1)
    # Monte-Carlo error: sd = sqrt(p(1-p)/n_perm) ≈ 0.002; allow 4 sd
    assert result.p_value == pytest.approx(exact, abs=4 * math.sqrt(exact * (1 - exact) / 10_000) + 1e-4)


def test_one_sided_alternatives_and_seed() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=50)
    y = x + rng.normal(size=50)
    greater = spearman_permutation(x, y, n_perm=2000, seed=3, alternative="greater")
    less = spearman_permutation(x, y, n_perm=2000, seed=3, alternative="less")
    assert greater.p_value < 0.01 < 0.99 < less.p_value
    assert spearman_permutation(x, y, n_perm=500, seed=9) == spearman_permutation(x, y, n_perm=500, seed=9)


def test_constant_input_gives_nan_rho_and_p_one() -> None:
    result = spearman_permutation([1, 1, 1, 1], [1, 2, 3, 4])
    assert math.isnan(result.rho) and result.p_value == 1.0


@pytest.mark.parametrize(
    ("x", "y", "kw"),
    [
        ([1, 2], [1, 2], {}),
        ([1, 2, 3], [1, 2], {}),
        ([1, 2, math.nan], [1, 2, 3], {}),
        ([1, 2, 3], [3, 2, 1], {"n_perm": 0}),
    ],
)
def test_bad_input(x: list[float], y: list[float], kw: dict[str, int]) -> None:
    with pytest.raises(StatsError):
        spearman_permutation(x, y, **kw)


def test_set_prf_basic_and_empty_conventions() -> None:
    r = set_prf({"a", "b", "c"}, {"b", "c", "d", "e"})
    assert (r.precision, r.recall, r.tp, r.fp, r.fn) == (2 / 3, 0.5, 2, 1, 2)
    assert r.f1 == pytest.approx(4 / 7, rel=1e-15)
    assert set_prf([], []) == PRF(1.0, 1.0, 1.0, 0, 0, 0)
    assert set_prf([], ["a"]).precision == 0.0 and set_prf([], ["a"]).f1 == 0.0
    assert set_prf(["a", "a"], ["a"]) == PRF(1.0, 1.0, 1.0, 1, 0, 0)


@settings(max_examples=60, deadline=None)
@given(pred=st.sets(st.integers(0, 20)), ref=st.sets(st.integers(0, 20)))
def test_set_prf_properties(pred: set[int], ref: set[int]) -> None:
    r = set_prf(pred, ref)
    assert 0 <= r.precision <= 1 and 0 <= r.recall <= 1 and 0 <= r.f1 <= 1
    assert min(r.precision, r.recall) - 1e-12 <= r.f1 <= max(r.precision, r.recall) + 1e-12
    assert r.tp + r.fp == len(pred) and r.tp + r.fn == len(ref)


def test_macro_prf() -> None:
    m = macro_prf([set_prf({"a"}, {"a"}), set_prf({"a"}, {"b"})])
    assert (m.precision, m.recall, m.f1, m.tp, m.fp, m.fn) == (0.5, 0.5, 0.5, 1, 1, 1)
    with pytest.raises(StatsError):
        macro_prf([])
