"""The back-test's maths (knowsum.stats.foresee): hand computations and the package's own estimators."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.stats import Abundance, Incidence, Prevalence, chao2_bc, diversity_at_size, estimate_unseen
from knowsum.stats import foresee as fs
from knowsum.stats.intervals import intervals

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

# One sample, by hand: counts 3, 2, 2, 1, 1, 1, 1 → f1 = 4, f2 = 2, f3 = 1, n = 11, S = 7.
COUNTS = np.array([[3], [2], [2], [1], [1], [1], [1]])
# The same seven items named in T = 5 queries: in 3, 2, 1, 1, 1, 1, 1 of them → Q1 = 5, Q2 = 1, Q3 = 1.
PRESENCE = np.array([[3], [2], [1], [1], [1], [1], [1]])


def _panel(t: float) -> fs.Panel:
    return fs.panel(COUNTS.T, PRESENCE.T, t, 5)  # one row per sample


def test_singleton_estimate_by_hand() -> None:
    """Chiu & Chao (2016): f̃1 = 4 f2²/(3 f3) − f2 f3/(2 f4); with f3 f4 = 0, f3 + 1 and f4 + 1."""
    assert float(fs.singleton_estimate(10, 5, 2)) == pytest.approx(400 / 15 - 50 / 4)  # 14.1667
    assert float(fs.singleton_estimate(4, 0, 3)) == pytest.approx(4 * 16 / 3 - 0)  # f3 = 0
    assert float(fs.singleton_estimate(6, 2, 0)) == pytest.approx(4 * 36 / 9 - 6 * 2 / 2)  # f4 = 0: 16 − 6
    both = fs.singleton_estimate(np.array([10.0, 4.0]), np.array([5.0, 0.0]), np.array([2.0, 3.0]))
    assert both.tolist() == pytest.approx([400 / 15 - 12.5, 64 / 3])


def test_predictors_by_hand() -> None:
    p1, p2 = _panel(1.0), _panel(2.0)
    # smoothed Good–Turing, k = 2 (hand values of tests/census/test_studies.py): t = 1 → 2.5, t = 2 → 32/9
    assert fs.sgt(p1, 2)[0] == pytest.approx(2.5)
    assert fs.sgt(p2, 2)[0] == pytest.approx(32 / 9)
    # Good–Toulmin −Σ (−t)^s f_s: t = 1: 4 − 2 + 1 = 3; t = 2: 8 − 8 + 8 = 8
    assert fs.PREDICTORS["good-toulmin"](p1)[0] == pytest.approx(3.0)
    assert fs.PREDICTORS["good-toulmin"](p2)[0] == pytest.approx(8.0)
    # Chao1-bc asymptote f1(f1−1)/(2(f2+1)) = 12/6; Chao2-bc (T−1)/T Q1(Q1−1)/(2(Q2+1)) = 4/5 · 20/4
    assert fs.PREDICTORS["chao1"](p1)[0] == pytest.approx(2.0)
    assert fs.PREDICTORS["chao2"](p1)[0] == pytest.approx(4.0)
    # iNEXT q = 0: f̂0 = 10/11 · 16/4 = 40/11, A = 1 − 4/(11 f̂0 + 4) = 10/11; t = 1 adds n = 11
    assert fs.PREDICTORS["inext-abundance"](p1)[0] == pytest.approx(40 / 11 * (1 - (10 / 11) ** 11))
    # singleton-corrected: f̃1 = 4·4/(3·1) − 2·1/(2·1) (f4 = 0 → f3 + 1 = 2, f4 + 1 = 1) = 8/3 − 1 = 5/3
    f1 = 4 * 4 / (3 * 2) - 2 * 1 / (2 * 1)
    assert fs.PREDICTORS["chao1-sc"](p1)[0] == pytest.approx(f1 * (f1 - 1) / 6)


@pytest.mark.parametrize("t", [0.5, 1.0, 3.0, 9.0, 99.0])
def test_predictors_agree_with_the_package_estimators(t: float) -> None:
    """The vectorised predictors give what `knowsum estimate` computes on the same counts."""
    p = _panel(t)
    prev = Prevalence.from_counts(COUNTS[:, 0])
    for k in fs.SGT_KS:
        assert fs.PREDICTORS[f"sgt-k{k}"](p)[0] == pytest.approx(
            estimate_unseen(prev, "et", t, k).raw, rel=1e-12
        )
    if t <= 3:
        gt = estimate_unseen(prev, "good-toulmin", t).raw
        assert fs.PREDICTORS["good-toulmin"](p)[0] == pytest.approx(gt, rel=1e-12)
    assert fs.PREDICTORS["chao1"](p)[0] == pytest.approx(estimate_unseen(prev, "chao1").raw, rel=1e-12)
    n = int(COUNTS.sum())
    abundance = diversity_at_size(Abundance(COUNTS[:, 0]), [n * (1 + t)], q=0)[0, 0] - 7
    assert fs.PREDICTORS["inext-abundance"](p)[0] == pytest.approx(abundance, rel=1e-9)
    inc = Incidence(PRESENCE[:, 0], 5)
    incidence = diversity_at_size(inc, [5 * (1 + t)], q=0)[0, 0] - 7
    assert fs.PREDICTORS["inext-incidence"](p)[0] == pytest.approx(incidence, rel=1e-9)
    assert fs.PREDICTORS["chao2"](p)[0] == pytest.approx(chao2_bc(inc).estimate - 7, rel=1e-12)


def test_good_toulmin_overflow_is_nan_not_inf() -> None:
    counts = np.array([[400, 1]])
    assert math.isnan(fs.PREDICTORS["good-toulmin"](fs.panel(counts, None, 99.0, 3))[0])


def test_lognormal_bounds_are_the_census_interval() -> None:
    draws = np.array([3.0, 5.0, 4.0, 7.0, 2.0, 6.0])
    census = intervals("lognormal", 10, 4.5, draws, np.zeros(6), 0.95).unseen
    lo, hi = fs.lognormal_bounds(np.array([4.5]), np.array([np.var(draws, ddof=1)]))
    assert (lo[0], hi[0]) == pytest.approx(census, rel=1e-12)
    lo, hi = fs.lognormal_bounds(np.array([0.0, 2.0]), np.array([1.0, 0.0]))  # Û = 0, var = 0: n/a
    assert np.isnan(lo).all() and np.isnan(hi).all()


def test_score_by_hand() -> None:
    s = fs.score(
        np.array([8.0, 12.0, -1.0]),
        np.array([5.0, 13.0, np.nan]),
        np.array([11.0, 20.0, np.nan]),
        np.array([10.0, 10.0, 4.0]),
    )
    # shown = 8, 12, 0 (clamped); errors −2, 2, −4; mean observed 8
    assert s.observed == 8.0 and s.predicted == pytest.approx(20 / 3)
    assert s.bias == pytest.approx(-4 / 3) and s.relative_bias == pytest.approx(-1 / 6)
    assert s.relative_rmse == pytest.approx(math.sqrt(24 / 3) / 8)
    assert s.coverage == pytest.approx(1 / 3) and s.no_interval == pytest.approx(1 / 3) and s.diverged == 0
    d = fs.score(np.array([np.nan, 1.0]), np.array([0.0, 0.0]), np.array([2.0, 2.0]), np.array([1.0, 1.0]))
    assert d.diverged == 0.5 and math.isnan(d.relative_rmse) and math.isnan(d.predicted)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 12), min_size=1, max_size=30), st.sampled_from([1.0, 3.0, 9.0, 99.0]))
def test_panel_columns_are_independent(counts: list[int], t: float) -> None:
    """A batch of samples gives, column by column, what each sample gives alone."""
    a = np.array(counts)[None, :]
    b = np.array(counts[::-1])[None, :] + 1
    both = fs.panel(np.vstack([a, b]), np.vstack([np.minimum(a, 3), np.minimum(b, 3)]), t, 3)
    for j, col in enumerate((a, b)):
        alone = fs.panel(col, np.minimum(col, 3), t, 3)
        for name, predict in fs.PREDICTORS.items():
            if name == "sgt-heldout":
                continue
            x, y = predict(both)[j], predict(alone)[0]
            assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, rel=1e-12), name


def test_score_errors_and_intervals_by_hand() -> None:
    """Monte Carlo standard errors, N_tot scale, noise floor and interval scores of three splits."""
    s = fs.score(
        np.array([8.0, 12.0, -1.0]),
        np.array([5.0, 13.0, np.nan]),
        np.array([11.0, 20.0, np.nan]),
        np.array([10.0, 10.0, 4.0]),
        pi_lower=np.array([5.0, 13.0, np.nan]),
        pi_upper=np.array([11.0, 20.0, np.nan]),
        kept_seen=np.array([5.0, 5.0, 5.0]),
    )
    # errors e = −2, 2, −4: sd(e) = sqrt(84/9); e² = 4, 4, 16: sd(e²) = sqrt(48); RMSE = sqrt(8)
    assert s.repeats == 3
    assert s.bias_se == pytest.approx(math.sqrt(84 / 9) / math.sqrt(3))
    assert s.rmse_se == pytest.approx(math.sqrt(48) / (2 * math.sqrt(8) * math.sqrt(3)))
    assert s.coverage_se == pytest.approx(math.sqrt(1 / 3 * 2 / 3 / 3))
    assert s.n_total == pytest.approx(13.0) and s.relative_bias_total == pytest.approx(-4 / 3 / 13)
    assert s.relative_rmse_total == pytest.approx(math.sqrt(8) / 13)
    assert s.noise_floor == pytest.approx(math.sqrt(8.0))
    # interval score (Gneiting & Raftery eq. 43, α = 0.05): [5, 11] ∋ 10 → 6; [13, 20] ∌ 10 → 7 + 40·3
    assert s.pi_score == pytest.approx((6 + 127) / 2) and s.ci_score == s.pi_score
    assert (
        s.pi_coverage == pytest.approx(1 / 3)
        and s.pi_covered == 1
        and s.pi_no_interval == pytest.approx(1 / 3)
    )


def test_nothing_predicted_and_nothing_came_is_not_a_miss() -> None:
    """A prediction interval n/a because Û ≤ 0 on a split that showed no new item: the census printed
    0 new items and 0 came, so it covers (a saturated census is not failed for being exact); n/a
    with new items, or n/a beside a positive prediction, stays a miss. The confidence interval, of
    E U, keeps every n/a a miss."""
    nan = np.nan
    s = fs.score(
        np.array([-0.4, 0.0, -0.2, 3.0, 2.0]),
        np.full(5, nan),
        np.full(5, nan),
        np.array([0.0, 0.0, 2.0, 0.0, 2.0]),
        pi_lower=np.array([nan, nan, nan, nan, 0.0]),
        pi_upper=np.array([nan, nan, nan, nan, 5.0]),
    )
    assert s.pi_covered == 3 and s.pi_coverage == pytest.approx(3 / 5)  # splits 1, 2 and 5
    assert s.pi_no_interval == pytest.approx(4 / 5) and s.coverage == 0.0


def test_linear_variance_by_hand() -> None:
    """Σ h_s² f_s: sgt k = 2 at t = 1 has h = (¾, −¼), so 4·9/16 + 2·1/16 = 2.375; Good–Toulmin at
    t = 2 has h_s² = 4^s, so 4·4 + 2·16 + 1·64 = 112; the Chao asymptote has no closed form."""
    p1, p2 = _panel(1.0), _panel(2.0)
    assert fs.linear_variance("sgt-k2", p1)[0] == pytest.approx(2.375)  # type: ignore[index]
    assert fs.linear_variance("good-toulmin", p2)[0] == pytest.approx(112.0)  # type: ignore[index]
    assert fs.linear_variance("chao1", p1) is None and not fs.linear_variance_of("inext-abundance")
    assert fs.linear_variance_of("sgt-k4") and fs.linear_variance_of("sgt-heldout")
    assert {"good-toulmin", "preseq", "pitman-yor"} == fs.FULL_HISTOGRAM


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-5, 50), min_size=2, max_size=40), st.floats(0.0, 30.0))
def test_score_se_shrinks_like_one_over_root_r(errors: list[float], shift: float) -> None:
    """Repeating every split k times divides each Monte Carlo s.e. by about sqrt(k) (exactly, up to
    the ddof correction), and never changes the point scores."""
    obs = np.full(len(errors), 60.0)
    pred = obs + np.array(errors) + shift
    one = fs.score(pred, pred - 5, pred + 5, obs)
    four = fs.score(np.tile(pred, 4), np.tile(pred - 5, 4), np.tile(pred + 5, 4), np.tile(obs, 4))
    assert four.bias == pytest.approx(one.bias) and four.relative_rmse == pytest.approx(one.relative_rmse)
    r = len(errors)
    ratio = math.sqrt((r - 1) / r * (4 * r) / (4 * r - 1)) / 2  # sd(ddof=1) of the tiled sample, / sqrt(4)
    if one.bias_se > 1e-9:
        assert four.bias_se == pytest.approx(one.bias_se * ratio, rel=1e-9)


def test_scores_of_overflowing_predictions_warn_nothing() -> None:
    """Good–Toulmin far beyond t = 1 predicts 10¹³⁹: its error is infinite, said without a numpy
    RuntimeWarning reaching the user (the score is the answer, not a fault)."""
    import warnings

    from knowsum.stats._foresee_scores import score

    pred = np.array([1e139, -3e139, 2e139, 5e138])
    obs = np.array([50.0, 60.0, 40.0, 55.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        s = score(pred, pred - 1, pred + 1, obs, pi_lower=pred - 1, pi_upper=pred + 1)
    assert s.relative_rmse > 1e136 and s.rmse_se == math.inf and s.bias > 1e138  # (err²)² overflows
