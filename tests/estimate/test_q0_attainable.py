"""The q = 0 band and prediction interval stay in the attainable range where they extrapolate (m ≥ n).

iNEXT cuts its band ``Ŝ ± z·ŝ`` at 0 only; far beyond ``n`` its lower end can fall below ``S_obs``
(spider ``Girdled`` at ``m = 2000``: about 7 with ``S_obs = 26``), and one observation beyond ``n`` its
upper end passes ``S_obs + 1``: the extended sample holds the items seen and, for abundance data, at
most one more per observation. knowsum cuts both to ``[S_obs, S_obs + (m − n)]`` on every surface
that shows them — ``estimate --at-size/--at-coverage`` (text and JSON), ``estimate --curve`` (JSON)
and ``census compare --at-coverage`` — and keeps iNEXT's own band beside it, named. Rarefied points
keep iNEXT's band. Data: tests/fixtures/estimate_reference (iNEXT's spider vignette data)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.cli import main
from knowsum.stats import Abundance
from knowsum.stats.q0_prediction import Q0_FLOOR, q0_attainable, q0_predict

REF = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"
GIRDLED = REF / "spider_Girdled.counts.tsv"


def _girdled() -> Abundance:
    rows = GIRDLED.read_text(encoding="utf-8").splitlines()
    return Abundance.from_counts([int(r.split("\t")[1]) for r in rows if r.strip() and not r.startswith("#")])


@given(
    st.lists(st.tuples(st.floats(-50, 200), st.floats(-50, 200)), min_size=1, max_size=20),
    st.integers(1, 100),
    st.integers(0, 120),
    st.booleans(),
)
def test_bands_are_cut_only_where_extrapolated(
    ends: list[tuple[float, float]], n: int, s_obs: int, incidence: bool
) -> None:
    sizes = np.linspace(1, 3 * n, len(ends))
    lows, highs = [min(e) for e in ends], [max(e) for e in ends]
    lo, hi = q0_attainable(lows, highs, sizes, n, s_obs, incidence)
    for a, b, m, x, y in zip(lows, highs, sizes, lo, hi, strict=True):
        top = math.inf if incidence else s_obs + (m - n)
        assert (x, y) == ((min(max(a, s_obs), top), min(max(b, s_obs), top)) if m >= n else (a, b))


def test_missing_ends_stay_missing() -> None:
    lo, hi = q0_attainable([np.nan, 3.0], [np.nan, 40.0], [10.0, 10.0], 5, 8)
    assert np.isnan(lo[0]) and np.isnan(hi[0]) and (lo[1], hi[1]) == (8.0, 13.0)


def test_inext_band_falls_below_the_items_seen_on_the_reference_data() -> None:
    """The case itself: iNEXT's lower end at m = 2000 lies below S_obs = 26 (so the floor is needed)."""
    data = _girdled()
    _, lo, _ = q0_predict(data, [2000.0], n_bootstrap=200, seed=0)
    assert data.s_obs == 26 and lo[0] < data.s_obs


def _estimate(*args: str, capsys: pytest.CaptureFixture[str]) -> str:
    code = main(["estimate", str(GIRDLED), *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_estimate_points_name_both_bands(capsys: pytest.CaptureFixture[str]) -> None:
    out = _estimate("--at-size", "2000", "--at-size", "100", "--at-size", "169", "--json", capsys=capsys)
    far, near, next_one = json.loads(out)["at_size"]
    assert far["q0_interval"][0] == 26.0 and far["q0_interval_inext"][0] < 26.0
    assert far["q0_interval"][1] == far["q0_interval_inext"][1] and far["q0_interval_method"] == Q0_FLOOR
    assert near["q0_interval_inext"] is None and near["q0_interval"][0] < 26.0  # rarefied: iNEXT's band
    # one observation past n = 168 shows at most one new item: iNEXT's band passes 27, the PI too
    assert next_one["q0_interval"] == [26.0, 27.0] and next_one["q0_interval_inext"][1] > 27.0
    assert next_one["prediction_interval"][1] <= 1.0 and next_one["prediction_interval_total"][1] <= 27.0
    text = _estimate("--at-size", "2000", capsys=capsys)
    line = next(x for x in text.splitlines() if "q0 95% confidence interval" in x)
    lo = far["q0_interval_inext"][0]
    assert line.startswith("    q0 95% confidence interval [26.0, ")
    assert f"iNEXT's Ŝ ± z·ŝ gives [{lo:,.1f}, " in line and "at least S_obs = 26, at most" in line


def test_estimate_curve_band_holds_the_attainable_range(capsys: pytest.CaptureFixture[str]) -> None:
    curve = json.loads(_estimate("--curve", "--json", capsys=capsys))["curve"]
    assert curve["band_method"] == Q0_FLOOR
    n = curve["reference_size"]
    for part in ("size_based", "coverage_based"):
        c = curve[part]
        (raw_lo, raw_hi), low, high = c["inext_q0"], c["lower"][0], c["upper"][0]
        for m, a, b, lo, hi in zip(c["size"], raw_lo, raw_hi, low, high, strict=True):
            top = 26.0 + (m - n)
            assert (lo, hi) == ((min(max(a, 26.0), top), min(max(b, 26.0), top)) if m >= n else (a, b))
    raw, low = curve["size_based"]["inext_q0"][0], curve["size_based"]["lower"][0]
    assert any(r < 26.0 <= lo for r, lo in zip(raw, low, strict=True))  # the floor is at work here
