"""Property tests (hypothesis) of the estimators and the held-out selection."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from knowsum.stats import (
    ESTIMATORS,
    Prevalence,
    StatsError,
    StatsWarning,
    estimate_unseen,
    select_k,
    theorem1_bound,
)

# prevalence tables with up to 25 distinct counts in 1..60, each n_s in 0..200, at least one item
tables = st.dictionaries(st.integers(1, 60), st.integers(0, 200), min_size=1, max_size=25).filter(
    lambda d: sum(d.values()) > 0
)
LINEAR = ["et", "good-toulmin"]


def quiet(prev: Prevalence, name: str, t: float, k: int | None = None) -> float:
    """``Û`` as computed (the formula's value, before the report's ``max(Û, 0)``)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        return estimate_unseen(prev, name, t=t, k=k).raw


WEIGHTED = ("et", "osw-binomial", "osw-poisson", "good-toulmin")  # the linear family, Û = Σ h_s f_s


@settings(max_examples=80, deadline=None)
@given(
    table=tables,
    name=st.sampled_from(sorted(ESTIMATORS)),
    t=st.floats(0.05, 200.0),
    k=st.integers(1, 20),
)
def test_reported_point_is_coherent_for_every_estimator(
    table: dict[int, int], name: str, t: float, k: int
) -> None:
    """Issue 20: whatever the sample, the reported point has Û = max(raw, 0) ≥ 0, N̂_tot ≥ N_seen
    and SKR in (0, 1]; a negative raw value is flagged and warned about. And Û ≤ t·n, the most new
    items t·n further observations can show: a raw value above it is reported as t·n, flagged."""
    prev = Prevalence.from_table(table)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
        try:
            est = estimate_unseen(prev, name, t=t, k=k)
        except StatsError:  # an unsmoothed weight overflowed (Good–Toulmin at large t): no estimate
            assume(False)
            return
    ceiling = math.inf if est.t is None else est.t * prev.n_observations  # Chao1: t = ∞
    if name in WEIGHTED and prev.f(1) == 0:  # no singletons, no evidence of unseen items: Û = 0
        ceiling = 0.0
    assert est.estimate == min(max(est.raw, 0.0), ceiling) >= 0
    assert any(c.mark == "Û capped at t·n" for c in est.caveats) == (est.raw > ceiling > 0)
    assert est.n_total >= est.n_seen == prev.n_seen
    assert 0 < est.skr <= 1
    assert est.diagnostics.negative == (est.raw < 0)
    assert any("negative" in str(w.message) for w in caught) == (est.raw < 0)


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 30), min_size=1, max_size=40), seed=st.integers(0, 2**32 - 1))
def test_permutation_invariance(counts: list[int], seed: int) -> None:
    items = [f"item{i}" for i, c in enumerate(counts) for _ in range(c)]
    shuffled = items[:]
    random.Random(seed).shuffle(shuffled)
    a, b = Prevalence.from_items(items), Prevalence.from_items(shuffled)
    for name in ("et", "osw-binomial", "osw-poisson", "chao1"):
        assert quiet(a, name, 5.0, 8) == quiet(b, name, 5.0, 8)


@settings(max_examples=40, deadline=None)
@given(table=tables, k=st.integers(1, 30))
def test_unseen_vanishes_as_t_goes_to_zero(table: dict[int, int], k: int) -> None:
    prev = Prevalence.from_table(table)
    for name in LINEAR:
        values = [abs(quiet(prev, name, t, k)) for t in (1e-3, 1e-6, 1e-9)]
        # Û(t) = t·n_1 + O(t²): linear decay towards 0
        assert values[2] <= 2e-9 * prev.n_seen + 1e-12
        assert values[2] <= values[1] <= values[0] + 1e-12


@settings(max_examples=40, deadline=None)
@given(table=tables, copies=st.integers(2, 5), t=st.floats(0.1, 50.0), k=st.integers(1, 20))
def test_disjoint_copies_scale_unseen_and_keep_skr(
    table: dict[int, int], copies: int, t: float, k: int
) -> None:
    """c disjoint copies of the population: n_s → c·n_s, so Û → c·Û and SKR is unchanged."""
    prev = Prevalence.from_table(table)
    scaled = Prevalence.from_table({s: copies * n for s, n in table.items()})
    a, b = quiet(prev, "et", t, k), quiet(scaled, "et", t, k)
    assert b == pytest.approx(copies * a, rel=1e-9, abs=1e-9)
    if a + prev.n_seen != 0:
        ea = estimate_unseen(prev, "et", t=t, k=k) if a >= 0 else None
        eb = estimate_unseen(scaled, "et", t=t, k=k) if b >= 0 else None
        if ea is not None and eb is not None:
            assert eb.skr == pytest.approx(ea.skr, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(counts=st.lists(st.integers(1, 30), min_size=1, max_size=40), k=st.integers(1, 10))
def test_repeating_every_observation_more_than_k_times_leaves_nothing_unseen(
    counts: list[int], k: int
) -> None:
    """Multiplying every count by c > k removes all n_s with s ≤ k: ET sees no rare items."""
    prev = Prevalence.from_counts([c * (k + 1) for c in counts])
    assert quiet(prev, "et", 100.0, k) == 0.0
    assert quiet(Prevalence.from_counts([c * 3 for c in counts]), "chao1", 1.0) == 0.0


@settings(max_examples=60, deadline=None)
@given(table=tables, k=st.integers(1, 30), extra=st.floats(0.0, 1e4))
def test_theorem1_bound_holds_whenever_t_at_least_k_minus_1(
    table: dict[int, int], k: int, extra: float
) -> None:
    t = max(k - 1 + extra, 1e-3)
    prev = Prevalence.from_table(table)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        est = estimate_unseen(prev, "et", t=t, k=k)
    bound = theorem1_bound(prev.n_seen, t, k)
    assert bound is not None and est.diagnostics.theorem1_bound == bound
    assert abs(est.estimate) <= bound * (1 + 1e-9)  # the proof bounds |Û| (KnowSum App. A, eq. 2)
    assert est.diagnostics.within_bound is True


def test_theorem1_bound_not_applicable_below_k_minus_1() -> None:
    assert theorem1_bound(10, 2.0, 8) is None
    assert (
        estimate_unseen(Prevalence.from_counts([1, 1, 1]), "et", t=2.0, k=8).diagnostics.within_bound is None
    )


def random_queries(rng: np.random.Generator, n_queries: int) -> Prevalence:
    weights = 1 / np.arange(1, 301) ** 1.2
    items = rng.choice(300, size=n_queries * 10, p=weights / weights.sum())
    return Prevalence.from_items(items.tolist(), np.repeat(np.arange(n_queries), 10).tolist())


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), data_seed=st.integers(0, 10_000), by_query=st.booleans())
def test_select_k_returns_a_candidate_and_is_reproducible(seed: int, data_seed: int, by_query: bool) -> None:
    prev = random_queries(np.random.default_rng(data_seed), 40)
    if not by_query:
        prev = Prevalence.from_counts(prev.counts)
    first = select_k(prev, candidates=(6, 8, 10), n_shuffles=20, seed=seed)
    again = select_k(prev, candidates=(6, 8, 10), n_shuffles=20, seed=seed)
    assert first.k in (6, 8, 10)
    assert first == again
    assert first.method == ("queries" if by_query else "thinning")
    assert all(math.isfinite(x) and x >= 0 for x in first.nmse)
    assert first.nmse[first.candidates.index(first.k)] == min(first.nmse)
