"""knowsum's rational-function approximation against preseq 3.2.0's ``lc_extrap`` (tests/fixtures/preseq,
whose README gives the provenance: the preseq commit, the exact command lines, the machine)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from knowsum.stats import StatsError
from knowsum.stats.preseq import RfaStatus, fit_rational, rational_unseen

PRESEQ = Path(__file__).resolve().parents[1] / "fixtures" / "preseq"
TOL_1DP = 0.05 + 1e-9
"""preseq prints EXPECTED_DISTINCT with one decimal: agreement within half a unit of it."""
DEGREE = {"fisher": 16, "ciliates": 8}
"""The degree preseq chose (its ``-v`` output lists that many continued-fraction coefficients)."""


def _hist(name: str) -> np.ndarray:
    rows = [line.split() for line in (PRESEQ / f"{name}.hist").read_text().splitlines() if line.strip()]
    h = np.zeros(max(int(s) for s, _ in rows) + 1)
    for s, f in rows:
        h[int(s)] = float(f)
    return h


def _output(path: Path) -> tuple[np.ndarray, np.ndarray]:
    rows = [line.split("\t") for line in path.read_text().splitlines()[1:] if line.strip()]
    return np.array([float(a) for a, _ in rows]), np.array([float(b) for _, b in rows])


def _sizes(h: np.ndarray) -> tuple[int, float]:
    return int(np.dot(np.arange(h.size), h)), float(h[1:].sum())


REFERENCE = sorted(p.name for p in PRESEQ.glob("*.tsv"))


@pytest.mark.parametrize("name", REFERENCE)
def test_rational_function_matches_preseq_at_every_extrapolated_point(name: str) -> None:
    histogram, mode = name.split(".")[:2]
    h = _hist(histogram)
    n, seen = _sizes(h)
    reads, expected = _output(PRESEQ / name)
    ext = reads >= n
    fit = fit_rational(h, defects=mode == "defects")
    assert fit.status.tolist() == [RfaStatus.OK]
    got = seen + fit((reads[ext] - n) / n)[0]
    assert np.max(np.abs(got - expected[ext])) <= TOL_1DP
    assert ext.sum() >= 38  # the coarse files reach t = 100, the fine ones t = 9
    if mode == "quick" and histogram in DEGREE:
        assert int(fit.degree[0]) == DEGREE[histogram]


def _preseq_interpolation(h: np.ndarray, n: int, seen: float, size: int) -> float:
    """Heck's (1975) expected distinct items of a subsample of ``size``,
    ``S − Σ_i f_i C(n−i, size)/C(n, size)``, summed in an int as preseq does (each ratio as the product
    ``Π_{k<i} (n − size − k)/(n − k)``)."""
    acc = 0
    for i in range(1, h.size):
        if n >= i + size:
            ratio = math.prod((n - size - k) / (n - k) for k in range(i))
            acc = int(acc + ratio * h[i])  # C++ double → int truncates toward 0
    return seen - acc


@pytest.mark.parametrize("name", [n for n in REFERENCE if ".fine." in n])
def test_interpolated_rows_are_heck_with_preseq_integer_sum(name: str) -> None:
    h = _hist(name.split(".")[0])
    n, seen = _sizes(h)
    reads, expected = _output(PRESEQ / name)
    inside = (reads > 0) & (reads < n)
    assert inside.any()
    got = np.array([_preseq_interpolation(h, n, seen, int(r)) for r in reads[inside]])
    # a partial sum that lands on an integer (f1·size/n often does) may truncate one lower or higher
    # under preseq's Lanczos log-gamma: within 1, and most rows exactly
    assert np.max(np.abs(got - expected[inside])) <= 1.0
    assert np.mean(np.abs(got - expected[inside]) <= TOL_1DP) >= 0.6


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("spider_logged", RfaStatus.UNSTABLE),
        ("theorems", RfaStatus.UNSTABLE),
        ("spider_girdled", RfaStatus.FEW_TERMS),
    ],
)
def test_refusals_match_preseq(name: str, status: RfaStatus) -> None:
    failed = sorted(PRESEQ.glob(f"{name}.quick.*.failed"))
    assert failed and all(p.read_text().startswith("rc=1") for p in failed)
    values, reasons = rational_unseen(_hist(name), 10.0)
    assert math.isnan(float(values[0]))
    assert reasons[0] and ("rational" in reasons[0] or "terms" in reasons[0])
    assert fit_rational(_hist(name)).status.tolist() == [status]


def test_saturated_histogram_is_refused() -> None:
    h = np.array([0, 1, 5, 1, 1, 1, 1], dtype=float)  # f1 − f2 + f3 − … = −2
    assert fit_rational(h).status.tolist() == [RfaStatus.SATURATED]


def test_rows_are_fitted_independently() -> None:
    rows = [_hist(name) for name in ("fisher", "theorems", "ciliates")]
    width = max(r.size for r in rows)
    batch = np.array([np.pad(r, (0, width - r.size)) for r in rows])
    together = fit_rational(batch)(np.array([0.5, 3.0, 50.0]))
    for b, row in enumerate(rows):
        alone = fit_rational(row)(np.array([0.5, 3.0, 50.0]))[0]
        np.testing.assert_array_equal(together[b], alone)
    assert np.isnan(together[1]).all()


def test_rational_function_starts_as_good_toulmin() -> None:
    # Û(t) = f1 t − f2 t² + … near t = 0: the approximant shares the series' first terms
    h = _hist("fisher")
    t = 1e-3
    series = sum((-1) ** (j + 1) * h[j] * t**j for j in range(1, h.size))
    assert float(fit_rational(h)(t)[0]) == pytest.approx(series, rel=1e-9)


@pytest.mark.parametrize("bad", [np.array([[-1.0, 2.0]]), np.zeros((2, 2, 2)), np.array([1.0])])
def test_bad_input_is_refused(bad: np.ndarray) -> None:
    with pytest.raises(StatsError):
        fit_rational(bad)


def test_bad_t_is_refused() -> None:
    with pytest.raises(StatsError, match="t must be"):
        rational_unseen(_hist("fisher"), 0.0)
