"""Benchmark: the back-test's prediction interval with the queries' dispersion ``D̂`` beside the Poisson
``Var(U)`` it replaces, on the three study fixtures, and what ``D̂`` costs.

For each fixture (tests/fixtures/census/study: a 0.5B model's diseases and theorems, and the
synthetic census whose items are drawn independently) and each ``t``, ``--splits`` splits of the
queries (seed 0, 20 resamples each, as the trust horizon draws them) are predicted by the smoothed
Good–Turing ``k = 6`` twice on the same splits: with ``Var(U) = D̂·Û`` (knowsum's rule,
:mod:`knowsum.stats.dispersion`) and with ``Var(U) = Û`` (``D̂`` held at 1, the baseline). It prints
the prediction interval's coverage of what the held-back queries showed (± binomial s.e.), the share
of misses below and above, the mean interval score (Gneiting & Raftery 2007, eq. 43; lower is
better) and the mean ``D̂`` of the kept queries. Then the cost: ``run_splits`` at t = 1 with and
without ``D̂`` (best of ``--repeats``, interleaved; ratio).

Usage::

    .venv/bin/python bench/bench_dispersion.py [--splits 400] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from unittest import mock

import numpy as np
import scipy.sparse as sp

from knowsum.census import _backtest
from knowsum.stats import Prevalence
from knowsum.stats import foresee as fs
from knowsum.stats.dispersion import split_dispersion
from knowsum.stats.prediction import interval_score

STUDY = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "census" / "study"
FIXTURES = ("diseases-0.5b", "theorems-0.5b", "synthetic")
TS = (0.25, 0.5, 0.75, 1.0, 2.0, 3.0)
PREDICTOR = "sgt-k6"


def _prevalence(name: str) -> Prevalence:
    """The fixture's queries as a census keeps them: one row per query, empty answers included."""
    path = STUDY / f"{name}.jsonl"
    if not path.is_file():
        raise SystemExit(f"bench_dispersion: fixture not found: {path}")
    ids: dict[str, int] = {}
    rows, cols = [], []
    lines = path.read_text(encoding="utf-8").splitlines()
    for j, line in enumerate(lines):
        for item in json.loads(line)["items"]:
            rows.append(j)
            cols.append(ids.setdefault(item, len(ids)))
    m = sp.csr_matrix((np.ones(len(rows), dtype=np.int64), (rows, cols)), shape=(len(lines), len(ids)))
    return Prevalence(np.asarray(m.sum(axis=0)).ravel(), None, m)


def _splits(prev: Prevalence, t: float, n: int) -> _backtest.Splits:
    out = _backtest.run_splits(prev, t, {PREDICTOR: fs.PREDICTORS[PREDICTOR]}, n, 20, 0)
    if isinstance(out, str):
        raise SystemExit(f"bench_dispersion: t = {t}: {out}")
    return out


def _row(s: _backtest.Splits) -> str:
    lo, hi, x = s.pi_lower[PREDICTOR], s.pi_upper[PREDICTOR], s.observed
    cover = float(np.mean((lo <= x) & (x <= hi)))
    se = math.sqrt(cover * (1 - cover) / x.size)
    score = float(np.nanmean(interval_score(lo, hi, x)))
    return f"{cover:6.1%} ± {se:4.1%}  {np.mean(x < lo):5.1%} / {np.mean(x > hi):5.1%}  {score:7.1f}"


def coverage(n: int) -> None:
    print(
        f"{PREDICTOR}, {n} splits per t (seed 0, 20 resamples): prediction interval covers (± s.e.), "
        "misses below / above, interval score"
    )
    print(f"{'fixture':<14} {'t':>5} {'mean D̂':>7}  {'Var(U) = D̂·Û (knowsum)':<37}  Var(U) = Û (baseline)")
    for name in FIXTURES:
        prev = _prevalence(name)
        assert prev.by_query is not None
        present = (prev.by_query > 0).astype(np.int32)
        for t in TS:
            m = _backtest.kept_size(prev.by_query.shape[0], t) or 0
            orders = _backtest.split_orders(0, t, range(n), prev.by_query.shape[0])[:, :m]
            kept = sp.csr_matrix(
                (np.ones(orders.size), orders.ravel(), np.arange(0, orders.size + 1, m)),
                shape=(n, prev.by_query.shape[0]),
            )
            d = float(split_dispersion(present, kept).mean())
            ours = _splits(prev, t, n)
            with mock.patch.object(_backtest, "split_dispersion", lambda _p, k: np.ones(k.shape[0])):
                base = _splits(prev, t, n)
            print(f"{name:<14} {t:>5g} {d:>7.2f}  {_row(ours):<37}  {_row(base)}", flush=True)


def cost(repeats: int) -> None:
    prev = _prevalence("theorems-0.5b")
    with_d, without = math.inf, math.inf
    _splits(prev, 1.0, 100)  # warm-up
    for _ in range(repeats):
        t0 = time.perf_counter()
        _splits(prev, 1.0, 100)
        with_d = min(with_d, time.perf_counter() - t0)
        with mock.patch.object(_backtest, "split_dispersion", lambda _p, k: np.ones(k.shape[0])):
            t0 = time.perf_counter()
            _splits(prev, 1.0, 100)
            without = min(without, time.perf_counter() - t0)
    print(
        f"run_splits, theorems fixture (1,000 queries), t = 1, 100 splits × 21 rows: {with_d:.3f} s with D̂, "
        f"{without:.3f} s without (ratio {with_d / without:.2f}; best of {repeats}, interleaved)"
    )


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=400)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    coverage(args.splits)
    cost(args.repeats)


if __name__ == "__main__":
    run()
