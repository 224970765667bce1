"""The community fitted to a census, censuses simulated from it, the check at the census's own t, and
the coverage of the census's prediction interval on communities knowsum has never seen."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
import scipy.sparse as sp

from knowsum.stats import Abundance, Prevalence, StatsError, sample_coverage
from knowsum.stats.community import (
    Community,
    OwnTCheck,
    check_at_own_t,
    fit_community,
    own_t_check,
    simulate,
)
from knowsum.stats.coverage_study import SYNTHETIC, coverage_study, synthetic_community
from knowsum.stats.own_t_text import describe_own_t
from knowsum.stats.unseen import plan_estimator


def _census(seed: int = 0, n_queries: int = 300) -> Prevalence:
    """A census of ``n_queries`` answers of 0-5 items from a Zipf law over 1,500 items (a fifth empty)."""
    rng = np.random.default_rng(seed)
    p = np.arange(1, 1501, dtype=np.float64) ** -1.0
    items: list[int] = []
    queries: list[int] = []
    for q in range(n_queries):
        size = 0 if rng.random() < 0.2 else int(rng.integers(1, 6))
        drawn = rng.choice(1500, size, p=p / p.sum()).tolist()
        items += drawn
        queries += [q] * len(drawn)
    prev = Prevalence.from_items(items, queries=queries)
    # the empty answers count as queries: rebuild the matrix over every query asked
    matrix = sp.csr_matrix(prev.by_query)
    full = sp.vstack([matrix, sp.csr_matrix((n_queries - matrix.shape[0], matrix.shape[1]), dtype=np.int64)])
    return Prevalence(prev.counts, prev.labels, full)


def test_fit_reproduces_f0_and_coverage() -> None:
    prev = _census()
    n, f1, f2 = prev.n_observations, prev.f(1), prev.f(2)
    community = fit_community(prev)
    f0 = (n - 1) / n * f1 * f1 / (2 * f2)  # Chao1's f̂0 (Chao 1984; iNEXT's bias-corrected factor)
    assert community.f0 == math.ceil(f0)
    assert community.coverage == pytest.approx(sample_coverage(Abundance.from_prevalence(prev)).coverage)
    assert community.p.sum() == pytest.approx(1.0)
    # the detected items hold Ĉ of the mass, the undetected ones share the rest equally
    assert community.p[: prev.n_seen].sum() == pytest.approx(community.coverage)
    assert np.ptp(community.p[prev.n_seen :]) == pytest.approx(0.0)
    assert community.lengths.size == 300 and (community.lengths == 0).any() and not community.distinct


def test_simulated_censuses_have_the_expected_n_seen_and_new_items() -> None:
    """E N_seen = Σ_i 1 − (1 − π_i)^Q and E U = Σ_i (1 − π_i)^Q (1 − (1 − π_i)^{tQ}) for the
    with-replacement model (π_i = E_L[1 − (1 − p_i)^L]): the simulated means agree within 4 MC s.e."""
    community = fit_community(_census())
    q, t, b = 300, 2.0, 400
    sims = simulate(community, q, t, b, np.random.default_rng(1))
    pi = community.query_rates()
    expected_seen = float(np.sum(1 - (1 - pi) ** q))
    expected_new = float(np.sum((1 - pi) ** q * (1 - (1 - pi) ** (t * q))))
    assert abs(sims.n_seen.mean() - expected_seen) < 4 * sims.n_seen.std() / math.sqrt(b)
    assert abs(sims.new.mean() - expected_new) < 4 * sims.new.std() / math.sqrt(b)
    assert sims.queries.shape == (b, q) and (sims.queries.sum(axis=1) == sims.n_observations).all()
    assert sims.census(0).n_queries == q and sims.census(0).n_seen == sims.n_seen[0]


def test_distinct_answers_never_repeat_an_item() -> None:
    community = synthetic_community("lognormal")
    sims = simulate(community, 50, 1.0, 5, np.random.default_rng(0))
    prev = sims.census(3)
    assert prev.by_query is not None and prev.by_query.data.max() == 1


def test_no_community_without_singletons_or_doubletons() -> None:
    with pytest.raises(StatsError, match="no doubletons"):
        fit_community(Prevalence.from_counts([1, 1, 3, 4]))
    with pytest.raises(StatsError, match="no singletons"):
        fit_community(Prevalence.from_counts([2, 2, 3]))


def test_own_t_check_is_seeded_and_scores_the_census_estimator() -> None:
    prev = _census()
    plan = plan_estimator(prev, "et", 3.0, 8)
    a = own_t_check(fit_community(prev), plan, 300, 100, seed=4)
    b = own_t_check(fit_community(prev), plan, 300, 100, seed=4)
    assert (a.error, a.coverage, a.bias) == (b.error, b.coverage, b.bias)
    assert a.replicates == 100 and a.t == 3.0 and 0 <= a.coverage <= 1 and a.error > 0
    # the error relative to N_tot is the error relative to U scaled by E U / E N_tot
    assert a.error_total == pytest.approx(a.error * a.mean_new / a.mean_total)
    assert a.noise_floor == pytest.approx(1 / math.sqrt(a.mean_new))
    none, _, why = check_at_own_t(prev, plan_estimator(prev, "chao1"), 0)
    assert none is None and why is not None and "t = ∞" in why


@pytest.mark.slow
@pytest.mark.parametrize("name", SYNTHETIC)
@pytest.mark.parametrize("t", [1.0, 3.0])
def test_prediction_interval_covers_on_communities_never_seen(name: str, t: float) -> None:
    """The census's 95 % prediction interval holds the realised new items of an independent
    continuation in ≥ 89 % of 200 simulated censuses of 200 queries, at t = 1 and 3, on three
    communities unlike the theorem fixture; its mean interval score is at most 1.25 × the confidence
    interval's (Gneiting & Raftery 2007), which is reported beside it."""
    study = coverage_study(synthetic_community(name), 200, t, replicates=200, n_bootstrap=100, n_shuffles=30)
    assert study.prediction_coverage >= 0.89, study
    assert study.score_ratio <= 1.25, study
    assert 0 <= study.confidence_coverage <= 1 and study.scored >= 190


