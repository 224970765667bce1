"""Every value of the estimator reference README, reproduced to its printed precision.

Source: ``tests/fixtures/estimate_reference/README.md`` (vendored from the project's reference set;
values printed by iNEXT 3.0.2 and its vignette, SpadeR 0.1.1 ``ChaoSpecies(..., k = 10)``, vegan
2.6-4 ``estimateR``/``specpool``, R sprex ``num.samples.required``, and the copia / scikit-bio test
suites). Unless a comment says otherwise, the tolerance is half a unit of the last printed digit
(:func:`half_unit`); the table row each test checks is named in its comment.
"""

from __future__ import annotations

import hashlib

import pytest

from knowsum.stats import (
    Abundance,
    ace,
    additional_for_coverage,
    additional_for_richness,
    asymptotic_hill,
    chao1_bc,
    chao1_bc_vegan,
    chao1_classic,
    chao2,
    chao2_bc,
    coverage_at_size,
    diversity_at_size,
    ice,
    ice1,
    ichao1,
    ichao2,
    jackknife1,
    jackknife2,
    observed_hill,
    sample_coverage,
    size_at_coverage,
)

from .richness_data import REFERENCE, ciliates, half_unit, spider


def close(actual: float, printed: str) -> None:
    assert actual == pytest.approx(float(printed), abs=half_unit(printed))


GIRDLED, LOGGED = spider("Girdled"), spider("Logged")
CILIATES = ciliates()


def test_vendored_files_match_the_checksums_in_their_readme() -> None:
    readme = (REFERENCE / "README.md").read_text()
    for name in (
        "spider_Girdled.counts.tsv",
        "spider_Logged.counts.tsv",
        "ciliates_EtoshaPan.items.tsv",
        "fisher_butterflies_prevalence.tsv",
    ):
        digest = hashlib.sha256((REFERENCE / name).read_bytes()).hexdigest()
        assert f"`{name}` | `{digest}`" in readme


def test_data_summaries_as_the_readme_states() -> None:
    # "Girdled: n = 168, S_obs = 26, f1..f4 = 12, 4, 0, 1. Logged: n = 252, S_obs = 37, f1..f4 = 14, 4, 4, 3."
    assert (GIRDLED.n, GIRDLED.s_obs, [GIRDLED.f(k) for k in range(1, 5)]) == (168, 26, [12, 4, 0, 1])
    assert (LOGGED.n, LOGGED.s_obs, [LOGGED.f(k) for k in range(1, 5)]) == (252, 37, [14, 4, 4, 3])
    # "T = 19 sampling units, S_obs = 216, U = 516 incidences, Q1..Q10 = 107, 44, 26, 14, 6, 5, 4, 3, 2, 2"
    assert (CILIATES.T, CILIATES.s_obs, CILIATES.U) == (19, 216, 516)
    assert [CILIATES.f(k) for k in range(1, 11)] == [107, 44, 26, 14, 6, 5, 4, 3, 2, 2]


@pytest.mark.parametrize(("data", "printed"), [(GIRDLED, "0.928855"), (LOGGED, "0.944571")])
def test_sample_coverage_spider(data: Abundance, printed: str) -> None:
    # row "sample coverage Ĉ (Chao & Jost 2012)", iNEXT DataInfo
    close(sample_coverage(data).coverage, printed)


@pytest.mark.parametrize(
    ("data", "est", "se", "lo", "hi"),
    [(GIRDLED, "43.893", "14.306", "30.511", "96.971"), (LOGGED, "61.403", "18.532", "43.502", "128.583")],
)
def test_chao1_with_standard_error_and_lognormal_interval(
    data: Abundance, est: str, se: str, lo: str, hi: str
) -> None:
    # row "Chao1 = S + (n−1)/n · f1²/(2 f2)", iNEXT ChaoRichness and SpadeR
    result = chao1_classic(data)
    assert result.std_error is not None and result.interval is not None
    close(result.estimate, est)
    close(result.std_error, se)
    close(result.interval[0], lo)
    close(result.interval[1], hi)


@pytest.mark.parametrize(("data", "printed"), [(GIRDLED, "39.121"), (LOGGED, "55.128")])
def test_chao1_bc_spader_form(data: Abundance, printed: str) -> None:
    # row "Chao1-bc, SpadeR form (with (n−1)/n)"
    close(chao1_bc(data).estimate, printed)


