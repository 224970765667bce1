"""Bootstrap and held-out internals: the vectorized kernels equal naive per-resample loops."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from knowsum.stats import (
    ESTIMATORS,
    CaveatKind,
    Prevalence,
    StatsError,
    StatsWarning,
    bootstrap,
    estimate_unseen,
    extrapolation_curve,
    select_k,
    summarize,
)
from knowsum.stats import _resample as rs
from knowsum.stats.bootstrap import _batch_stats
from knowsum.stats.unseen import plan_estimator


@pytest.fixture
def census() -> Prevalence:
    rng = np.random.default_rng(7)
    weights = 1 / np.arange(1, 2001) ** 1.1
    items = rng.choice(2000, size=3000, p=weights / weights.sum())
    return Prevalence.from_items(items.tolist(), np.repeat(np.arange(150), 20).tolist())


@pytest.mark.parametrize("name", list(ESTIMATORS))
def test_batch_kernel_equals_estimate_on_each_resample(census: Prevalence, name: str) -> None:
    t = 0.8 if name == "good-toulmin" else 3.0
    plan = plan_estimator(census, name, t, 6)
    counts = rs.multinomial_counts(np.random.default_rng(1), census.counts, 12)
    unseen, seen = _batch_stats(plan, counts)
    for b in range(counts.shape[1]):
        column = counts[:, b]
        sub = Prevalence.from_counts(column[column > 0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", StatsWarning)
            try:
                expected = estimate_unseen(sub, name, t=t, k=6)
            except StatsError:  # preseq without a stable approximant: NaN in the batch, an error alone
                assert plan.rows is not None and math.isnan(unseen[b]) and seen[b] == sub.n_seen
                continue
        if name.startswith("osw"):  # parameters stay those of the original sample in the bootstrap
            expected_value = float(np.dot(plan.weights(sub.max_count)[: sub.n_s.size], sub.n_s))  # type: ignore[misc]
        else:
            expected_value = expected.estimate
        assert seen[b] == sub.n_seen
        # the Pitman–Yor batch fits all resamples at once (grid and Newton), `estimate` by scipy.optimize
        rel = 1e-6 if name == "pitman-yor" else 1e-9
        assert unseen[b] == pytest.approx(expected_value, rel=rel, abs=1e-9)


def test_query_counts_is_the_weighted_sum_of_query_rows(census: Prevalence) -> None:
    weights = rs.multinomial_query_weights(np.random.default_rng(3), census.n_queries or 0, 5)
    got = rs.query_counts(rs.item_query_matrix(census), weights)
    assert census.by_query is not None
    dense = census.by_query.toarray()
    assert np.array_equal(got, dense.T @ weights)
    assert np.all(weights.sum(axis=0) == census.n_queries)


def test_column_histograms() -> None:
    counts = np.array([[0, 1], [1, 1], [5, 2], [2, 0]])
    hist = rs.column_histograms(counts, cap=2)
    assert hist.tolist() == [[1, 1, 1, 1], [1, 2, 1, 0]]


def test_bootstrap_is_seeded_and_brackets_the_estimate(census: Prevalence) -> None:
    a = bootstrap(census, "et", t=10.0, k=8, n_resamples=200, seed=5)
    b = bootstrap(census, "et", t=10.0, k=8, n_resamples=200, seed=5)
    c = bootstrap(census, "et", t=10.0, k=8, n_resamples=200, seed=6)
    assert a.method == "queries" and a.n_resamples == 200
    assert np.array_equal(a.unseen_draws, b.unseen_draws) and a.unseen == b.unseen
    assert not np.array_equal(a.unseen_draws, c.unseen_draws)
    point = estimate_unseen(census, "et", t=10.0, k=8)
    assert a.unseen[0] <= point.estimate <= a.unseen[1]
    assert a.total[0] <= point.n_total <= a.total[1]
    assert a.skr[0] <= point.skr <= a.skr[1]
    assert a.unseen_se > 0 and a.n_nonfinite == 0


def test_bootstrap_without_queries_uses_multinomial(census: Prevalence) -> None:
    result = bootstrap(Prevalence.from_counts(census.counts), "chao1", n_resamples=50, seed=0)
    assert result.method == "multinomial" and result.unseen_draws.size == 50


@pytest.mark.parametrize("bad", [{"n_resamples": 0}, {"level": 1.0}, {"n_resamples": 2.5}])
def test_bootstrap_rejects_bad_arguments(census: Prevalence, bad: dict[str, float]) -> None:
    with pytest.raises(StatsError):
        bootstrap(census, **bad)  # type: ignore[arg-type]


def test_select_k_truth_is_items_only_in_the_held_out_part(census: Prevalence) -> None:
    sel = select_k(census, candidates=(1, 2), fractions=(0.5,), n_shuffles=5, seed=0)
    assert sel.method == "queries" and sel.t_by_fraction == (1.0,)
    assert len(sel.nmse_by_fraction) == 1 and len(sel.nmse) == 2


@pytest.mark.parametrize(
    "bad", [{"candidates": ()}, {"candidates": (0,)}, {"fractions": (1.0,)}, {"n_shuffles": 0}]
)
def test_select_k_rejects_bad_arguments(census: Prevalence, bad: dict[str, object]) -> None:
    with pytest.raises(StatsError):
        select_k(census, **bad)  # type: ignore[arg-type]


def test_summarize_auto_k_and_interval(census: Prevalence) -> None:
    result = summarize(census, t=100.0, k="auto", n_bootstrap=100, seed=1, n_shuffles=10)
    assert result.k_source == "held-out" and result.estimate.k in (6, 8, 10)
    assert result.interval is not None and result.bootstrap is not None
    record = result.to_dict()
    for key in ("n_observations", "n_seen", "n_unseen", "n_total", "skr", "t", "k", "estimator", "interval"):
        assert key in record
    assert summarize(census, k=7, n_bootstrap=0).interval is None
    gt = summarize(census, "good-toulmin", t=0.5, k=7, n_bootstrap=0)
    assert gt.estimate.k is None and gt.k_source == "none" and "ignored" in gt.notes[0]


def test_negative_estimate_is_reported_as_zero_with_the_raw_value_and_a_warning() -> None:
    prev = Prevalence.from_table({2: 10})  # Good–Toulmin at t = 2: −(−2)²·10 = −40
    with pytest.warns(StatsWarning, match=r"negative \(raw Û = -40\); reported as Û = 0.*more queries"):
        est = estimate_unseen(prev, "good-toulmin", t=2.0)
    assert est.raw == pytest.approx(-40.0) and est.estimate == 0.0  # SpadeR/iNEXT: max(Û, 0)
    assert est.diagnostics.negative and est.n_total == 10 and est.skr == 1.0
    # clamped or not, Good–Toulmin past t = 1 is beyond its range: both caveats, each said once
    kinds = [c.kind for c in est.caveats]
    assert kinds.count(CaveatKind.BEYOND_RANGE) == 1 and kinds.count(CaveatKind.CLAMPED) == 1


def test_extrapolation_curve_matches_pointwise_estimates(census: Prevalence) -> None:
    curve = extrapolation_curve(census, [0.5, 1, 10, 100], "et", k=8)
    for t, value in zip(curve.t, curve.unseen, strict=True):
        assert value == pytest.approx(estimate_unseen(census, "et", t=float(t), k=8).estimate)
    assert np.allclose(curve.skr, curve.n_seen / (curve.n_seen + curve.unseen))
    assert extrapolation_curve(census).t.size == 30


def test_extrapolation_curve_warns_once_about_negative_points() -> None:
    with pytest.warns(StatsWarning, match="negative at 2 of 3 grid points \\(first t = 2\\)"):
        curve = extrapolation_curve(Prevalence.from_table({1: 10, 2: 10}), [0.5, 2.0, 3.0], "good-toulmin")
    assert curve.unseen_raw.tolist() == pytest.approx([2.5, -20.0, -60.0])  # 10t − 10t² as computed
    assert curve.unseen.tolist() == pytest.approx([2.5, 0.0, 0.0])  # reported: never below N_seen
    assert curve.n_total.tolist() == pytest.approx([22.5, 20.0, 20.0]) and np.all(curve.skr <= 1)
