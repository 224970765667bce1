"""Benchmark: the full unseen-knowledge estimate vs copia's bootstrapped Chao1, on the same data.

A synthetic Zipf-like census (default: 10⁶ observations = 10⁴ queries × 100 items, drawn from
10⁵ possible items with probabilities ∝ 1/i^1.1) is estimated end to end by
``knowsum.estimate.estimate`` (what ``knowsum estimate`` runs once the file is read) — held-out
selection of k (100 shuffles × r_obs {1/2, 1/3, 1/4} × k {6, 8, 10}), the smoothed Good–Turing
estimate at t = 100, a 1,000-resample bootstrap over queries and the simulated error at the
census's own t (``check_at_own_t``: 20 simulated censuses at this size) — and, side by side in the
same run, by copia's ``diversity(counts, method="chao1", CI=True, n_iter=1000)``. It prints both
times and their ratio (target: knowsum < 2 s on 2 cores and ≥ 10× faster than copia), and the
time of each stage of one more run of the full estimate.

Usage::

    .venv/bin/python bench/bench_estimate.py [--observations 1000000] [--queries 10000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import inspect
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from knowsum.estimate import EstimateConfig, estimate
from knowsum.stats import Prevalence, bootstrap


def zipf_census(
    n_observations: int, n_queries: int, n_universe: int, seed: int
) -> tuple[np.ndarray, np.ndarray]:
    """Item ids and query ids of a synthetic census with Zipf-like item popularity."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_universe + 1) ** 1.1
    items = rng.choice(n_universe, size=n_observations, p=weights / weights.sum())
    queries = np.repeat(np.arange(n_queries), -(-n_observations // n_queries))[:n_observations]
    return items, queries


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any, float]:
    """Best wall time of ``repeat`` calls, the last result, and the CPU time of the best call
    (CPU seconds of all threads: steadier than wall time when other jobs share the machine)."""
    best, best_cpu, result = float("inf"), float("inf"), None
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall = time.perf_counter() - start
        if wall < best:
            best, best_cpu = wall, time.process_time() - cpu
    return best, result, best_cpu


def stages(prev: Prevalence, config: EstimateConfig) -> tuple[float, dict[str, float]]:
    """One more full estimate with its main stages timed (wall time of the whole, seconds per stage):
    the held-out choice of k, the 1,000-resample bootstrap and the simulated error at the census's own
    t (:func:`knowsum.stats.community.check_at_own_t`); the rest is the plan, the estimate itself and
    the prediction interval."""
    from knowsum.stats import summary

    names = {"select_k": "held-out k", "bootstrap_plans": "bootstrap", "check_at_own_t": "own-t check"}
    spent = dict.fromkeys(names.values(), 0.0)
    originals = {name: getattr(summary, name) for name in names}

    def timed(name: str) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return originals[name](*args, **kwargs)
            finally:
                spent[names[name]] += time.perf_counter() - start

        return call

    for name in names:
        setattr(summary, name, timed(name))
    try:
        start = time.perf_counter()
        estimate(prev, config)
        total = time.perf_counter() - start
    finally:
        for name, fn in originals.items():
            setattr(summary, name, fn)
    return total, spent


def run_copia(counts: np.ndarray, seed: int) -> dict[str, Any]:
    """copia's bootstrapped Chao1 (progress bar off when the installed version allows it)."""
    from copia.richness import diversity

    kwargs: dict[str, Any] = {"method": "chao1", "CI": True, "n_iter": 1000, "seed": seed}
    if "disable_pb" in inspect.signature(diversity).parameters:
        kwargs["disable_pb"] = True
    result: dict[str, Any] = diversity(counts, **kwargs)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--observations", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--universe", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N for knowsum")
    parser.add_argument("--copia-repeat", type=int, default=1, help="best of N for copia (about 10 s each)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    items, queries = zipf_census(args.observations, args.queries, args.universe, args.seed)
    machine = platform.processor() or platform.machine()
    print(f"machine: {machine}, {os.cpu_count()} cores, numpy {np.__version__}")
    build_s, prev, _ = best_of(args.repeat, lambda: Prevalence.from_items(items, queries))
    print(
        f"census: {prev.n_observations:,} observations, {prev.n_queries:,} queries, "
        f"{prev.n_seen:,} distinct items (n_1 = {prev.f(1):,})"
    )

    config = EstimateConfig(estimator="et", t=100.0, k="auto", n_bootstrap=1000, seed=0)
    full_s, result, full_cpu = best_of(args.repeat, lambda: estimate(prev, config))
    sel = result.selection
    print(
        f"knowsum  full estimate (held-out k: {sel.n_shuffles} shuffles x {len(sel.fractions)} fractions x "
        f"{len(sel.candidates)} k; 1,000-resample query bootstrap): {full_s:.3f} s (CPU {full_cpu:.3f} s)"
    )
    lo, hi = result.interval
    print(
        f"         k = {result.k}, N_seen = {result.n_seen:,}, U(100) = {result.n_unseen:,.0f} "
        f"[{lo:,.0f}, {hi:,.0f}], N_tot = {result.n_total:,.0f}, SKR = {result.skr:.3f}"
    )
    print(f"         (building the Prevalence from the raw arrays: {build_s:.3f} s more)")
    total_s, spent = stages(prev, config)
    own = result.own_t
    what = "not run" if own is None else f"{own.replicates} simulated censuses of {own.n_queries:,} queries"
    print(
        f"         stages of one more run ({total_s:.3f} s): "
        + ", ".join(f"{name} {sec:.3f} s ({sec / total_s:.0%})" for name, sec in spent.items())
        + f", the rest {total_s - sum(spent.values()):.3f} s; own-t check: {what}"
    )
    counts_only = Prevalence.from_counts(prev.counts)
    chao_s, _, chao_cpu = best_of(
        args.repeat, lambda: bootstrap(counts_only, "chao1", n_resamples=1000, seed=0)
    )
    print(
        "knowsum  Chao1 with 1,000 multinomial resamples (like-for-like with copia): "
        f"{chao_s:.3f} s (CPU {chao_cpu:.3f} s)"
    )

    counts = np.asarray(prev.counts)
    copia_s, copia_result, copia_cpu = best_of(args.copia_repeat, lambda: run_copia(counts, args.seed))
    print(
        f"copia    diversity(method='chao1', CI=True, n_iter=1000): {copia_s:.3f} s (CPU {copia_cpu:.3f} s) "
        f"(Chao1 = {float(copia_result['richness']):,.1f} [{float(copia_result['lci']):,.1f}, "
        f"{float(copia_result['uci']):,.1f}])"
    )
    print(
        f"ratio    copia / knowsum full estimate = {copia_s / full_s:.1f}x wall, "
        f"{copia_cpu / full_cpu:.1f}x CPU"
    )
    print(f"ratio    copia / knowsum Chao1 bootstrap = {copia_s / chao_s:.1f}x")
    print(
        f"target   knowsum full estimate < 2 s: {'met' if full_s < 2 else 'NOT met'}; >= 10x copia: "
        f"{'met' if copia_s / full_s >= 10 else 'NOT met'}"
    )


if __name__ == "__main__":
    main()
