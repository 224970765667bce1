"""Regenerate docs/foresee.md's back-test table and figures from a committed items-per-query fixture.

For each counting mode (``mention``: every valid mention, KnowSum App. B.3; ``incidence``: an item
at most once per response), the fixture is scored as a census (``knowsum census score``) and
back-tested (``knowsum census backtest``) in a temporary folder; the script prints one Markdown
table per mode (relative bias, relative RMSE and interval coverage of every estimator at every
``t``), the trust horizon, and copies each figure to ``--img``.

Usage::

    .venv/bin/python bench/foresee_study.py tests/fixtures/census/study/theorems-135m.jsonl \\
        [--img docs/img] [--repeats 100] [--resamples 50] [--t 1,3,9,19,49,99]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import shutil
import tempfile
import time
from pathlib import Path

from knowsum.census import backtest_census
from knowsum.cli import main as knowsum
from knowsum.report._tables import markdown_table


def _pct(x: float | None, sign: bool = True) -> str:
    if x is None:
        return "diverges"
    return f"{100 * x:.2g}%" if abs(x) >= 10 else f"{x:+.0%}" if sign else f"{x:.0%}"


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
            for s in bt.skipped:
                print(f"\nt = {s.t:g}: not checked ({s.reason})")
            print(f"\ntrust horizon ({bt.horizon.estimator}): {bt.horizon.message}")
            print(f"figure: {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fixture", type=Path)
    parser.add_argument("--img", type=Path, default=Path("docs/img"))
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--resamples", type=int, default=50)
    parser.add_argument("--t", default="1,3,9,19,49,99")
    args = parser.parse_args()
    study(args.fixture, args.img, args.repeats, args.resamples, [float(x) for x in args.t.split(",")])


if __name__ == "__main__":
    main()
