"""Benchmark: knowsum's rational function (``knowsum.stats.preseq``) against the preseq binary itself.

On the histograms of ``tests/fixtures/preseq`` (Fisher's butterflies, the Etosha ciliates, iNEXT's
Logged spiders, the theorem census), it times the same work both ways (preseq's time includes starting
its process, ~5 ms): preseq's single-estimate mode ``preseq lc_extrap -H -Q -D -s n -e 101n+n/2``
(``-D`` so every histogram gives numbers; one process per call, reading the file) against knowsum's
``fit_rational(hist, defects=True)`` at ``t = 0, 1, …, 100``; and ``-Q`` without ``-D`` (the stability
search) against knowsum's default fit. It also times a batch, 1,000 bootstrap histograms of Fisher's
data in one call (the back-test's use), and the Pitman–Yor fit (scipy per sample, vectorised per batch).

The preseq binary is looked up in ``$PRESEQ``, then on ``PATH``; without it only knowsum's times are
printed. knowsum never ships or builds preseq (see the fixture README for how the reference binary was
built).

Usage::

    .venv/bin/python bench/bench_long_range.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from knowsum.stats import pitman_yor as py
from knowsum.stats.preseq import fit_rational

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "preseq"
HISTOGRAMS = ("fisher", "ciliates", "spider_logged", "theorems")


def _hist(name: str) -> np.ndarray:
    rows = [line.split() for line in (FIXTURES / f"{name}.hist").read_text().splitlines() if line.strip()]
    h = np.zeros(max(int(s) for s, _ in rows) + 1)
    for s, f in rows:
        h[int(s)] = float(f)
    return h


def _run(cmd: list[str]) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def _best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    binary = os.environ.get("PRESEQ") or shutil.which("preseq")
    if binary is None:
        print("preseq binary not found ($PRESEQ or PATH): timing knowsum only")
    grid = np.arange(101, dtype=np.float64)
    head = f"{'histogram':<14}{'knowsum -D':>12}{'knowsum -Q':>12}{'preseq -Q -D':>14}{'ratio':>8}"
    print(f"{head}{'preseq -Q':>12}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in HISTOGRAMS:
            h = _hist(name)
            n = int(np.dot(np.arange(h.size), h))
            ours_d = _best(lambda h=h: fit_rational(h, defects=True)(grid), args.repeat)
            ours_q = _best(lambda h=h: fit_rational(h)(grid), args.repeat)
            theirs = quick = None
            if binary is not None:
                out = Path(tmp) / f"{name}.tsv"
                cmd = [binary, "lc_extrap", "-H", "-Q", "-D", "-s", str(n), "-e", str(101 * n + n // 2)]
                cmd += ["-o", str(out), str(FIXTURES / f"{name}.hist")]
                theirs = _best(lambda cmd=cmd: _run(cmd), args.repeat)
                plain = [c for c in cmd if c != "-D"]
                if subprocess.run(plain, check=False, capture_output=True).returncode == 0:
                    quick = _best(lambda plain=plain: _run(plain), args.repeat)
            ratio = f"{theirs / ours_d:.1f}x" if theirs else "—"
            shown = f"{theirs * 1e3:.2f} ms" if theirs else "—"
            q = f"{quick * 1e3:.2f} ms" if quick else "refused"
            q_ratio = f"{quick / ours_q:.1f}x" if quick else "—"
            print(
                f"{name:<14}{ours_d * 1e3:>9.2f} ms{ours_q * 1e3:>9.2f} ms"
                f"{shown:>14}{ratio:>8}{q:>12}{q_ratio:>8}"
            )
    rng = np.random.default_rng(0)
    fisher = _hist("fisher")
    batch = np.array(
        [rng.multinomial(int(fisher.sum()), fisher / fisher.sum()) for _ in range(1000)], dtype=float
    )
    batch[:, 0] = 0
    per_batch = _best(lambda: fit_rational(batch)(grid), 3)
    print(f"1,000 resampled Fisher histograms, stability-searched fit + 101 points: {per_batch:.2f} s")
    theorems = _hist("theorems")
    single = _best(lambda: py.fit(theorems), 5)
    rows = np.repeat(theorems[None, :], 1000, axis=0)
    vectorised = _best(lambda: py.fit_rows(rows), 2)
    print(
        f"Pitman–Yor fit, theorem census: scipy {single * 1e3:.1f} ms a sample; "
        f"1,000 at once {vectorised:.2f} s"
    )


if __name__ == "__main__":
    main()
