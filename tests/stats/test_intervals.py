"""Chao's log-normal interval (issue 10 item 1): published values, properties, and the two methods."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.stats import (
    ESTIMATORS,
    IntervalMethod,
    Prevalence,
    StatsError,
    StatsWarning,
    bootstrap,
    estimate_unseen,
    intervals,
    lognormal_total,
    summarize,
)
from knowsum.stats.intervals import recentred_percentile


def chao1_bc_variance(f1: int, f2: int) -> float:
    """Variance of the bias-corrected Chao1 (Chao 1987, as EstimateS 9 computes it)::

    v = f1(f1−1)/(2(f2+1)) + f1(2f1−1)²/(4(f2+1)²) + f1²·f2·(f1−1)²/(4(f2+1)⁴)
    """
    a = f2 + 1
    return (
        f1 * (f1 - 1) / (2 * a)
        + f1 * (2 * f1 - 1) ** 2 / (4 * a**2)
        + f1**2 * f2 * (f1 - 1) ** 2 / (4 * a**4)
    )


def test_lognormal_interval_matches_estimates_published_values() -> None:
    """Counts [0, 1, 1, 4, 2, 5, 2, 4, 1, 2] (the EstimateS data set of the estimator_reference
    README): S_obs = 9, f1 = 3, f2 = 3, bias-corrected Chao1 = 9.75. EstimateS reports the
    log-normal 95% interval (9.07, 17.45), two decimals; scikit-bio's test suite
    (skbio/diversity/alpha/tests/test_chao1.py, ``test_chao1_ci``) checks its own ``chao1_ci``
    against these EstimateS figures. Here Û = 0.75 and v is the analytic variance above; the
    tolerance is half a unit of the published last digit (0.005) plus rounding of z = 1.959964."""
    prev = Prevalence.from_counts([0, 1, 1, 4, 2, 5, 2, 4, 1, 2])
    n_seen, f1, f2 = prev.n_seen, prev.f(1), prev.f(2)
    assert (n_seen, f1, f2) == (9, 3, 3)
    unseen = f1 * (f1 - 1) / (2 * (f2 + 1))
    assert n_seen + unseen == 9.75
    lo, hi = lognormal_total(n_seen, unseen, chao1_bc_variance(f1, f2), level=0.95)
    assert lo == pytest.approx(9.07, abs=0.005)
    assert hi == pytest.approx(17.45, abs=0.005)


def test_lognormal_formula_by_hand() -> None:
    # C = exp(1.959964 · sqrt(ln(1 + 100/400))) for Û = 20, v = 100
    c = math.exp(1.959963984540054 * math.sqrt(math.log(1.25)))
    assert lognormal_total(50, 20.0, 100.0) == pytest.approx((50 + 20 / c, 50 + 20 * c), rel=1e-12)


@pytest.mark.parametrize(("unseen", "variance"), [(0.0, 5.0), (-3.0, 5.0), (4.0, 0.0)])
def test_lognormal_degenerate_cases(unseen: float, variance: float) -> None:
    lo, hi = lognormal_total(10, unseen, variance)
    if unseen <= 0:
        assert (lo, hi) == (10.0, 10.0)
    else:
        assert (lo, hi) == pytest.approx((14.0, 14.0))


def test_unknown_method_and_bad_level() -> None:
    draws = np.array([1.0, 2.0, 3.0])
    with pytest.raises(StatsError, match="unknown interval method"):
        intervals("wald", 5, 2.0, draws, np.array([5, 5, 5]))  # type: ignore[arg-type]
    with pytest.raises(StatsError, match="level"):
        lognormal_total(5, 2.0, 1.0, level=1.5)


@settings(max_examples=200, deadline=None)
@given(
    n_seen=st.integers(0, 10**6),
    unseen=st.floats(-1e6, 1e9, allow_nan=False),
    variance=st.floats(0, 1e18, allow_nan=False),
    level=st.floats(0.5, 0.999),
)
def test_lognormal_never_below_what_was_seen(
    n_seen: int, unseen: float, variance: float, level: float
) -> None:
    lo, hi = lognormal_total(n_seen, unseen, variance, level)
    assert n_seen <= lo <= hi
    if unseen > 0:
        assert lo <= n_seen + unseen * (1 + 1e-9) and hi >= (n_seen + unseen) * (1 - 1e-9)


tables = st.dictionaries(st.integers(1, 12), st.integers(0, 15), min_size=1, max_size=8).filter(
    lambda d: sum(d.values()) > 0
)


@settings(max_examples=60, deadline=None)
@given(
    table=tables,
    name=st.sampled_from(sorted(ESTIMATORS)),
    t=st.sampled_from([0.5, 1.0, 3.0, 100.0]),
    seed=st.integers(0, 1000),
    method=st.sampled_from(["lognormal", "percentile"]),
)
def test_summary_point_and_interval_respect_the_data(
    table: dict[int, int], name: str, t: float, seed: int, method: IntervalMethod
) -> None:
    """For every input, estimator and interval method: the reported point has N̂_tot ≥ N_seen,
    Û ≥ 0 (= max(raw, 0)) and SKR in (0, 1]; each interval starts at or above those bounds and
    contains its point — the three quantities the census and `knowsum estimate` report (issue 20)."""
    prev = Prevalence.from_table(table)
    if name == "good-toulmin":
        t = min(t, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        try:
            summary = summarize(prev, name, t, k=6, n_bootstrap=40, seed=seed, interval=method)
        except StatsError:  # e.g. Chao1 non-finite on a degenerate resample: nothing reported
            return
    # max(raw, 0), at most t·n; 0 for a linear estimator without singletons (no evidence of unseen items)
    top = math.inf if name == "chao1" else t * prev.n_observations
    if name in ("et", "osw-binomial", "osw-poisson", "good-toulmin") and prev.f(1) == 0:
        top = 0.0
    assert summary.n_unseen == min(max(summary.n_unseen_raw, 0.0), top)
    assert summary.n_total >= prev.n_seen and 0 < summary.skr <= 1
    record = summary.to_dict()
    assert record["n_unseen"] >= 0 and record["n_unseen_raw"] == summary.n_unseen_raw
    boot = summary.bootstrap
    assert boot is not None and boot.interval == method and record["interval_method"] == method
    if not all(math.isfinite(x) for x in (*boot.total, *boot.unseen, *boot.skr)):
        return
    assert prev.n_seen <= boot.total[0] <= summary.n_total <= boot.total[1]
    assert 0 <= boot.unseen[0] <= summary.n_unseen <= boot.unseen[1]
    assert 0 < boot.skr[0] <= summary.skr <= boot.skr[1] <= 1


def test_percentile_option_is_cut_at_n_seen_where_lognormal_needs_no_cut() -> None:
    """A small, singleton-heavy sample (25 queries): the re-centred percentile interval — the
    old default, still available — would go below N_seen and is cut there; the log-normal one
    never goes below."""
    rng = np.random.default_rng(3)
    weights = 1 / np.arange(1, 3001) ** 0.6
    items = rng.choice(3000, size=25 * 20, p=weights / weights.sum())
    prev = Prevalence.from_items(items.tolist(), np.repeat(np.arange(25), 20).tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        pct = bootstrap(prev, "et", t=100, k=10, n_resamples=300, seed=0, interval="percentile")
        log = bootstrap(prev, "et", t=100, k=10, n_resamples=300, seed=0)
    assert pct.interval == "percentile" and log.interval == "lognormal"
    # uncut, the re-centred percentile interval (copia's) starts below N_seen; knowsum cuts it there
    point = estimate_unseen(prev, "et", t=100, k=10).estimate
    uncut = recentred_percentile(prev.n_seen + point, pct.seen_draws + pct.unseen_draws, 0.95)
    assert uncut[0] < prev.n_seen == pct.total[0] <= log.total[0]
    assert pct.unseen[0] == 0 <= log.unseen[0]
    # both are built from the same resamples
    assert np.array_equal(pct.unseen_draws, log.unseen_draws)
