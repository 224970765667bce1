"""Metric unit tests on hand-computed cases (paper §4.1, §5.1–5.2, §6.1) and properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.recall import granger_f
from knowsum.recall.metrics import (
    assign_buckets,
    bucket_edges,
    jaccard,
    label_tokens,
    levenshtein,
    prediction_invariance,
    repetition_ratio,
)


def wagner_fischer(a: str, b: str) -> int:
    """Textbook O(nm) dynamic programme (Wagner & Fischer 1974), the reference implementation."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("GO:0060219", "GO:0060519", 1),  # the paper's example (§4.1): one digit changed
        ("GO:0001822", "GO:0001822", 0),
        ("GO:0001822", "GO:001822", 1),  # one deletion
        ("A00.1", "A00", 2),  # ICD-10: drop ".1"
        ("kitten", "sitting", 3),  # Levenshtein's classic: k→s, e→i, +g
        ("", "GO:1", 4),
        ("GO:0003179", "GO:0061384", 5),
        ("GO:0060993", "GO:0001822", 5),  # LCS "000" gives >= 4; every 4-edit script fails
        ("GO:0051302", "GO:2000145", 5),
        ("GO:0060519", "GO:9999999", 6),
    ],
)
def test_levenshtein_hand_cases(a: str, b: str, expected: int) -> None:
    assert levenshtein(a, b) == expected
    assert wagner_fischer(a, b) == expected


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="GO:0123456789", max_size=12), st.text(alphabet="GO:0123456789", max_size=12))
def test_levenshtein_matches_reference_dp(a: str, b: str) -> None:
    d = levenshtein(a, b)
    assert d == wagner_fischer(a, b) == levenshtein(b, a)
    assert abs(len(a) - len(b)) <= d <= max(len(a), len(b))


def test_paper_tokens_keep_punctuation_and_compounds() -> None:
    """NLTK word_tokenize style (the authors' tokenizer): hand-checked against NLTK 3.10's
    NLTKWordTokenizer on these labels."""
    from knowsum.recall import paper_tokens

    assert paper_tokens("Camera-type eye photoreceptor cell differentiation") == {
        "camera-type",
        "eye",
        "photoreceptor",
        "cell",
        "differentiation",
    }
    assert paper_tokens("positive regulation of T-cell (CD4+) activation, via 5'-UTR") == {
        "positive",
        "regulation",
        "of",
        "t-cell",
        "(",
        "cd4+",
        ")",
        "activation",
        ",",
        "via",
        "5'-utr",
    }
    assert paper_tokens("3',5'-cyclic-AMP phosphodiesterase activity") >= {"activity", "phosphodiesterase"}


def test_label_tokens_and_jaccard_hand_cases() -> None:
    # the paper's §4.1 examples: two and three shared words
    assert (
        jaccard(label_tokens("heart valve morphogenesis"), label_tokens("heart trabecula morphogenesis"))
        == 0.5
    )
    assert (
        jaccard(label_tokens("regulation of cell division"), label_tokens("regulation of cell motility"))
        == 0.6
    )
    assert label_tokens("Camera-type eye, photoreceptor") == {"camera", "type", "eye", "photoreceptor"}
    assert jaccard(label_tokens("Kidney  development"), label_tokens("kidney development")) == 1.0
    assert jaccard(set(), set()) == 0.0
    assert jaccard({"a"}, set()) == 0.0
    assert jaccard(["a", "a", "b"], ["b", "c"]) == pytest.approx(1 / 3)


@settings(max_examples=100, deadline=None)
@given(st.sets(st.sampled_from("abcdefg")), st.sets(st.sampled_from("abcdefg")))
def test_jaccard_properties(a: set[str], b: set[str]) -> None:
    j = jaccard(a, b)
    assert 0.0 <= j <= 1.0
    assert j == jaccard(b, a)
    assert (j == 1.0) == (a == b and bool(a))


def test_prediction_invariance_hand_cases() -> None:
    assert prediction_invariance(["GO:1"] * 10) == 1.0  # PI-1: always the same answer
    assert prediction_invariance([f"GO:{i}" for i in range(11)]) == 0.0  # PI-2: M = 11 different
    assert prediction_invariance(["a", "a", "b", "a", "c"]) == pytest.approx(1 - 2 / 4)  # U = 3, M = 5
    assert prediction_invariance([None, None, "a"]) == pytest.approx(0.5)  # "no ID" is one answer
    with pytest.raises(ValueError, match="M >= 2"):
        prediction_invariance(["a"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=2, max_size=12))
def test_prediction_invariance_range(answers: list[str | None]) -> None:
    pi = prediction_invariance(answers)
    assert 0.0 <= pi <= 1.0
    assert (pi == 1.0) == (len(set(answers)) == 1)


def test_buckets_use_distinct_values_and_keep_ties_together() -> None:
    # 9 concepts, D = 5 distinct values {0, 1, 2, 3, 4}, 2 buckets: floor(5/2) = 2 values per bucket,
    # the last takes the remainder → bucket 1 = {0, 1}, bucket 2 = {2, 3, 4}. The five 0s stay together.
    values = [0, 0, 0, 0, 0, 1, 2, 3, 4]
    edges = bucket_edges(values, n_buckets=2)
    assert edges.tolist() == [0.0, 2.0, 4.0]
    assert assign_buckets(values, edges).tolist() == [1, 1, 1, 1, 1, 1, 2, 2, 2]


