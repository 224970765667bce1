"""Regenerate docs/foresee.md's back-test table and figures from a committed items-per-query fixture.

For each counting mode (``mention``: every valid mention, KnowSum App. B.3; ``incidence``: an item
at most once per response), the fixture is scored as a census (``knowsum census score``) and
back-tested (``knowsum census backtest``) in a temporary folder; the script prints one Markdown
table per mode (relative bias, relative RMSE and interval coverage of every estimator at every
``t``), the trust horizon, and copies each figure to ``--img``.

``--from-run RUN_DIR`` first writes the fixture from a census run: one line per query asked, the
cluster keys of its valid items, every mention (so ``--count mention`` and ``--count incidence``
both rebuild the run's histograms). ``--synthetic Q`` writes a synthetic fixture instead (Q queries
of 12 items drawn with probability ∝ 1/rank^1.1 from 2,000 items, seed 3) and studies that: a
stand-in until a real census is at hand.

Usage::

    .venv/bin/python bench/foresee_study.py tests/fixtures/census/study/theorems-135m.jsonl \\
        [--img docs/img] [--repeats 100] [--resamples 50] [--t 1,3,9,19,49,99]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from knowsum.census import backtest_census
from knowsum.cli import main as knowsum
from knowsum.records.backtest import BacktestRow
from knowsum.report import markdown_table


def _pct(x: float | None, sign: bool = True) -> str:
    if x is None:
        return "diverges"
    return f"{100 * x:.2g}%" if abs(x) >= 10 else f"{x:+.0%}" if sign else f"{x:.0%}"


def from_run(run: Path, path: Path) -> None:
    """The valid items' cluster keys of each query of a census run (every mention; empty queries too)."""
    result = json.loads((run / "result.json").read_text(encoding="utf-8"))
    keys: dict[int, list[str]] = {}
    with (run / "items.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            item = json.loads(line)
            keys.setdefault(int(item["query"]), [])
            if item["status"] == "valid":
                keys[int(item["query"])].append(str(item["key"]))
    for q in range(int(result["n_queries"])):
        keys.setdefault(q, [])
    with path.open("w", encoding="utf-8") as fh:
        for q in sorted(keys):
            fh.write(json.dumps({"query": f"q{q}", "items": keys[q]}, ensure_ascii=False) + "\n")


def synthetic(path: Path, n_queries: int, seed: int = 3) -> None:
    """Write ``n_queries`` synthetic queries of 12 items (Zipf 1.1 over 2,000 items) to ``path``."""
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 2001) ** 1.1
    with path.open("w", encoding="utf-8") as fh:
        for q in range(n_queries):
            items = [f"item{x}" for x in rng.choice(2000, 12, p=p / p.sum())]
            fh.write(json.dumps({"query": f"q{q}", "items": items}) + "\n")


def _wide(rows: list[BacktestRow], estimators: list[str]) -> str:
    """Estimators as rows, t as columns, each cell ``bias / RMSE / coverage`` (the page's table)."""
    ts = sorted({r.t for r in rows})
    cell = {(r.estimator, r.t): r for r in rows}
    body = [
        [f"`{name}`"]
        + [
            "—"
            if (r := cell.get((name, t))) is None
            else f"{_pct(r.relative_bias)} / {_pct(r.relative_rmse, sign=False)} / {r.coverage:.0%}"
            for t in ts
        ]
        for name in estimators
    ]
    return markdown_table(["estimator", *(f"t = {t:g}" for t in ts)], body)


def study(fixture: Path, img: Path, repeats: int, resamples: int, ts: list[float]) -> None:
    """Score, back-test and print one table per counting mode."""
    img.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for count in ("mention", "incidence"):
            run = Path(tmp) / f"run-{count}"
            with contextlib.redirect_stdout(io.StringIO()):
                code = knowsum(["census", "score", str(fixture), "--out", str(run), "--count", count])
            if code != 0:
                raise SystemExit(f"census score failed on {fixture} ({count})")
            start = time.perf_counter()
            done = backtest_census(run, Path(tmp) / f"bt-{count}", ts, repeats, resamples, seed=0)
            bt = done.result
            target = img / f"foresee-{fixture.stem}-{count}.png"
            shutil.copyfile(done.out_dir / "plots" / "backtest.png", target)
            print(f"\n### {count} counting: {bt.n_queries} queries, N_seen = {bt.n_seen}")
            print(
                f"({repeats} splits per t, {resamples} resamples each; {time.perf_counter() - start:.0f} s)\n"
            )
            rows = [
                [
                    f"{r.t:g}",
                    r.estimator,
                    f"{r.observed:,.0f}",
                    _pct(r.relative_bias),
                    _pct(r.relative_rmse, sign=False),
                    f"{r.coverage:.0%}",
                ]
                for r in sorted(bt.rows, key=lambda r: (r.t, bt.estimators.index(r.estimator)))
            ]
            print(markdown_table(["t", "estimator", "observed", "rel. bias", "rel. RMSE", "coverage"], rows))
            print(f"\nOne row per estimator (rel. bias / rel. RMSE / coverage; {count} counting):\n")
            print(_wide(bt.rows, bt.estimators))
            for s in bt.skipped:
                print(f"\nt = {s.t:g}: not checked ({s.reason})")
            print(f"\ntrust horizon ({bt.horizon.estimator}): {bt.horizon.message}")
            print(f"figure: {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fixture", type=Path, help="items per query (JSON lines: query, items)")
    parser.add_argument("--from-run", type=Path, default=None, help="write the fixture from this census run")
    parser.add_argument(
        "--synthetic", type=int, default=0, help="write a synthetic fixture of this many queries"
    )
    parser.add_argument("--img", type=Path, default=Path("docs/img"))
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=50)
    parser.add_argument("--t", default="1,3,9,19,49,99")
    args = parser.parse_args()
    if args.from_run is not None:
        from_run(args.from_run, args.fixture)
    elif args.synthetic:
        synthetic(args.fixture, args.synthetic)
    study(args.fixture, args.img, args.repeats, args.resamples, [float(x) for x in args.t.split(",")])


if __name__ == "__main__":
    main()
