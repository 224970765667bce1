"""Benchmark: iNEXT-style rarefaction/extrapolation curves with 200 bootstrap replicates, vs copia.

Data: a Zipf-like abundance sample (default 10⁶ observations drawn from 12,000 species with
probabilities ∝ 1/i^1.2; about 11,800 species are detected, with ~500 singletons).

Timed, best of ``--repeat``:

1. **knowsum, full** — ``rarefaction_extrapolation(data, q=(0, 1, 2), n_bootstrap=200)``: the
   size-based curve at iNEXT's 40 default sizes (1 … 2n) and the coverage-based curve at the
   coverage of each of those sizes, for q = 0, 1, 2, with bootstrap bands for both.
2. **knowsum, like-for-like** — the same call with ``q=0`` and ``sizes=1..40``, the points copia
   computes (the coverage-based curve is still computed, so knowsum does strictly more work).
3. **copia** — ``copia.richness.species_accumulation(counts, max_steps=41, n_iter=R)``: copia's
   ``rarefaction_extrapolation`` (q = 0 only; it evaluates every integer size from 1 to
   ``max_steps − 1``, one Python-level loop over the species per size) on the sample and on ``R``
   bootstrap replicates drawn from the same iNEXT assemblage (``bt_prob``). copia has no
   q = 1, 2 and no coverage-based curve, and cannot evaluate chosen sizes: reaching our endpoint
   2n would mean evaluating all 2·10⁶ integer sizes. ``R`` defaults to 10 (copia needs about
   1.5 s per curve here); the time for 200 replicates is projected linearly as
   ``measured × 201/(R + 1)`` and the script says so. Run with ``--copia-replicates 200`` to
   measure it outright.

4. **hillrep 0.4.0** — ``hillrep.estimate(counts, q=(0, 1, 2), sizes=<knowsum's 40 sizes>,
   n_boot=R)``: the same size-based curve as (1) (hillrep has no coverage-based curve in
   ``estimate``), one Python-level bootstrap per size and order. ``R`` defaults to 2 and the time
   for 200 replicates is projected as ``measured × 201/(R + 1)`` (its cost is linear in the
   replicates: each one recomputes every point); it also prints the largest relative difference
   of the point values (both port iNEXT's formulas: they agree to ~1e-12).

It prints the times, the ratios (targets: full curve < 5 s, ≥ 10× faster than copia) and the
largest difference between the two programs' q = 0 values at m = 1..40 on the sample.

Usage::

    .venv/bin/python bench/bench_richness.py [--observations 1000000] [--species 12000]
        [--exponent 1.2] [--replicates 200] [--copia-replicates 10] [--hillrep-replicates 2]
        [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import platform
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from knowsum.stats import Abundance, rarefaction_extrapolation


def zipf_counts(n_observations: int, n_species: int, exponent: float, seed: int) -> np.ndarray:
    """Counts of the detected species in a multinomial sample with Zipf-like probabilities."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, n_species + 1) ** exponent
    counts = rng.multinomial(n_observations, weights / weights.sum())
    return counts[counts > 0]


def best_of(repeat: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def run_copia(counts: np.ndarray, steps: int, replicates: int, seed: int) -> tuple[float, np.ndarray]:
    """copia's bootstrapped accumulation curve (progress bar silenced); returns time and its curve."""
    import copia.richness as richness
    import copia.stats as stats

    np.random.seed(seed)  # copia's bootstrap draws from NumPy's global generator
    start = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):
        result = richness.species_accumulation(counts, max_steps=steps + 1, n_iter=replicates)
    elapsed = time.perf_counter() - start
    assert len(result["richness"]) == steps
    return elapsed, stats.rarefaction_extrapolation(counts, steps + 1)