def test_synthetic_communities_are_named() -> None:
    with pytest.raises(StatsError, match="unknown synthetic community"):
        synthetic_community("uniform")
    assert isinstance(synthetic_community("zipf"), Community)


def test_the_own_t_sentence_says_n_a_for_undefined_figures_and_bounds_absurd_ones() -> None:
    """:func:`describe_own_t` on hand-made checks: NaN reads n/a (never nan%), a share past 10,000 %
    is bounded, n/a intervals are named as misses, and only an estimator with a k claims it was kept."""
    nan = float("nan")
    sizes = {"t": 2.0, "n_queries": 100, "replicates": 200, "community_size": 60, "undetected": 10}
    errors = {"error": nan, "error_total": 0.0, "error_se": 0.0, "bias": nan, "bias_items": 0.0}
    rest = {"mean_new": 0.0, "mean_total": 50.0, "coverage": 0.0, "coverage_se": 0.0, "unavailable": 0.0}
    base = OwnTCheck(**sizes, **errors, **rest, noise_floor=nan)  # type: ignore[arg-type]
    text = describe_own_t(base)
    assert "nan" not in text and "n/a of the new items U, bias n/a" in text
    assert "k =" not in text and "n/a in" not in text and "200 censuses of 100 queries" in text
    assert "(50 seen items + 10 unseen" in text
    wild = replace(base, error=3e29, error_total=2e28, error_se=5e27, bias=-4e29, unavailable=0.46)
    text = describe_own_t(replace(wild, k=6), whole="sample", unit="observations")
    assert "expected error over 10,000% of N_tot (± over 10,000% MC; over 10,000% of the new items U" in text
    assert (
        "bias below -10,000%" in text and "±over" not in text and "; n/a in 46% of them, each a miss)" in text
    )
    assert text.endswith("the sample's k = 6 kept") and "200 samples of 100 observations" in text


def test_counts_drawn_without_mentions_have_the_same_distribution() -> None:
    """``mentions=False`` draws a with-replacement census's counts as one multinomial: the expected
    N_seen and U (the closed forms of the test above) and the mean f1 of the mention draws agree
    within 4 MC s.e.; without replacement the mentions are drawn either way (the same values)."""
    community = fit_community(_census())
    assert not community.distinct
    q, t, b = 300, 2.0, 400
    fast = simulate(community, q, t, b, np.random.default_rng(2), mentions=False)
    slow = simulate(community, q, t, b, np.random.default_rng(3))
    pi = community.query_rates()
    expected_seen = float(np.sum(1 - (1 - pi) ** q))
    expected_new = float(np.sum((1 - pi) ** q * (1 - (1 - pi) ** (t * q))))
    assert abs(fast.n_seen.mean() - expected_seen) < 4 * fast.n_seen.std() / math.sqrt(b)
    assert abs(fast.new.mean() - expected_new) < 4 * fast.new.std() / math.sqrt(b)
    f1_fast, f1_slow = fast.hist[:, 1], slow.hist[:, 1]
    assert abs(f1_fast.mean() - f1_slow.mean()) < 4 * math.sqrt((f1_fast.var() + f1_slow.var()) / b)
    assert (fast.queries.sum(axis=1) == fast.n_observations).all() and fast.query_ids is None
    with pytest.raises(StatsError, match="without their mentions"):
        fast.census(0)
    distinct = synthetic_community("lognormal")
    a = simulate(distinct, 50, 1.0, 5, np.random.default_rng(0), mentions=False)
    c = simulate(distinct, 50, 1.0, 5, np.random.default_rng(0))
    assert (a.counts == c.counts).all() and (a.new == c.new).all()
