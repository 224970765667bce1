"""Benchmark: ``knowsum recall score`` on 42,854 predictions of the full Gene Ontology (the paper's size).

Builds a synthetic predictions file in the paper's public-release layout
(``ID;label;n_annotations;n_web_occurrences;prediction``) over every live GO term of the installed
KB (``knowsum kb install go``), topped up with repeats to ``--n`` rows, with the web popularity of
the bundled web-occurrence table (``load_popularity("go")``) and a known mixture of answers whose
correctness rises with popularity: correct IDs, near misses (one digit changed), other existing IDs,
invented IDs, chatty answers and answers without an ID. It then times each step of the scoring — KB
load, file read, buckets and label index, answer judging (extraction, Levenshtein, Jaccard),
statistics (50 buckets, both rule sets — the paper's comparability rules and knowsum's — six
10,000-permutation Spearman tests, the Granger F with a 10,000-permutation p, top-500 R_B), writing
result.json/predictions.jsonl, and the HTML report with its plots — and the whole CLI command in a
fresh process (which, like every recall command, writes its run folder). Target: scoring in the
CLI under 10 s on 2 cores.

Baseline side by side: the Granger permutation test as one batched closed-form least squares
(``knowsum.stats.granger_test``) against the straightforward loop calling statsmodels'
``grangercausalitytests`` once per permutation, on the run's own bucket series (the loop is timed
on ``--baseline-perm`` permutations and scaled to 10,000; the ratio is printed).

Usage::

    .venv/bin/python bench/bench_recall.py [--n 42854] [--seed 0] [--baseline-perm 1000]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from knowsum.kb import load_ontology, load_popularity
from knowsum.recall import load_predictions, score_predictions, write_outputs


def make_predictions(path: Path, n: int, seed: int) -> None:
    """Write ``n`` synthetic release rows over the live GO terms (see module docstring)."""
    go = load_ontology("go")
    web = {r.id: r.count for r in load_popularity("go")}
    ids = sorted(t for t in go if not go[t].obsolete)
    rng = random.Random(seed)
    rows = ids + [rng.choice(ids) for _ in range(max(0, n - len(ids)))]
    rows = rows[:n]
    lines = []
    for gid in rows:
        pop = web.get(gid, 0)
        u = rng.random()
        p_correct = min(0.9, 0.02 + pop / 20_000)
        if u < p_correct:
            pred = gid if rng.random() < 0.7 else f"The GO ID is {gid}."
        elif u < p_correct + 0.15:
            digits = list(gid[3:])
            i = rng.randrange(7)
            digits[i] = str((int(digits[i]) + 1) % 10)
            pred = "GO:" + "".join(digits)
        elif u < p_correct + 0.55:
            pred = rng.choice(ids[:2000])  # a few IDs repeated often, as the paper observes
        elif u < p_correct + 0.7:
            pred = f"GO:{rng.randrange(3_000_000, 9_999_999):07d}"
        elif u < p_correct + 0.8:
            pred = "I am not sure which GO term this is."
        else:
            pred = f"go_{rng.randrange(1, 99_999)}"
        lines.append(f"{gid};{go[gid].name.replace(';', ',')};0;{pop};{pred}\n")
    path.write_text("".join(lines), encoding="utf-8")


def _children_cpu() -> float:
    """User + system CPU seconds of the finished child processes (load-independent, unlike wall time)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def granger_baseline(effect: list[float], cause: list[float], n_perm: int, seed: int) -> float:
    """Seconds of the naive permutation loop: one statsmodels Granger test per shuffled cause."""
    import warnings

    import numpy as np
    from statsmodels.tsa.stattools import grangercausalitytests

    rng = np.random.default_rng(seed)
    y = np.asarray(effect, float)
    x = np.asarray(cause, float)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(n_perm):
            grangercausalitytests(np.column_stack([y, rng.permutation(x)]), maxlag=[3])
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=42_854)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline-perm", type=int, default=1_000)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "go_predictions.csv"
        make_predictions(path, args.n, args.seed)
        start = time.perf_counter()
        run = score_predictions("go", path, n_perm=10_000, seed=args.seed, out=Path(tmp) / "run")
        run_s = time.perf_counter() - start
        result, records = run.record, load_predictions(run.out_dir)
        score_s = sum(result.timings.values())
        t0 = time.perf_counter()
        write_outputs(Path(tmp) / "out", result, records, report=False)
        write_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        write_outputs(Path(tmp) / "out", result, records, report=True)
        report_s = time.perf_counter() - t0 - write_s
        cmd = [
            str(Path(sys.executable).parent / "knowsum"),
            "recall",
            "score",
            "--kb",
            "go",
            "--predictions",
            str(path),
            "--json",
            "--out",
            str(Path(tmp) / "cli"),
        ]
        t0 = time.perf_counter()
        cpu0 = _children_cpu()
        subprocess.run(cmd, check=True, capture_output=True)
        cli_json_s = time.perf_counter() - t0
        cli_json_cpu = _children_cpu() - cpu0
    s = result.scores
    pop, paper = s.popularity, s.paper
    assert pop is not None and paper is not None
    print(
        f"{s.n:,} predictions: accuracy {s.accuracy:.4f}; unique answers {paper.unique_answers:,} "
        f"(paper rules) / {s.n_unique_predicted:,} IDs (knowsum rules), invented "
        f"{paper.invented_pct:.2f}% / {s.invented_unique_pct:.2f}%; Spearman ρ {pop.bucket_spearman:.3f} "
        f"(p {pop.bucket_spearman_p:.2g}), Granger F {pop.granger_f:.3f} "
        f"(parametric p {pop.granger_p:.2g}, permutation p {pop.granger_perm_p:.2g})"
    )
    from knowsum.stats import granger_test

    filled = [b for b in pop.buckets if b.accuracy is not None and b.mean_popularity is not None]
    acc = [b.accuracy or 0.0 for b in filled]
    x = [b.mean_popularity or 0.0 for b in filled]
    t0 = time.perf_counter()
    granger_test(acc, x, n_perm=10_000, seed=args.seed)
    batched_s = time.perf_counter() - t0
    loop_s = granger_baseline(acc, x, args.baseline_perm, args.seed) * 10_000 / args.baseline_perm
    print(
        f"Granger, 10,000 permutations: batched closed form {batched_s:.3f} s; statsmodels loop "
        f"{loop_s:.1f} s (timed on {args.baseline_perm:,}, scaled) → {loop_s / batched_s:.0f}× faster"
    )
    print("\nstep                              seconds")
    for step, sec in result.timings.items():
        print(f"  {step:<31} {sec:7.3f}")
    print(f"  {'scoring (the steps above)':<31} {score_s:7.3f}")
    print(f"  {'write result + predictions':<31} {write_s:7.3f}")
    print(f"  {'report.html + plots':<31} {report_s:7.3f}")
    print(f"  {'score_predictions (run folder)':<31} {run_s:7.3f}")
    print(f"  {'CLI score --json (process)':<31} {cli_json_s:7.3f}   writes the run folder too")
    print(f"  {'  its CPU time (user + sys)':<31} {cli_json_cpu:7.3f}   (what an idle machine needs, about)")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