@pytest.mark.parametrize(("data", "est", "se"), [(GIRDLED, "39.2", "10.207"), (LOGGED, "55.2", "13.145")])
def test_chao1_bc_vegan_form(data: Abundance, est: str, se: str) -> None:
    # row "Chao1-bc, vegan form (no (n−1)/n)", vegan estimateR S.chao1 and se.chao1
    result = chao1_bc_vegan(data)
    assert result.std_error is not None
    close(result.estimate, est)
    close(result.std_error, se)


@pytest.mark.parametrize(("data", "printed"), [(GIRDLED, "43.893"), (LOGGED, "65.181")])
def test_ichao1(data: Abundance, printed: str) -> None:
    # row "iChao1 (Chiu et al. 2014)", SpadeR
    close(ichao1(data).estimate, printed)


@pytest.mark.parametrize(("data", "est", "cv"), [(GIRDLED, "48.415", "1.024"), (LOGGED, "52.685", "0.796")])
def test_ace_and_its_cv(data: Abundance, est: str, cv: str) -> None:
    # row "ACE, rare threshold 10", vegan S.ACE, SpadeR, scikit-bio (CV_rare from SpadeR's data summary)
    result = ace(data)
    close(result.estimate, est)
    close(result.parameters["CV_rare"], cv)


@pytest.mark.parametrize(
    ("data", "first", "second"), [(GIRDLED, "37.929", "45.857"), (LOGGED, "50.944", "60.881")]
)
def test_jackknives_abundance(data: Abundance, first: str, second: str) -> None:
    # row "1st / 2nd order jackknife", SpadeR
    close(jackknife1(data).estimate, first)
    close(jackknife2(data).estimate, second)


@pytest.mark.parametrize(
    ("data", "asymptotic", "observed"),
    [
        (GIRDLED, ("43.893", "13.826", "8.175"), ("26", "12.060", "7.840")),
        (LOGGED, ("61.403", "16.337", "6.920"), ("37", "14.421", "6.761")),
    ],
)
def test_hill_numbers_asymptotic_and_observed(
    data: Abundance, asymptotic: tuple[str, ...], observed: tuple[str, ...]
) -> None:
    # rows "Hill numbers, asymptotic" (iNEXT AsyEst, vignette) and "Hill numbers, observed" (iNEXT)
    for value, printed in zip(asymptotic_hill(data), asymptotic, strict=True):
        close(float(value), printed)
    for value, printed in zip(observed_hill(data), observed, strict=True):
        close(float(value), printed)


@pytest.mark.parametrize(
    ("data", "points"),
    [
        (GIRDLED, [(84, "18.912", "0.900"), (248, "30.883", "0.948"), (336, "34.731", "0.964")]),
        (LOGGED, [(126, "28.268", None), (371, "42.786", None), (504, "47.644", None)]),
    ],
)
def test_size_based_richness_curve(data: Abundance, points: list[tuple[int, str, str | None]]) -> None:
    # row "size-based R/E, q = 0", iNEXT vignette (m = 84 and 126 interpolated, the others extrapolated)
    sizes = [m for m, _, _ in points]
    richness = diversity_at_size(data, sizes, 0)[0]
    coverage = coverage_at_size(data, sizes)
    for j, (_, printed, sc) in enumerate(points):
        close(float(richness[j]), printed)
        if sc is not None:
            close(float(coverage[j]), sc)


def test_size_based_q012_at_m10() -> None:
    # row "size-based R/E, m = 10, q = 0, 1, 2": 6.478617, 5.608968, 4.759772 (SC 0.5969308), iNEXT
    values = diversity_at_size(GIRDLED, [10])[:, 0]
    for value, printed in zip(values, ("6.478617", "5.608968", "4.759772"), strict=True):
        close(float(value), printed)
    close(float(coverage_at_size(GIRDLED, [10])[0]), "0.5969308")


@pytest.mark.parametrize(
    ("data", "size", "richness"), [(GIRDLED, "256.53", "31.318"), (LOGGED, "297.33", "39.390")]
)
def test_coverage_based_at_95_percent(data: Abundance, size: str, richness: str) -> None:
    # row "coverage-based, C = 0.95, q = 0", iNEXT estimateD
    m = size_at_coverage(data, 0.95)
    close(m, size)
    close(float(diversity_at_size(data, [m], 0)[0, 0]), richness)
    # the same m is Chao & Jost's (2012) additional sample size to reach that coverage, plus n
    close(additional_for_coverage(data, 0.95).total, size)


