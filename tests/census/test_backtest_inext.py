"""The back-test's iNEXT rows carry iNEXT's own interval: its parametric bootstrap from the estimated
community, drawn by count class (knowsum.stats.foresee_inext) on split j's own stream (seed, t, j)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from knowsum.census import _backtest
from knowsum.census._backtest_inext import INEXT_OWN
from knowsum.stats import Abundance, Prevalence
from knowsum.stats import foresee as fs
from knowsum.stats.foresee_inext import inext_bootstrap_sd
from knowsum.stats.q0_prediction import q0_predict

REF = Path(__file__).resolve().parents[1] / "fixtures" / "estimate_reference"
pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _zipf(n_queries: int = 120, per_query: int = 8, seed: int = 5) -> Prevalence:
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 601) ** 1.1
    items, queries = [], []
    for q in range(n_queries):
        for x in rng.choice(600, per_query, p=p / p.sum()):
            items.append(f"i{x}")
            queries.append(q)
    return Prevalence.from_items(items, queries=queries)


def test_class_bootstrap_is_inexts_bootstrap() -> None:
    """Drawn by count class, the s.d. of Ŝ(2n) matches iNEXT's item-by-item bootstrap (Logged spiders,
    2,000 replicates each: Monte Carlo s.e. of an s.d. about 1.6 %)."""
    rows = (REF / "spider_Logged.counts.tsv").read_text(encoding="utf-8").split("\n")
    x = np.array([int(r.split("\t")[1]) for r in rows if r.strip()])
    data = Abundance.from_counts(x)
    full, _, _ = q0_predict(data, [2 * data.size], n_bootstrap=2000, seed=1)
    hist = np.bincount(np.minimum(x, 51), minlength=52)
    grouped = inext_bootstrap_sd(hist, data.size, data.size, 2000, np.random.default_rng(2))
    assert grouped == pytest.approx(float(full.std_error[0]), rel=0.07)
    assert np.isnan(inext_bootstrap_sd(hist, data.size, data.size, 1, np.random.default_rng(0)))
    no_single = np.bincount([2, 2, 3, 5], minlength=6)
    assert np.isnan(inext_bootstrap_sd(no_single, 12, 12, 50, np.random.default_rng(0)))


def test_inext_rows_use_inexts_interval_seeded_per_split() -> None:
    prev = _zipf()
    predictors = {name: fs.PREDICTORS[name] for name in (*sorted(INEXT_OWN), "inext-abundance-sc")}
    whole = _backtest.run_splits(prev, 1.0, predictors, 6, 30, seed=4)
    tail = _backtest.run_splits(prev, 1.0, predictors, 3, 30, seed=4, start=3)
    assert not isinstance(whole, str) and not isinstance(tail, str)
    for name in INEXT_OWN:
        # split j's interval depends on (seed, t, j) only, not on the splits drawn with it
        assert np.array_equal(whole.pi_lower[name][3:], tail.pi_lower[name])
        assert np.array_equal(whole.upper[name][3:], tail.upper[name])
        lo, hi, plo, phi = (
            np.asarray(a[name]) for a in (whole.lower, whole.upper, whole.pi_lower, whole.pi_upper)
        )
        point = np.maximum(whole.point[name], 0.0)
        assert np.all(np.isfinite(phi)) and np.all(plo <= lo + 1e-9) and np.all(phi >= hi - 1e-9)
        assert np.all((lo <= point) & (point <= hi)) and np.all(plo >= 0)
        ci, pi = _backtest.interval_methods(name)
        assert "estimated community" in ci and "iNEXT's ŝ² + Û" in pi
    ci, pi = _backtest.interval_methods("inext-abundance-sc")
    assert "query resamples" in ci and "not iNEXT's" in pi
