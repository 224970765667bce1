"""Benchmark: ``knowsum recall score`` on 50,000 predictions of the full Gene Ontology.

Builds a synthetic predictions file in the paper's public-release layout
(``ID;label;n_annotations;n_web_occurrences;prediction``) over every live GO term of the installed
KB (``knowsum kb install go``), topped up with repeats to ``--n`` rows, with the web popularity of
the bundled web-occurrence table (``load_popularity("go")``) and a known mixture of answers whose
correctness rises with popularity: correct IDs, near misses (one digit changed), other existing IDs,
invented IDs, chatty answers and answers without an ID. It then times each step of the scoring — KB
load, file read, buckets and label index, answer judging (extraction, Levenshtein, Jaccard),
statistics (50 buckets, four 10,000-permutation Spearman tests, Granger F, top-500 R_B), writing
result.json/predictions.jsonl, and the HTML report with its plots — and the whole CLI command in a
fresh process.
Target: the CLI under 10 s on 2 cores.

Usage::

    .venv/bin/python bench/bench_recall.py [--n 50000] [--seed 0]
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
from knowsum.recall import score_predictions, write_outputs


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "go_predictions.csv"
        make_predictions(path, args.n, args.seed)
        start = time.perf_counter()
        result, records = score_predictions("go", path, n_perm=10_000, seed=args.seed)
        score_s = time.perf_counter() - start
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
            "--ontology",
            "go",
            "--predictions",
            str(path),
            "--json",
        ]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        cli_json_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        subprocess.run([*cmd, "--out", str(Path(tmp) / "cli")], check=True, capture_output=True)
        cli_out_s = time.perf_counter() - t0
    s = result.scores
    pop = s.popularity
    assert pop is not None
    print(
        f"{s.n:,} predictions: accuracy {s.accuracy:.4f}, {s.n_unique_predicted:,} unique IDs, "
        f"{s.invented_unique_pct:.2f}% invented, Spearman ρ {pop.bucket_spearman:.3f} "
        f"(p {pop.bucket_spearman_p:.2g}), Granger F {pop.granger_f}"
    )
    print("\nstep                              seconds")
    for step, sec in result.timings.items():
        print(f"  {step:<31} {sec:7.3f}")
    print(f"  {'score_predictions (total)':<31} {score_s:7.3f}")
    print(f"  {'write result + predictions':<31} {write_s:7.3f}")
    print(f"  {'report.html + plots':<31} {report_s:7.3f}")
    print(f"  {'CLI score --json (process)':<31} {cli_json_s:7.3f}   target < 10 s")
    print(f"  {'CLI score --out (+ artifacts)':<31} {cli_out_s:7.3f}")


if __name__ == "__main__":
    main()
