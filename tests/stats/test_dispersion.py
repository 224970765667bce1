"""The queries' index of dispersion D̂ that widens the future's Poisson variance (knowsum.stats.dispersion)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from knowsum.census._backtest import run_splits
from knowsum.stats import Prevalence
from knowsum.stats import foresee as fs
from knowsum.stats.dispersion import query_dispersion, split_dispersion
from knowsum.stats.summary import summarize

STUDY = Path(__file__).parents[1] / "fixtures" / "census" / "study"


def _matrix(queries: list[list[str]]) -> sp.csr_matrix:
    ids: dict[str, int] = {}
    rows, cols = [], []
    for j, items in enumerate(queries):
        for item in items:
            rows.append(j)
            cols.append(ids.setdefault(item, len(ids)))
    data = np.ones(len(rows), dtype=np.int64)
    return sp.csr_matrix((data, (rows, cols)), shape=(len(queries), len(ids)))


def test_hand_computed() -> None:
    # Uniques per query s = [4, 1, 0, 0, 0] (x is named twice): mean 1, sample variance
    # (9 + 0 + 1 + 1 + 1) / 4 = 3, so D̂ = 3. An item named twice in one query is one unique.
    m = _matrix([["a", "b", "c", "d", "a"], ["e", "x"], ["x"], [], []])
    assert query_dispersion(m) == pytest.approx(3.0)
    # s = [2, 1, 0, 1]: variance 2/3 below the mean 1, so the floor: D̂ = 1, never narrower than Poisson.
    assert query_dispersion(_matrix([["a", "b", "c"], ["c", "d"], [], ["e"]])) == 1.0


@pytest.mark.parametrize(
    "queries",
    [[["a", "b"]], [["a", "b"], ["a", "b"]], []],
    ids=["one query", "no uniques", "no queries"],
)
def test_no_evidence_is_poisson(queries: list[list[str]]) -> None:
    assert query_dispersion(_matrix(queries) if queries else None) == 1.0


@pytest.mark.parametrize("seed", range(6))
def test_splits_agree_with_the_one_sample_rule(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_q, n_items = 40, 60
    dense = (rng.random((n_q, n_items)) < rng.uniform(0.02, 0.2)).astype(np.int64)
    dense[rng.integers(0, n_q, 5)] = 0  # some empty queries
    present = sp.csr_matrix(dense)
    rows = [rng.choice(n_q, size=int(rng.integers(2, n_q)), replace=False) for _ in range(12)]
    kept = sp.csr_matrix(
        (np.ones(sum(r.size for r in rows)), np.concatenate(rows), np.cumsum([0, *(r.size for r in rows)])),
        shape=(len(rows), n_q),
    )
    got = split_dispersion(present, kept)
    want = [query_dispersion(present[np.sort(r)]) for r in rows]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_independent_items_stay_poisson_and_bundles_do_not() -> None:
    rng = np.random.default_rng(1)
    # 300 queries, each 20 distinct items drawn independently from 3,000: uniques per query are
    # binomial-like, so D̂ = 1.
    single = _matrix([[str(i) for i in rng.choice(3000, 20, replace=False)] for _ in range(300)])
    assert query_dispersion(single) == 1.0
    # 300 queries, each naming one of 150 fixed bundles of 5 items: a query's uniques are 5 when no
    # other query drew its bundle (p ≈ e^-2), else 0, so D̂ = 5(1 − p) ≈ 4.3.
    bundled = _matrix([[f"{b}.{i}" for i in range(5)] for b in rng.integers(0, 150, 300)])
    assert 3.5 < query_dispersion(bundled) <= 5.0


def _diseases() -> Prevalence:
    lines = (STUDY / "diseases-0.5b.jsonl").read_text().splitlines()
    return Prevalence.from_items(
        [i for q in map(json.loads, lines) for i in q["items"]],
        [j for j, q in enumerate(map(json.loads, lines)) for _ in q["items"]],
    )


def test_census_interval_widens_by_the_dispersion_and_names_it() -> None:
    prev = _diseases()
    d = query_dispersion(prev.by_query)
    assert d > 1.2  # the fixture's model lists rare diseases together
    s = summarize(prev, t=0.5, k=6, n_bootstrap=0, own_t=False)
    assert s.prediction is not None and s.prediction.unseen is not None
    assert s.prediction.dispersion == pytest.approx(d)
    assert f"+ D̂·Û (Poisson U times D̂ = {d:.2f}, the queries' dispersion)" in s.prediction.method
    # Without queries the same counts are Poisson, and the interval is nested inside.
    flat = summarize(Prevalence(prev.counts), t=0.5, k=6, n_bootstrap=0, own_t=False)
    assert flat.prediction is not None and flat.prediction.unseen is not None
    assert "+ Û (Poisson U: a sample without queries)" in flat.prediction.method
    (lo, hi), (plo, phi) = s.prediction.unseen, flat.prediction.unseen
    assert lo <= plo and hi > phi


def test_backtest_coverage_at_small_t_reaches_nominal() -> None:
    """On the diseases fixture (112 queries, 34 of them empty) the Poisson Var(U) covered 87 % of 400
    splits at t = 0.25; D̂·Û covers 94 % (``bench/bench_dispersion.py`` prints both)."""
    lines = (STUDY / "diseases-0.5b.jsonl").read_text().splitlines()
    by_query = _matrix([json.loads(line)["items"] for line in lines])
    prev = Prevalence(np.asarray(by_query.sum(axis=0)).ravel(), None, by_query)
    splits = run_splits(prev, 0.25, {"sgt-k6": fs.PREDICTORS["sgt-k6"]}, 400, 20, 0)
    assert not isinstance(splits, str)
    lo, hi = splits.pi_lower["sgt-k6"], splits.pi_upper["sgt-k6"]
    covered = float(np.mean((lo <= splits.observed) & (splits.observed <= hi)))
    assert covered >= 0.92
