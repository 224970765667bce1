"""Benchmark: what the trust horizon costs every census, and the back-test's vectorised splits vs a loop.

**The horizon's share of a census** (``--fixture``, default the theorem fixture): ``census score`` of
the fixture ``--runs`` times with the trust horizon and as many times without it (the horizon
replaced by a stub), interleaved, in one process; it prints the median wall time of each, their
ratio, and the horizon's own time (``result.json → timings``) as a share of the rest of each run —
the figure that does not depend on how loaded the machine is between runs. The horizon must keep
``census run`` within 5 % of its time without it; ``census score`` of a stored run, which samples
nothing, is the strict reference (the horizon draws 20 resamples per split there too).

Data: a synthetic census (``--queries`` queries of 12 items drawn from a Zipf law over 2,000 items).
Both sides back-test the smoothed Good–Turing estimator (k = 8) at one ``t`` with ``--repeats``
splits of ``--n-bootstrap`` bootstrap resamples each and the census's log-normal interval:

1. **vectorised** — :func:`knowsum.census._backtest.run_splits`: every split and resample of the
   ``t`` is a column of one sparse product, every estimator a function of the columns' histograms.
2. **naive** — per split: build the kept queries' :class:`~knowsum.stats.Prevalence`, call
   :func:`~knowsum.stats.estimate_unseen` and :func:`~knowsum.stats.bootstrap` (the census's own
   interval code), and count the new items of the held-back queries with Python sets.

It prints both times, the ratio, and how the two agree: the mean prediction and the coverage
within Monte Carlo error (each side draws its own splits and resamples).

Usage::

    .venv/bin/python bench/bench_backtest.py [--fixture FILE] [--runs 5] [--queries 1000] [--t 9]
        [--repeats 100] [--n-bootstrap 50] [--best-of 5]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from knowsum.census import _analyse
from knowsum.census._backtest import kept_size, run_splits
from knowsum.census._horizon import too_small_horizon
from knowsum.cli import main as knowsum
from knowsum.stats import Prevalence, StatsWarning, bootstrap, estimate_unseen
from knowsum.stats import foresee as fs

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "census" / "study" / "theorems-0.5b.jsonl"


def census(n_queries: int, seed: int = 3) -> tuple[Prevalence, list[set[int]]]:
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 2001) ** 1.1
    answers = [set(rng.choice(2000, 12, p=p / p.sum()).tolist()) for _ in range(n_queries)]
    items = [x for a in answers for x in a]
    queries = [q for q, a in enumerate(answers) for _ in a]
    return Prevalence.from_items(items, queries=queries), answers


def naive(answers: list[set[int]], t: float, repeats: int, resamples: int, seed: int) -> tuple[float, float]:
    """Mean point prediction and coverage of the loop version."""
    rng = np.random.default_rng(seed)
    n_q = len(answers)
    m = kept_size(n_q, t)
    assert m is not None
    points, covered = [], 0
    for _ in range(repeats):
        order = rng.permutation(n_q)
        kept, rest = order[:m], order[m:]
        items = [x for q in kept for x in answers[q]]
        prev = Prevalence.from_items(items, queries=[q for q in kept for _ in answers[q]])
        t_eff = (n_q - m) / m
        est = estimate_unseen(prev, "et", t_eff, 8)
        boot = bootstrap(prev, "et", t_eff, 8, n_resamples=resamples, seed=int(rng.integers(2**31)))
        seen = set(items)
        truth = len({x for q in rest for x in answers[q]} - seen)
        points.append(est.estimate)
        lo, hi = boot.unseen
        covered += int(lo <= truth <= hi)
    return float(np.mean(points)), covered / repeats


def horizon_share(fixture: Path, runs: int) -> None:
    """Median ``census score`` time with and without the trust horizon, interleaved."""
    real = _analyse.trust_horizon

    def stub(prev: object, estimator: str, k: object, target_t: float, *args: object, **kw: object) -> object:
        return too_small_horizon(estimator, target_t)

    times: dict[str, list[float]] = {"with": [], "without": []}
    inner: list[float] = []
    horizon: dict[str, object] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            for mode in ("with", "without"):
                _analyse.trust_horizon = real if mode == "with" else stub  # type: ignore[assignment]
                out = Path(tmp) / f"{mode}-{i}"
                start = time.perf_counter()
                err = io.StringIO()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                    code = knowsum(["census", "score", str(fixture), "--out", str(out)])
                if code != 0:
                    why = err.getvalue().strip()
                    raise SystemExit(f"bench_backtest: `knowsum census score {fixture}` exited {code}: {why}")
                times[mode].append(time.perf_counter() - start)
                if mode == "with":
                    result = json.loads((out / "result.json").read_text())
                    inner.append(float(result["timings"]["horizon"]))
                    horizon = result["horizon"]
    _analyse.trust_horizon = real  # type: ignore[assignment]
    w, wo = statistics.median(times["with"]), statistics.median(times["without"])
    print(f"census score {fixture.name}: with the horizon {w:.2f} s, without {wo:.2f} s (median of {runs})")
    print(f"ratio with / without: {w / wo:.3f}; the horizon itself: {statistics.median(inner):.3f} s")
    checked = ", ".join(f"{float(t):.3g}" for t in horizon.get("checked") or [])  # type: ignore[attr-defined]
    print(f"the horizon: {horizon.get('estimator')} at t = {checked}; {horizon.get('message')}")
    shares = [h / (t - h) for h, t in zip(inner, times["with"], strict=True)]
    print(
        f"the horizon's share within each run (robust to load between runs): median "
        f"{statistics.median(shares):.1%} of the rest of census score, max {max(shares):.1%}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--fixture", type=Path, default=FIXTURE, help="census items to score (default: the theorem fixture)"
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--t", type=float, default=9.0)
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--n-bootstrap", "--resamples", dest="resamples", type=int, default=50)
    parser.add_argument("--best-of", type=int, default=5, help="alternating timings of each side (best kept)")
    args = parser.parse_args()
    if not args.fixture.is_file():
        parser.error(f"fixture not found: {args.fixture} (default: {FIXTURE.relative_to(ROOT)} in the repo)")
    horizon_share(args.fixture, args.runs)
    prev, answers = census(args.queries)
    print(f"census: {args.queries} queries, N_seen = {prev.n_seen}, t = {args.t:g}, {args.repeats} splits")
    warnings.simplefilter("ignore", StatsWarning)
    fast, slow = float("inf"), float("inf")
    for _ in range(args.best_of):  # alternating, best of N each: one call takes only tens of ms
        start = time.perf_counter()
        predictors = {"sgt-k8": fs.PREDICTORS["sgt-k8"]}
        out = run_splits(prev, args.t, predictors, args.repeats, args.resamples, seed=0)
        fast = min(fast, time.perf_counter() - start)
        start = time.perf_counter()
        slow_point, slow_cover = naive(answers, args.t, args.repeats, args.resamples, 0)
        slow = min(slow, time.perf_counter() - start)
    assert not isinstance(out, str)
    lo, hi = out.lower["sgt-k8"], out.upper["sgt-k8"]
    fast_cover = float(np.mean((lo <= out.observed) & (out.observed <= hi)))
    fast_point = float(np.mean(np.maximum(out.point["sgt-k8"], 0)))
    print(
        f"vectorised: {fast:.3f} s, best of {args.best_of} "
        f"(mean Û {fast_point:.1f}, coverage {fast_cover:.0%})"
    )
    print(
        f"naive loop with the census bootstrap: {slow:.3f} s, best of {args.best_of} "
        f"(mean Û {slow_point:.1f}, coverage {slow_cover:.0%})"
    )
    print(f"ratio naive / vectorised: {slow / fast:.1f}x (the splits differ: the two draw their own)")


if __name__ == "__main__":
    main()
