"""Invariants of the richness/diversity estimators (hypothesis), the bootstrap engine against a
replicate-by-replicate evaluation, and bad input (each must raise ``StatsError`` saying why)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.stats import (
    ABUNDANCE_ESTIMATORS,
    INCIDENCE_ESTIMATORS,
    Abundance,
    Incidence,
    Prevalence,
    StatsError,
    ace_shared,
    additional_for_coverage,
    additional_for_richness,
    asymptotic_hill,
    chao1_shared,
    chao1_shared_bc,
    coverage_at_size,
    diversity_at_size,
    estimate_richness,
    hill_numbers,
    observed_hill,
    observed_shared,
    rarefaction_extrapolation,
    sample_coverage,
    size_at_coverage,
)
from knowsum.stats.hill import draw_replicates

from .richness_data import ciliates, spider

counts_lists = st.lists(st.integers(0, 40), min_size=1, max_size=60).filter(lambda c: sum(c) > 0)


@st.composite
def incidences(draw: st.DrawFn) -> Incidence:
    units = draw(st.integers(2, 30))
    freqs = draw(st.lists(st.integers(0, units), min_size=1, max_size=60).filter(lambda c: sum(c) > 0))
    return Incidence(np.array(freqs), units)


@settings(max_examples=150, deadline=None)
@given(counts_lists)
def test_every_abundance_estimator_is_at_least_s_obs(counts: list[int]) -> None:
    data = Abundance(counts)
    for name in ABUNDANCE_ESTIMATORS:
        result = estimate_richness(data, name)
        assert result.estimate >= data.s_obs - 1e-9, name
        if result.interval is not None:
            assert result.interval[0] <= result.interval[1]


@settings(max_examples=100, deadline=None)
@given(incidences())
def test_every_incidence_estimator_is_at_least_s_obs(data: Incidence) -> None:
    for name in INCIDENCE_ESTIMATORS:
        assert estimate_richness(data, name).estimate >= data.s_obs - 1e-9, name


@settings(max_examples=100, deadline=None)
@given(counts_lists, st.lists(st.floats(1, 200), min_size=1, max_size=8))
def test_coverage_lies_in_the_unit_interval(counts: list[int], sizes: list[float]) -> None:
    data = Abundance(counts)
    cov = sample_coverage(data)
    assert 0.0 <= cov.coverage <= 1.0 and 0.0 <= cov.good_turing <= 1.0
    assert np.all((coverage_at_size(data, sizes) >= -1e-12) & (coverage_at_size(data, sizes) <= 1 + 1e-12))


@settings(max_examples=100, deadline=None)
@given(st.one_of(counts_lists.map(Abundance), incidences()))
def test_rarefied_curve_passes_through_the_sample(data: Abundance | Incidence) -> None:
    values = diversity_at_size(data, [data.size])[:, 0]
    np.testing.assert_allclose(values, observed_hill(data), rtol=1e-12)
    assert values[0] == data.s_obs
    curve = rarefaction_extrapolation(data, n_bootstrap=0).size_based
    j = int(np.nonzero(curve.size == data.size)[0][0])
    assert curve.diversity[0, j] == data.s_obs and curve.method[j] == "observed"
    assert np.all(np.diff(curve.diversity[0]) >= -1e-9)  # richness never decreases with effort


@settings(max_examples=100, deadline=None)
@given(st.one_of(counts_lists.map(Abundance), incidences()), st.floats(0.0, 1.0))
def test_hill_numbers_do_not_increase_with_q(data: Abundance | Incidence, fraction: float) -> None:
    observed = observed_hill(data)
    assert observed[0] >= observed[1] - 1e-9 >= observed[2] - 2e-9
    m = 1 + fraction * (data.size - 1)
    rarefied = diversity_at_size(data, [m])[:, 0]
    assert rarefied[0] >= rarefied[1] - 1e-9 and rarefied[1] >= rarefied[2] - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), st.integers(0, 12)), min_size=1, max_size=50))
def test_shared_is_at_most_each_observed_total_and_at_least_observed_shared(
    pairs: list[tuple[int, int]],
) -> None:
    x1, x2 = [a for a, _ in pairs], [b for _, b in pairs]
    if sum(x1) == 0 or sum(x2) == 0:
        return
    seen = observed_shared(x1, x2)
    assert seen.estimate <= min(seen.s_obs)
    for fn in (chao1_shared, chao1_shared_bc):
        assert fn(x1, x2).estimate >= seen.estimate - 1e-9


def test_shared_accepts_mappings_and_aligns_species() -> None:
    one, two = {"a": 3, "b": 1, "c": 2}, {"b": 2, "c": 1, "d": 5}
    assert observed_shared(one, two).estimate == 2
    assert chao1_shared(one, two).estimate == chao1_shared([3, 1, 2, 0], [0, 2, 1, 5]).estimate
    result = ace_shared(spider_counts("Girdled"), spider_counts("Logged"), seed=1)
    assert result.std_error is not None and result.interval is not None
    assert ace_shared(spider_counts("Girdled"), spider_counts("Logged"), seed=1) == result


def spider_counts(name: str) -> list[int]:
    """The spider counts padded to 37 species (a synthetic pair: only the shapes matter here)."""
    counts = spider(name).counts.tolist()
    return counts + [0] * (37 - len(counts))


@pytest.mark.parametrize("data", [spider("Girdled"), ciliates()], ids=["abundance", "incidence"])
def test_bootstrap_engine_equals_replicate_by_replicate_evaluation(data: Abundance | Incidence) -> None:
    seed, reps = 7, 40
    result = rarefaction_extrapolation(data, n_bootstrap=reps, seed=seed)
    draws = draw_replicates(data, reps, np.random.default_rng(seed))
    samples = [Abundance(r) if isinstance(data, Abundance) else Incidence(r, data.T) for r in draws]
    size_based = np.array([diversity_at_size(s, result.size_based.size) for s in samples])
    assert result.size_based.std_error is not None and result.coverage_based.std_error is not None
    np.testing.assert_allclose(
        result.size_based.std_error, size_based.std(axis=0, ddof=1), rtol=1e-6, atol=1e-9
    )
    targets = result.coverage_based.coverage
    cover_based = np.array(
        [[diversity_at_size(s, [size_at_coverage(s, c)])[:, 0] for c in targets] for s in samples]
    )
    np.testing.assert_allclose(
        result.coverage_based.std_error, cover_based.std(axis=0, ddof=1).T, rtol=1e-6, atol=1e-9
    )
    hill = hill_numbers(data, n_bootstrap=reps, seed=seed)
    asym = np.array([asymptotic_hill(s) for s in samples])
    assert hill.std_error is not None
    np.testing.assert_allclose(hill.std_error, asym.std(axis=0, ddof=1), rtol=1e-9)


def test_bootstrap_is_reproducible_and_marks_the_unreliable_range() -> None:
    data = spider("Girdled")
    one = rarefaction_extrapolation(data, sizes=[10, 168, 300, 400], n_bootstrap=30, seed=3)
    two = rarefaction_extrapolation(data, sizes=[10, 168, 300, 400], n_bootstrap=30, seed=3)
    assert one.size_based.std_error is not None and two.size_based.std_error is not None
    np.testing.assert_array_equal(one.size_based.std_error, two.size_based.std_error)
    assert one.size_based.method == ("rarefaction", "observed", "extrapolation", "extrapolation")
    assert one.size_based.beyond_double.tolist() == [False, False, False, True]
    lower, upper = one.size_based.lower, one.size_based.upper
    assert lower is not None and upper is not None
    assert np.all(lower <= one.size_based.diversity) and np.all(one.size_based.diversity <= upper)


BAD_COUNTS = [
    ([1, -2, 3], "non-negative"),
    ([1, 2.5, 3], "whole numbers"),
    ([], "empty"),
    ([0, 0], "all zero"),
    ([1, float("nan")], "whole numbers"),
    (["a", "b"], "non-negative integers"),
]


@pytest.mark.parametrize(("counts", "message"), BAD_COUNTS)
def test_bad_abundance_counts(counts: list[object], message: str) -> None:
    with pytest.raises(StatsError, match=message):
        Abundance(counts)  # type: ignore[arg-type]


def test_bad_incidence_data() -> None:
    with pytest.raises(StatsError, match="smaller than the largest incidence count"):
        Incidence([3, 5, 1], 4)
    with pytest.raises(StatsError, match="positive integer"):
        Incidence([1, 1], 0)
    with pytest.raises(StatsError, match="smaller than the 2 distinct units"):
        Incidence.from_pairs([("u1", "a"), ("u2", "b")], n_units=1)
    with pytest.raises(StatsError, match="whole numbers"):
        Incidence([1.5], 3)


def test_bad_targets_and_options() -> None:
    data = spider("Girdled")
    for coverage in (0.0, 1.0, 1.2, -0.1):
        with pytest.raises(StatsError, match="strictly between 0 and 1"):
            size_at_coverage(data, coverage)
        with pytest.raises(StatsError, match="strictly between 0 and 1"):
            rarefaction_extrapolation(data, coverages=[coverage], n_bootstrap=0)
    with pytest.raises(StatsError, match="already reached"):
        additional_for_coverage(data, 0.5)  # the sample's coverage is 0.93
    with pytest.raises(StatsError, match="already reached"):
        additional_for_richness(data, 0.5)  # S_obs is 0.59 of Chao1
    with pytest.raises(StatsError, match="no undetected species"):
        additional_for_richness(Abundance([2, 3, 4]), 0.9)
    with pytest.raises(StatsError, match="strictly between 0 and 1"):
        additional_for_richness(data, 1.0)
    with pytest.raises(StatsError, match="sizes must be"):
        diversity_at_size(data, [0.5])
    with pytest.raises(StatsError, match="orders q"):
        diversity_at_size(data, [10], q=3)
    with pytest.raises(StatsError, match="conf"):
        estimate_richness(data, "chao1", conf=1.5)
    with pytest.raises(StatsError, match="unknown abundance richness estimator 'chao2'"):
        estimate_richness(data, "chao2")
    with pytest.raises(StatsError, match="n_bootstrap"):
        hill_numbers(data, n_bootstrap=-1)
    with pytest.raises(StatsError, match="aligned"):
        observed_shared([1, 2], [1, 2, 3])
    with pytest.raises(StatsError, match=r"sample 2: .*non-negative"):
        chao1_shared([1, 2], [1, -2])


def test_degenerate_cases_follow_spader() -> None:
    # no singletons: Ŝ = S_obs, with SpadeR's var_obs interval (which starts at S_obs)
    no_singletons = Abundance([2, 2, 3, 5])
    result = estimate_richness(no_singletons, "chao1")
    assert result.estimate == 4 and result.variance == "observed"
    assert result.interval is not None and result.interval[0] == 4
    # f2 = 0 with f1 > 1: SpadeR switches Chao1 to the bias-corrected form
    assert estimate_richness(Abundance([1, 1, 1, 5]), "chao1").estimate == pytest.approx(4 + 7 / 8 * 3)
    # every rare species a singleton: ACE reports Chao1 (SpadeR)
    assert estimate_richness(Abundance([1, 1, 1, 20]), "ace").estimate == pytest.approx(
        estimate_richness(Abundance([1, 1, 1, 20]), "chao1").estimate
    )


def test_constructors_agree() -> None:
    prev = Prevalence.from_items(["a", "b", "a", "c", "a", "a"], queries=[1, 1, 2, 2, 3, 3])
    assert Abundance.from_prevalence(prev).counts.tolist() == [4, 1, 1]
    assert Abundance.from_items("abaaca").counts.tolist() == [4, 1, 1]
    assert Abundance.from_counts({"a": 4, "b": 1, "z": 0}).counts.tolist() == [4, 1]
    by_query = Incidence.from_prevalence(prev)  # queries as sampling units: "a" in all three
    assert (by_query.frequencies.tolist(), by_query.T) == ([3, 1, 1], 3)
    pairs = Incidence.from_pairs([(1, "a"), (1, "a"), (1, "b"), (2, "a"), (2, "c"), (3, "a")])
    assert (pairs.frequencies.tolist(), pairs.T, pairs.U) == ([3, 1, 1], 3, 5)
    matrix = Incidence.from_matrix([[1, 1, 2], [1, 0, 0], [0, 3, 0]])
    assert (matrix.frequencies.tolist(), matrix.T) == ([3, 1, 1], 3)
    with pytest.raises(StatsError, match="per-query counts"):
        Incidence.from_prevalence(Prevalence.from_counts([2, 1]))