def test_bucket_rule_hand_case_and_boundaries() -> None:
    # distinct values 0 5 10 50 200 500 1000 5000 (D = 8), 3 buckets: 2, 2, 4 values
    edges = bucket_edges([0, 5, 10, 10, 50, 200, 500, 1000, 5000, 0], n_buckets=3)
    assert edges.tolist() == [0.0, 10.0, 200.0, 5000.0]
    b = assign_buckets([0, 5, 9.9, 10, 50, 199, 200, 5000, 9999, -1], edges)
    assert b.tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3, 1]  # lower edge inclusive; beyond the ends clipped


def test_bucket_rule_matches_the_authors_subdivide_into_percentile() -> None:
    """The authors' released code (``subdivide_into_percentile`` in Performance_analysis/
    compute_performance.py): ``D // perc`` sorted distinct values per bucket, index capped at
    ``perc − 1``. Re-implemented here from its text as the reference, on long-tailed data."""
    rng = np.random.default_rng(3)
    values = np.floor(rng.pareto(1.2, size=5000) * 10).tolist()
    for perc in (3, 7, 50):
        distinct = sorted(set(values))
        per = len(distinct) // perc
        reference = {v: min(i // per, perc - 1) + 1 for i, v in enumerate(distinct)}
        got = assign_buckets(values, bucket_edges(values, perc))
        assert got.tolist() == [reference[v] for v in values]


def test_fewer_distinct_values_than_buckets() -> None:
    edges = bucket_edges([7, 7, 7, 9], n_buckets=4)  # D = 2 < 4: one bucket per distinct value
    b = assign_buckets([7, 7, 7, 9], edges)
    assert b.tolist() == [1, 1, 1, 2]
    assert edges.tolist() == [7.0, 9.0, 9.0]
    with pytest.raises(ValueError, match="no popularity"):
        bucket_edges([], 3)
    with pytest.raises(ValueError, match="finite"):
        bucket_edges([1, math.inf], 3)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=200), st.integers(1, 60))
def test_bucketing_properties(values: list[int], n: int) -> None:
    edges = bucket_edges(values, n)
    b = assign_buckets(values, edges)
    assert b.min() >= 1 and b.max() <= min(n, len(set(values)))
    order = np.argsort(values, kind="stable")
    assert np.all(np.diff(b[order]) >= 0)  # monotone in popularity
    for v in set(values):  # equal values share a bucket
        assert len(set(b[np.asarray(values) == v].tolist())) == 1
    if len(set(values)) > 1:
        assert b[int(np.argmin(values))] == 1 and b[int(np.argmax(values))] == min(n, len(set(values)))


def test_repetition_ratio_hand_cases() -> None:
    # 500 repeated IDs; bucket with 10% of the ontology expects 50: 100 observed → R_B = 2
    assert repetition_ratio(100, 4_000, 40_000, 500) == pytest.approx(2.0)
    assert repetition_ratio(0, 4_000, 40_000, 500) == 0.0
    assert math.isnan(repetition_ratio(3, 0, 40_000, 500))


def test_granger_detects_a_lagged_cause() -> None:
    rng = np.random.default_rng(0)
    cause = rng.normal(size=60)
    effect = np.roll(cause, 2) + 0.1 * rng.normal(size=60)  # effect_t ≈ cause_{t−2}
    f, p = granger_f(effect.tolist(), cause.tolist())
    assert f is not None and p is not None
    assert f > 50 and p < 1e-6
    noise_f, noise_p = granger_f(rng.normal(size=60).tolist(), cause.tolist())
    assert noise_f is not None and noise_p is not None and noise_p > 0.01
    assert granger_f([0.1, 0.2, 0.3], [1, 2, 3]) == (None, None)  # too short for lag 3
    assert granger_f([0.5] * 20, list(range(20))) == (None, None)  # constant effect


def test_granger_permutation_matches_statsmodels_and_separates_cause_from_noise() -> None:
    from knowsum.stats import granger_test
    from knowsum.stats.granger import _batched_f

    rng = np.random.default_rng(1)
    cause = rng.normal(size=50)
    effect = np.roll(cause, 1) + 0.5 * rng.normal(size=50)
    # the batched closed form equals statsmodels' ssr_ftest on the observed and on shuffled series
    for x in (cause, rng.permutation(cause), rng.permutation(cause)):
        f_sm, _ = granger_f(effect.tolist(), x.tolist())
        assert f_sm is not None
        assert float(_batched_f(effect, x[None, :], 3)[0]) == pytest.approx(f_sm, rel=1e-9)
    res = granger_test(effect.tolist(), cause.tolist(), n_perm=999, seed=0)
    f_sm, p_sm = granger_f(effect.tolist(), cause.tolist())
    assert res is not None and res.n == 50 and res.n_perm == 999
    assert res.f == pytest.approx(f_sm, rel=1e-9) and res.p_value == pytest.approx(p_sm, rel=1e-6)
    assert res.perm_p_value == pytest.approx(1 / 1000)  # no shuffle beats a real lag-1 cause
    noise = granger_test(rng.normal(size=50).tolist(), cause.tolist(), n_perm=999, seed=0)
    assert noise is not None and noise.perm_p_value is not None and noise.perm_p_value > 0.05
    # the permutation p tracks the parametric one under the null (both uniform-ish, same ballpark)
    assert abs(noise.perm_p_value - noise.p_value) < 0.15
    again = granger_test(rng.normal(size=50).tolist(), cause.tolist(), n_perm=0)
    assert again is not None and again.perm_p_value is None
    assert granger_test([0.1, 0.2, 0.3], [1, 2, 3]) is None
