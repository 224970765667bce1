"""The q = 0 confidence band never falls below the items seen where it extrapolates (m ≥ n).

iNEXT cuts its band ``Ŝ ± z·ŝ`` at 0 only; far beyond ``n`` its lower end can fall below ``S_obs``
(spider ``Girdled`` at ``m = 2000``: about 7 with ``S_obs = 26``), which contradicts the data: the
extended sample holds the items seen. knowsum raises it to ``S_obs`` on every surface that shows the
band — ``estimate --at-size/--at-coverage`` (text and JSON), ``estimate --curve`` (JSON) and
``census compare --at-coverage`` — and keeps iNEXT's own value beside it, named. Rarefied points keep
iNEXT's band. Data: tests/fixtures/estimate_reference (iNEXT's spider vignette data)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.cli import main
from knowsum.stats import Abundance
from knowsum.stats.q0_prediction import Q0_FLOOR, q0_confidence_floor, q0_predict

REF = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"
GIRDLED = REF / "spider_Girdled.counts.tsv"


def _girdled() -> Abundance:
    rows = GIRDLED.read_text(encoding="utf-8").splitlines()
    return Abundance.from_counts([int(r.split("\t")[1]) for r in rows if r.strip() and not r.startswith("#")])


@given(
    st.lists(st.floats(-50, 200, allow_nan=False), min_size=1, max_size=20),
    st.integers(1, 100),
    st.integers(0, 120),
)
def test_floor_raises_only_extrapolated_points(lows: list[float], n: int, s_obs: int) -> None:
    sizes = np.linspace(1, 3 * n, len(lows))
    out = q0_confidence_floor(lows, sizes, n, s_obs)
    for lo, m, got in zip(lows, sizes, out, strict=True):
        assert got == (max(lo, s_obs) if m >= n else lo)


def test_floor_keeps_missing_ends() -> None:
    out = q0_confidence_floor([np.nan, 3.0], [10.0, 10.0], 5, 8)
    assert np.isnan(out[0]) and out[1] == 8.0


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
    out = _estimate("--at-size", "2000", "--at-size", "100", "--json", capsys=capsys)
    far, near = json.loads(out)["at_size"]
    assert far["q0_interval"][0] == 26.0 and far["q0_interval_inext"][0] < 26.0
    assert far["q0_interval"][1] == far["q0_interval_inext"][1] and far["q0_interval_method"] == Q0_FLOOR
    assert near["q0_interval_inext"] is None and near["q0_interval"][0] < 26.0  # rarefied: iNEXT's band
    text = _estimate("--at-size", "2000", capsys=capsys)
    line = next(x for x in text.splitlines() if "q0 95% confidence interval" in x)
    lo = far["q0_interval_inext"][0]
    assert line.startswith("    q0 95% confidence interval [26.0, ")
    assert f"iNEXT's Ŝ ± z·ŝ gives [{lo:,.1f}, " in line and "raised to S_obs = 26" in line


def test_estimate_curve_band_holds_the_items_seen(capsys: pytest.CaptureFixture[str]) -> None:
    curve = json.loads(_estimate("--curve", "--json", capsys=capsys))["curve"]
    assert curve["band_method"] == Q0_FLOOR
    n = curve["reference_size"]
    for part, sizes in (("size_based", "size"), ("coverage_based", "size")):
        c = curve[part]
        raw, low = c["inext_q0_lower"], c["lower"][0]
        for m, lo_raw, lo in zip(c[sizes], raw, low, strict=True):
            assert lo == (max(lo_raw, 26.0) if m >= n else lo_raw)
    raw, low = curve["size_based"]["inext_q0_lower"], curve["size_based"]["lower"][0]
    assert any(r < 26.0 <= lo for r, lo in zip(raw, low, strict=True))  # the floor is at work here