def run_hillrep(
    counts: np.ndarray, sizes: np.ndarray, replicates: int, seed: int
) -> tuple[float, np.ndarray]:
    """hillrep's size-based curve of q = 0, 1, 2 at ``sizes`` with ``replicates`` bootstrap replicates."""
    import hillrep

    start = time.perf_counter()
    frame = hillrep.estimate(
        hillrep.AbundanceCounts(counts), q=(0, 1, 2), sizes=sizes.tolist(), n_boot=replicates, seed=seed
    )
    elapsed = time.perf_counter() - start
    values = np.array([frame[frame.order_q == q].sort_values("m").qD.to_numpy() for q in (0, 1, 2)])
    return elapsed, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--observations", type=int, default=1_000_000)
    parser.add_argument("--species", type=int, default=12_000)
    parser.add_argument("--exponent", type=float, default=1.2)
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--copia-replicates", type=int, default=10)
    parser.add_argument("--hillrep-replicates", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    counts = zipf_counts(args.observations, args.species, args.exponent, args.seed)
    data = Abundance(counts)
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    print(
        f"data: n = {data.n:,} observations, S_obs = {data.s_obs:,} species, "
        f"f1 = {data.f(1)}, f2 = {data.f(2)}"
    )

    full_time, full = best_of(
        args.repeat, lambda: rarefaction_extrapolation(data, n_bootstrap=args.replicates, seed=args.seed)
    )
    size_pts, cover_pts = full.size_based.size.size, full.coverage_based.size.size
    print(
        f"knowsum full curve (q = 0, 1, 2; {size_pts} sizes up to 2n + {cover_pts} coverage targets; "
        f"{full.n_bootstrap} replicates): {full_time:.2f} s"
    )

    steps = 40
    like_time, like = best_of(
        args.repeat,
        lambda: rarefaction_extrapolation(
            data, q=0, sizes=np.arange(1, steps + 1), n_bootstrap=args.replicates, seed=args.seed
        ),
    )
    print(f"knowsum like-for-like (q = 0, m = 1..{steps}, {like.n_bootstrap} replicates): {like_time:.2f} s")

    copia_time, copia_curve = run_copia(counts, steps, args.copia_replicates, args.seed)
    projected = copia_time * (args.replicates + 1) / (args.copia_replicates + 1)
    how = (
        "measured"
        if args.copia_replicates == args.replicates
        else (f"projected from {args.copia_replicates} replicates measured in {copia_time:.1f} s")
    )
    print(
        f"copia species_accumulation (q = 0, m = 1..{steps}, {args.replicates} replicates): "
        f"{projected:.1f} s ({how})"
    )

    ours = like.size_based.diversity[0][like.size_based.size <= steps]
    print(f"max |knowsum − copia| at m = 1..{steps}: {np.max(np.abs(ours - copia_curve)):.2e}")
    kind = "measured" if args.copia_replicates == args.replicates else "projected"
    print(f"ratio copia ({kind}) / knowsum like-for-like: {projected / like_time:.0f}x")
    print(f"ratio copia ({kind}; q = 0 only, 40 sizes) / knowsum full curve: {projected / full_time:.0f}x")
    sizes = full.size_based.size
    hill_time, hill_values = run_hillrep(counts, sizes, args.hillrep_replicates, args.seed)
    hill_projected = hill_time * (args.replicates + 1) / (args.hillrep_replicates + 1)
    rel = np.max(np.abs(full.size_based.diversity - hill_values) / np.abs(hill_values))
    print(
        f"hillrep estimate (q = 0, 1, 2, the {sizes.size} sizes of the full curve, {args.replicates} "
        f"replicates): {hill_projected:.1f} s (projected from {args.hillrep_replicates} replicates "
        f"measured in {hill_time:.1f} s); max relative |knowsum − hillrep| {rel:.1e}"
    )
    print(f"ratio hillrep (size-based only) / knowsum full curve: {hill_projected / full_time:.0f}x")
    verdict = "met" if full_time < 5 and projected / like_time >= 10 else "NOT met"
    print(f"targets (< 5 s full curve, >= 10x copia): {verdict}")


if __name__ == "__main__":
    main()
