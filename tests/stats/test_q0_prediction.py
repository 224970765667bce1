"""The prediction interval of iNEXT's q = 0 extrapolation (knowsum.stats.q0_prediction): it covers the new
items of an independent continuation drawn from a known community, it holds iNEXT's confidence interval,
and it says why where it is n/a. Point values against the iNEXT 3.0.2 vignette (spider data,
tests/fixtures/estimate_reference/README.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowsum.stats import Abundance, Incidence, StatsError
from knowsum.stats.q0_prediction import Q0_METHOD, q0_predict, q0_prediction, q0_prediction_bounds

REF = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"


def _spider(name: str) -> Abundance:
    rows = (REF / f"spider_{name}.counts.tsv").read_text(encoding="utf-8").splitlines()
    return Abundance.from_counts([int(r.split("\t")[1]) for r in rows if r.strip() and not r.startswith("#")])


def _community(rng: np.random.Generator, size: int = 300) -> np.ndarray:
    a = rng.lognormal(0.0, 1.2, size)
    return np.asarray(a / a.sum())


def test_abundance_interval_covers_an_independent_continuation() -> None:
    """m* = n further individuals from a lognormal community (S = 300, n = 400: about half the items
    seen): the 95 % interval must hold the realised new items in at least 89 % of 100 samples."""
    rng = np.random.default_rng(20261127)
    p = _community(rng)
    n, replicates, hits = 400, 100, 0
    for r in range(replicates):
        now, later = rng.multinomial(n, p), rng.multinomial(n, p)
        pred, _, _ = q0_predict(Abundance.from_counts(now[now > 0]), [2 * n], n_bootstrap=60, seed=r)
        u = int(((now == 0) & (later > 0)).sum())
        iv = pred.unseen(0)
        hits += iv is not None and iv[0] <= u <= iv[1]
    assert hits / replicates >= 0.89


def test_incidence_interval_covers_an_independent_continuation() -> None:
    """T = 20 units, then 20 more, each item detected in a unit with its own probability."""
    rng = np.random.default_rng(7)
    detect = np.clip(_community(rng, 250) * 8.0, 0.0, 0.9)
    units, replicates, hits = 20, 100, 0
    for r in range(replicates):
        now = rng.random((units, detect.size)) < detect
        later = rng.random((units, detect.size)) < detect
        y = now.sum(axis=0)
        data = Incidence.from_frequencies(y[y > 0].tolist(), units)
        pred, _, _ = q0_predict(data, [2 * units], n_bootstrap=60, seed=r)
        u = int(((y == 0) & later.any(axis=0)).sum())
        iv = pred.unseen(0)
        hits += iv is not None and iv[0] <= u <= iv[1]
    assert hits / replicates >= 0.89


@pytest.mark.parametrize("name", ["Girdled", "Logged"])
def test_prediction_interval_holds_the_confidence_interval(name: str) -> None:
    """Same centre, a larger variance, the same normal form: the prediction interval holds iNEXT's
    band on the attainable range (S_obs ≤ N_tot ≤ S_obs + (m − n); the band is cut at 0 only, as iNEXT
    cuts it)."""
    data = _spider(name)
    sizes = [data.size + 1, 1.5 * data.size, 2 * data.size, 3 * data.size]
    pred, lo, hi = q0_predict(data, sizes, n_bootstrap=200, seed=0)
    assert all(r is None for r in pred.reasons)
    assert np.all(pred.lower <= np.maximum(lo, data.s_obs) + 1e-9)
    assert np.all(pred.upper >= np.minimum(hi, data.s_obs + (np.asarray(sizes) - data.size)))
    assert np.all(pred.upper <= data.s_obs + (np.asarray(sizes) - data.size))  # one item per observation
    assert np.all(pred.lower >= data.s_obs) and np.all(pred.lower < pred.estimate)
    u = pred.unseen(2)
    assert u is not None and u[0] == pytest.approx(float(pred.lower[2]) - data.s_obs)


def test_bounds_are_the_normal_form_with_the_poisson_term() -> None:
    lo, hi = q0_prediction_bounds(40.0, 3.0, 30.0, 0.95)
    half = 1.959963984540054 * np.sqrt(9.0 + 10.0)
    assert float(lo) == pytest.approx(40.0 - half) and float(hi) == pytest.approx(40.0 + half)
    lo, _ = q0_prediction_bounds(31.0, 10.0, 30.0, 0.95)  # cut at S_obs: U is never negative
    assert float(lo) == 30.0


def test_estimates_are_inexts() -> None:
    """iNEXT vignette, size-based R/E, q = 0: Girdled m = 336 → 34.731, Logged m = 504 → 47.644."""
    for name, m, value in (("Girdled", 336, 34.731), ("Logged", 504, 47.644)):
        pred, _, _ = q0_predict(_spider(name), [m], n_bootstrap=0)
        assert float(pred.estimate[0]) == pytest.approx(value, abs=5e-4)


def test_reasons_where_no_interval_can_be_formed() -> None:
    data = _spider("Girdled")
    pred, lo, _ = q0_predict(data, [84, 168, 336], n_bootstrap=50, seed=0)
    assert pred.reasons[0] is not None and pred.reasons[0].startswith("m < n interpolates")
    assert pred.reasons[1] is not None and pred.reasons[1].startswith("m = n is the sample itself")
    assert pred.total(0) is None and pred.unseen(1) is None and pred.total(2) is not None
    assert np.isfinite(lo[0])  # the confidence band is still there where the prediction is n/a
    none, _, _ = q0_predict(data, [336], n_bootstrap=0)
    assert none.reasons[0] is not None and "no bootstrap replicates" in none.reasons[0]
    no_single = q0_prediction(Abundance.from_counts([2, 3, 5]), [20], [3.0], [0.5])
    assert no_single.reasons[0] is not None and no_single.reasons[0].startswith("no singletons")
    units = q0_prediction(Incidence.from_frequencies([1, 1, 2, 3], 5), [3], [3.0], [0.5])
    assert units.reasons[0] is not None and "m < T" in units.reasons[0] and units.method == Q0_METHOD


def test_bad_level_is_refused() -> None:
    with pytest.raises(StatsError):
        q0_prediction_bounds(40.0, 3.0, 30.0, 1.5)
