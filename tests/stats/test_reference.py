"""Estimators against published values (provenance: the project's estimator_reference README,
summarized at each table below; the Fisher data is ``examples/fisher_butterflies.tsv``)."""

from __future__ import annotations

import pytest

from knowsum.stats import Prevalence, chao1, estimate_unseen

# Good–Toulmin on Fisher's butterflies, t = 0.1 … 1.0, and sd(t) = sqrt(Σ n_s t^(2s))
# (Efron & Thisted 1976; Efron & Hastie, Computer Age Statistical Inference §6.1). The published
# figures have two decimals, so the tolerance is half a unit of the last digit.
GT_T = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
GT_E = [11.10, 20.96, 29.79, 37.79, 45.17, 52.15, 58.93, 65.57, 71.56, 75.00]
GT_SD = [1.09, 2.20, 3.35, 4.58, 5.91, 7.40, 9.14, 11.32, 14.56, 22.38]
TOL_2DP = 0.005 + 1e-9


@pytest.mark.parametrize(("t", "expected", "sd"), list(zip(GT_T, GT_E, GT_SD, strict=True)))
def test_good_toulmin_fisher_curve_and_standard_errors(
    fisher: Prevalence, t: float, expected: float, sd: float
) -> None:
    est = estimate_unseen(fisher, "good-toulmin", t=t)
    assert est.estimate == pytest.approx(expected, abs=TOL_2DP)
    assert est.diagnostics.std_error == pytest.approx(sd, abs=TOL_2DP)


def test_good_toulmin_fisher_t1_is_75_exactly(fisher: Prevalence) -> None:
    # E(1) = n1 - n2 + n3 - ... = 75 (the figure quoted in the literature)
    assert estimate_unseen(fisher, "good-toulmin", t=1.0).estimate == pytest.approx(75.0, abs=1e-9)


def test_fisher_sample_sizes(fisher: Prevalence) -> None:
    assert (fisher.n_seen, fisher.n_observations, fisher.f(1), fisher.max_count) == (501, 3306, 118, 24)


# Chao1 values published by peer software, checked with copia's own tolerance (rtol = 1e-3):
# copia tests/test_richness.py (test_chao1, test_chao1_f2 vs the SpadeR shiny app, test_spider vs
# iNEXT). NB: copia's f2 = 0 case *removes* the two doubletons of the SpadeR demo (the reference README
# says "replaced by 1s", which would give f1 = 5 and Chao1 = 34.99).
SPADER_DEMO = [
    752,
    276,
    194,
    126,
    121,
    97,
    95,
    83,
    72,
    44,
    39,
    0,
    16,
    15,
    0,
    13,
    9,
    9,
    9,
    8,
    7,
    4,
    0,
    0,
    2,
    2,
    1,
    1,
    1,
]
SPADER_NO_F2 = [c for c in SPADER_DEMO if c != 2]
SPIDER_GIRDLED = [46, 22, 17, 15, 15, 9, 8, 6, 6, 4, 2, 2, 2, 2] + [1] * 12
SPIDER_LOGGED = [88, 22, 16, 15, 13, 10, 8, 8, 7, 7, 7, 5, 4, 4, 4, 3, 3, 3, 3, 2, 2, 2, 2] + [1] * 14


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ([1, 1, 1, 2, 3, 5, 10, 25], 12.4),
        ([1, 1, 1, 2, 3, 5, 10, 25, 0, 0], 12.4),
        ([1, 1, 1, 1, 3, 5, 10, 25], 13.8722),  # f2 = 0 branch
        (SPADER_DEMO, 27.249),
        (SPADER_NO_F2, 25.998),
        (SPIDER_GIRDLED, 43.893),
        (SPIDER_LOGGED, 61.403),
    ],
)
def test_chao1_classic_matches_copia_spader_inext(counts: list[int], expected: float) -> None:
    est = chao1(Prevalence.from_counts(counts), form="classic")
    assert est.n_total == pytest.approx(expected, rel=1e-3)
    assert est.estimate == pytest.approx(est.n_total - est.n_seen)


def test_chao1_bias_corrected_matches_scikit_bio() -> None:
    est = chao1(Prevalence.from_counts([0, 1, 1, 4, 2, 5, 2, 4, 1, 2]))
    assert est.n_total == pytest.approx(9.75, abs=1e-12)
    assert estimate_unseen(Prevalence.from_counts([0, 1, 1, 4, 2, 5, 2, 4, 1, 2]), "chao1").n_total == 9.75


def test_goods_coverage_matches_scikit_bio() -> None:
    prev = Prevalence.from_counts([1] * 75 + [2, 2, 2, 2, 2, 2, 3, 4, 4])
    assert prev.coverage == pytest.approx(0.23469387755, abs=1e-11)


def test_et_with_k_at_least_max_count_and_t1_equals_good_toulmin_shrunk(fisher: Prevalence) -> None:
    # At t = 1, h_s = -(-1)^s P(Bin(k, 1/2) >= s); for k = 1, Û = n_1 / 2 exactly.
    assert estimate_unseen(fisher, "et", t=1.0, k=1).estimate == pytest.approx(118 / 2)
    # k = 2: h_1 = 3/4, h_2 = -1/4
    assert estimate_unseen(fisher, "et", t=1.0, k=2).estimate == pytest.approx(0.75 * 118 - 0.25 * 74)
