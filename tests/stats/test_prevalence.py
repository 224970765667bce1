"""Prevalence: the three constructors, validation at construction, immutability."""

from __future__ import annotations

import numpy as np
import pytest

from knowsum.stats import Prevalence, StatsError


def test_from_items_counts_and_histogram() -> None:
    prev = Prevalence.from_items(["a", "b", "a", "c", "a", "b"])
    assert dict(zip(prev.labels or (), prev.counts.tolist(), strict=True)) == {"a": 3, "b": 2, "c": 1}
    assert prev.table() == {1: 1, 2: 1, 3: 1}
    assert (prev.n_seen, prev.n_observations, prev.max_count, prev.n_queries) == (3, 6, 3, None)


def test_from_items_with_queries_builds_the_query_matrix() -> None:
    prev = Prevalence.from_items(["a", "b", "a", "a"], queries=["q1", "q1", "q2", "q2"])
    assert prev.n_queries == 2
    assert prev.by_query is not None
    assert prev.by_query.toarray().tolist() == [[1, 1], [2, 0]]


def test_the_three_constructors_agree() -> None:
    a = Prevalence.from_items(list("aaabbc"))
    b = Prevalence.from_counts({"a": 3, "b": 2, "c": 1, "never": 0})
    c = Prevalence.from_table([(1, 1), (2, 1), (3, 1)])
    d = Prevalence.from_table({3: 1, 2: 1, 1: 1, 7: 0})
    for other in (b, c, d):
        assert np.array_equal(a.n_s, other.n_s)
    assert b.labels == ("a", "b", "c")


def test_arrays_are_read_only_and_object_frozen() -> None:
    prev = Prevalence.from_counts([1, 2])
    with pytest.raises(ValueError):
        prev.counts[0] = 5
    with pytest.raises(ValueError):
        prev.n_s[1] = 5
    with pytest.raises(AttributeError):
        prev.counts = np.array([1])  # type: ignore[misc]


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Prevalence.from_items([]), "empty input"),
        (lambda: Prevalence.from_counts({"a": 0}), "empty input"),
        (lambda: Prevalence.from_counts({"a": -1}), "non-negative integer"),
        (lambda: Prevalence.from_counts({"a": 2.5}), "non-negative integer"),
        (lambda: Prevalence.from_counts({"a": True}), "non-negative integer"),
        (lambda: Prevalence.from_counts({"a": "3"}), "non-negative integer"),
        (lambda: Prevalence.from_counts(np.array([1.0, np.nan])), "non-negative integers"),
        (lambda: Prevalence.from_counts(np.array([1, -2])), "non-negative integers"),
        (lambda: Prevalence.from_table([(0, 3)]), "s must be >= 1"),
        (lambda: Prevalence.from_table([(1, 3), (1, 4)]), "appears twice"),
        (lambda: Prevalence.from_table([(2, -1)]), "non-negative integer"),
        (lambda: Prevalence.from_items(["a", "b"], queries=["q"]), "1 query ids for 2 observations"),
    ],
)
def test_invalid_input_raises_stats_error(build: object, message: str) -> None:
    with pytest.raises(StatsError, match=message):
        build()  # type: ignore[operator]


def test_integral_floats_are_accepted() -> None:
    assert Prevalence.from_counts([2.0, 1.0]).table() == {1: 1, 2: 1}


def test_stats_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        Prevalence.from_counts([-1])


@pytest.mark.parametrize(
    "build",
    [
        lambda: Prevalence.from_counts({"a": 10**20}),
        lambda: Prevalence.from_counts(np.array([1e30])),
        lambda: Prevalence.from_table({1: 10**20}),
        lambda: Prevalence.from_table({1: 10**9}),  # more than MAX_ITEMS distinct items
    ],
)
def test_absurdly_large_counts_are_refused_not_overflowed(build: object) -> None:
    with pytest.raises(StatsError, match=r"too large|more than"):
        build()  # type: ignore[operator]