@pytest.mark.parametrize(
    ("data", "g", "printed"),
    [(GIRDLED, 0.9, "354.12"), (GIRDLED, 0.95, "528.79"), (GIRDLED, 0.99, "934.37"), (LOGGED, 0.9, "608.50")],
)
def test_additional_sample_for_a_fraction_of_chao1(data: Abundance, g: float, printed: str) -> None:
    # row "extra sample for g = 0.9 / 0.95 / 0.99 of Chao1 (Chao et al. 2009)", R sprex num.samples.required
    close(additional_for_richness(data, g).additional, printed)


def test_chao2_with_standard_error_and_interval() -> None:
    # ciliates row "Chao2 = S + (T−1)/T · Q1²/(2 Q2)": 339.255 (s.e. 32.194, 290.496–419.928)
    result = chao2(CILIATES)
    assert result.std_error is not None and result.interval is not None
    close(result.estimate, "339.255")
    close(result.std_error, "32.194")
    close(result.interval[0], "290.496")
    close(result.interval[1], "419.928")
    close(float(asymptotic_hill(CILIATES, 0)[0]), "339.255")  # iNEXT AsyEst prints the same


def test_incidence_estimators() -> None:
    # ciliates rows "Chao2-bc", "iChao2", "ICE / ICE-1", "1st / 2nd order jackknife" (SpadeR; vegan specpool)
    close(chao2_bc(CILIATES).estimate, "335.389")
    close(ichao2(CILIATES).estimate, "366.890")
    close(ice(CILIATES).estimate, "365.814")
    close(ice1(CILIATES).estimate, "443.221")
    close(jackknife1(CILIATES).estimate, "317.368")
    close(jackknife2(CILIATES).estimate, "375.924")


def test_incidence_coverage_and_curve() -> None:
    # ciliates rows "incidence coverage Ĉ" (iNEXT DataInfo) and "size-based R/E, q = 0" (iNEXT vignette)
    close(sample_coverage(CILIATES).coverage, "0.8017")
    richness = diversity_at_size(CILIATES, [10, 150], 0)[0]
    close(float(richness[0]), "153.260")
    close(float(richness[1]), "338.901")


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


@pytest.mark.parametrize(
    ("counts", "printed"),
    [
        ([1, 1, 1, 2, 3, 5, 10, 25], "12.4"),
        ([1, 1, 1, 1, 3, 5, 10, 25], "13.8722"),
        (SPADER_DEMO, "27.249"),
        ([c for c in SPADER_DEMO if c != 2], "25.998"),  # "the two 2s removed (f2 = 0)"
    ],
)
def test_chao1_copia_rows(counts: list[int], printed: str) -> None:
    # rows "Chao1 with (n−1)/n factor" (copia tests; the last two against SpadeR). The f2 = 0 row
    # [1,1,1,1,3,5,10,25] is S + (n−1)/n·f1(f1−1)/2 = 8 + 46/47·6 = 13.872340…, which copia prints as
    # 13.8722 and checks with rtol = 1e-3: that row is held to copia's tolerance, the others to
    # half a unit of their last digit.
    value = chao1_classic(Abundance(counts)).estimate
    if printed == "13.8722":
        assert value == pytest.approx(8 + 46 / 47 * 6, abs=1e-12)
        assert value == pytest.approx(float(printed), rel=1e-3)
    else:
        close(value, printed)


def test_bias_corrected_chao1_scikit_bio_row() -> None:
    # row "[0,1,1,4,2,5,2,4,1,2] bias-corrected Chao1 S+F1(F1−1)/(2(F2+1)) = 9.75" (scikit-bio vs EstimateS)
    assert chao1_bc_vegan(Abundance([0, 1, 1, 4, 2, 5, 2, 4, 1, 2])).estimate == pytest.approx(
        9.75, abs=1e-12
    )


def test_goods_coverage_scikit_bio_row() -> None:
    # row "[1]*75 + [2,2,2,2,2,2,3,4,4]  Good's coverage 1 − F1/N = 0.23469387755" (scikit-bio)
    cov = sample_coverage(Abundance([1] * 75 + [2, 2, 2, 2, 2, 2, 3, 4, 4]))
    assert cov.good_turing == pytest.approx(0.23469387755, abs=5e-12)
