"""Benchmark: does the census's 95 % prediction interval hold what the next queries show, and what does
the check at the census's own t cost?

1. **Coverage on communities knowsum has never seen**
   (:func:`knowsum.stats.coverage_study.synthetic_community`: a Zipf tail with repeats within answers
   and 20 % empty answers; log-normal abundances with answers of 1–12 distinct items; ten items holding
   half the mass before a flat tail of 5,000, answers of 0–2 items). For each, ``--replicates`` censuses
   of ``--queries`` queries are simulated; each is estimated as a census is (held-out ``k``, bootstrap
   over queries, the prediction interval with its simulated bias) and scored against the new items of an
   independent continuation at t = 1 and 3: coverage of the prediction and of the confidence interval ±
   binomial Monte Carlo s.e., and the ratio of their mean interval scores (Gneiting & Raftery 2007;
   below 1: the prediction interval is the better interval). Each row runs twice on the same seeds:
   the census's rule (``Var(U) = D̂·Û``, the queries' dispersion) and the Poisson baseline (``D̂ = 1``).
2. **Cost**: ``census score`` of the theorem fixture (tests/fixtures/census/study/theorems-0.5b.jsonl)
   with and without the simulated check (the check replaced by "skipped"), best of ``--repeats``.

Usage::

    .venv/bin/python bench/bench_prediction.py [--queries 200] [--replicates 200] [--repeats 3] [--cost-only]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from pathlib import Path
from unittest import mock

from knowsum.cli import main
from knowsum.stats import predict_unseen, summary
from knowsum.stats.coverage_study import SYNTHETIC, coverage_study, synthetic_community

FIXTURE = (
    Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "census" / "study" / "theorems-0.5b.jsonl"
)


def coverage(queries: int, replicates: int) -> None:
    """Each community and t twice on the same seeds: as the census forms the prediction interval
    (``Var(U) = D̂·Û``), and with the Poisson ``Var(U) = Û`` (``D̂`` held at 1), the baseline."""
    print(f"coverage of 95 % intervals over {replicates} simulated censuses of {queries} queries (± MC s.e.)")
    head = f"{'community':<10} {'t':>3}  {'prediction':>14}  {'PI, D̂ = 1':>14}  {'confidence':>14}"
    print(f"{head}  {'score PI/CI':>11}  {'(D̂ = 1)':>8}")
    poisson = mock.patch.object(predict_unseen, "query_dispersion", lambda _: 1.0)
    for name in SYNTHETIC:
        for t in (1.0, 3.0):
            s = coverage_study(synthetic_community(name), queries, t, replicates=replicates, n_shuffles=30)
            with poisson:
                p = coverage_study(
                    synthetic_community(name), queries, t, replicates=replicates, n_shuffles=30
                )
            print(
                f"{name:<10} {t:>3g}  {s.prediction_coverage:>7.1%} ± {s.prediction_se:.1%}  "
                f"{p.prediction_coverage:>7.1%} ± {p.prediction_se:.1%}  "
                f"{s.confidence_coverage:>7.1%} ± {s.confidence_se:.1%}  {s.score_ratio:>11.2f}  "
                f"{p.score_ratio:>8.2f}",
                flush=True,
            )


def _score_once() -> float:
    if not FIXTURE.is_file():
        raise SystemExit(f"bench_prediction: fixture not found: {FIXTURE}")
    err = io.StringIO()
    with tempfile.TemporaryDirectory() as tmp, contextlib.redirect_stdout(io.StringIO()):
        t0 = time.perf_counter()
        with contextlib.redirect_stderr(err):
            code = main(["census", "score", str(FIXTURE), "--out", str(Path(tmp) / "run")])
        if code != 0:
            why = err.getvalue().strip()
            raise SystemExit(f"bench_prediction: `knowsum census score {FIXTURE}` exited {code}: {why}")
        return time.perf_counter() - t0


def cost(repeats: int) -> None:
    """Best of ``repeats`` runs each way, interleaved after one warm-up run (imports, font cache)."""
    _score_once()
    with_check, without = float("inf"), float("inf")
    skipped = mock.patch.object(summary, "check_at_own_t", lambda *a, **k: (None, None, "skipped"))
    for _ in range(repeats):
        with_check = min(with_check, _score_once())
        with skipped:
            without = min(without, _score_once())
    print(
        f"census score {FIXTURE.name}: {with_check:.2f} s with the check at own t, {without:.2f} s without "
        f"(ratio {with_check / without:.3f}; best of {repeats}, interleaved)"
    )


def run() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--replicates", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cost-only", action="store_true", help="Time census score only.")
    args = parser.parse_args()
    cost(args.repeats)
    if not args.cost_only:
        coverage(args.queries, args.replicates)


if __name__ == "__main__":
    run()
