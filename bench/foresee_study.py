"""Regenerate docs/foresee.md's back-test table and figures from a committed items-per-query fixture.

For each counting mode (``mention``: every valid mention, KnowSum App. B.3; ``incidence``: an item
at most once per response), the fixture is scored as a census (``knowsum census score``) and
back-tested (``knowsum census backtest``) with every seed of ``--seeds`` in a temporary folder; the
script prints one Markdown table per mode — every cell the mean over the seeds ± its Monte Carlo
standard error, the noise floor ``1/sqrt(mean U)`` beside the relative RMSE, the error relative to
N_tot, the coverage of the confidence (CI) and prediction (PI) interval and their interval scores —
then the size curve, the trust horizon, how often each horizon comes out over ``--stability`` seeds,
and KnowSum's own validation (§5.1, Fig. 7: r_obs = 1/2, 1/3, 1/4; the normalised MSE of Fig. 9),
and copies each figure to ``--img``.

``--from-run RUN_DIR`` first writes the fixture from a census run: one line per query asked, the
cluster keys of its valid items, every mention (so ``--count mention`` and ``--count incidence``
both rebuild the run's histograms). ``--synthetic Q`` writes a synthetic fixture instead (Q queries
of 12 items drawn with probability ∝ 1/rank^1.1 from 2,000 items, seed 3) and studies that: a
stand-in until a real census is at hand.

Usage::

    .venv/bin/python bench/foresee_study.py tests/fixtures/census/study/theorems-135m.jsonl \\
        [--img docs/img] [--repeats 100] [--n-bootstrap 50] [--t 1,3,9,19,49,99] [--seeds 0,1,2,3,4]
        [--count mention,incidence] [--stability 30]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

from knowsum.census import backtest_census, run_prevalence, trust_horizon
from knowsum.census._estimate import heldout_check
from knowsum.census.backtest_page import share_text, size_curve_lines
from knowsum.census.backtest_record import Backtest, BacktestRow
from knowsum.cli import main as knowsum
from knowsum.report import markdown_table
from knowsum.stats import Prevalence, StatsWarning, select_k
from knowsum.stats import foresee as fs


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


def _cell(rows: list[BacktestRow], attr: str, se_attr: str | None) -> tuple[float, float] | None:
    """Mean of ``attr`` over the seeds' rows and its Monte Carlo s.e. (``sqrt(mean(se²)/n)``)."""
    vals = [getattr(r, attr) for r in rows]
    if not vals or any(v is None for v in vals):
        return None
    ses = [getattr(r, se_attr) or 0.0 for r in rows] if se_attr else [0.0]
    return float(np.mean(vals)), float(np.sqrt(np.mean(np.square(ses)) / len(rows)))


NO_ESTIMATE = ("preseq", "pitman-yor")
"""Predictors whose missing value means "no estimate on some splits" (no stable rational function, no
fit), not a diverging series: the cell says so with the share, as ``census backtest`` does."""


def _fmt(cell: tuple[float, float] | None, sign: bool = False, missing: str = "n/a: diverged") -> str:
    if cell is None:
        return missing
    v, se = cell
    if abs(v) >= 10:
        return f"{100 * v:.2g}%"
    text = f"{v:+.0%}" if sign else f"{v:.0%}"
    if text == "-0%":  # what rounds to zero has no sign to show: +0% (signed) or 0%, never -0%
        text = "+0%" if sign else "0%"
    return f"{text} ± {se:.0%}"


def _seed_rows(bts: list[Backtest]) -> dict[tuple[str, float], list[BacktestRow]]:
    by: dict[tuple[str, float], list[BacktestRow]] = {}
    for bt in bts:
        for r in bt.rows:
            by.setdefault((r.estimator, r.t), []).append(r)
    return by


def _table(bts: list[Backtest]) -> str:
    """One row per (t, estimator), every cell the mean over seeds ± its Monte Carlo s.e."""
    body = []
    for (name, t), rows in sorted(
        _seed_rows(bts).items(), key=lambda kv: (kv[0][1], bts[0].estimators.index(kv[0][0]))
    ):
        bias = _cell(rows, "relative_bias", None)
        if bias is not None:
            bias = (
                bias[0],
                float(np.sqrt(np.mean([((r.bias_se or 0) / r.observed) ** 2 for r in rows]) / len(rows))),
            )
        obs = float(np.mean([r.observed for r in rows]))
        na = float(np.mean([r.pi_no_interval or 0.0 for r in rows]))
        missing = (
            f"n/a: no estimate on {share_text(float(np.mean([r.diverged for r in rows])))} of splits"
            if name in NO_ESTIMATE
            else "n/a: diverged"
        )
        body.append(
            [
                f"{t:g} ({rows[0].t_effective:.3g})",
                f"`{name}`",
                f"{obs:,.1f}",
                _fmt(bias, sign=True, missing=missing),
                _fmt(_cell(rows, "relative_rmse", "relative_rmse_se"), missing=missing),
                f"{1 / np.sqrt(obs):.0%}" if obs > 0 else "n/a",
                _fmt(_cell(rows, "relative_rmse_total", None), missing=missing).split(" ±")[0],
                _fmt(_cell(rows, "coverage", "coverage_se")),
                _fmt(_cell(rows, "pi_coverage", "pi_coverage_se"))
                + (f" ({share_text(na)} n/a)" if na else ""),
                " / ".join(
                    "n/a" if c is None else f"{c[0]:,.3g}"
                    for c in (_cell(rows, "ci_score", None), _cell(rows, "pi_score", None))
                ),
            ]
        )
    headers = [
        "t (reached)",
        "estimator",
        "observed U",
        "rel. bias",
        "rel. RMSE",
        "floor",
        "RMSE/N_tot",
        "CI cover",
        "PI cover",
        "CI / PI score",
    ]
    return markdown_table(headers, body)


def stability(prev: Prevalence, k: int, t: float, seeds: int) -> Counter[str]:
    """How often each horizon comes out over ``seeds`` seeds of the same census."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        return Counter(
            h.status if h.t is None else f"t = {h.t:g}"
            for h in (trust_horizon(prev, "et", k, t, seed=s) for s in range(seeds))
        )


def knowsum_protocol(prev: Prevalence, k: int) -> str:
    """KnowSum §5.1 / Fig. 7: r_obs = 1/2, 1/3, 1/4, 100 shuffles; mean estimated vs actual new items
    (± sd over the shuffles) at the largest t of each split, and the normalised MSE of select_k."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        points = heldout_check(prev, "et", k, seed=0)
        sel = select_k(prev, fs.SGT_KS, n_shuffles=100, seed=0)
    last = {}
    for p in points:
        if p.r_obs not in last or p.t > last[p.r_obs].t:
            last[p.r_obs] = p
    body = [
        [
            f"1/{round(1 / r)}",
            f"{p.t:.3g}",
            f"{p.estimated:.1f} ± {p.estimated_sd:.1f}",
            f"{p.actual:.1f} ± {p.actual_sd:.1f}",
            f"{p.estimated / p.actual - 1:+.0%}" if p.actual else "n/a",
        ]
        for r, p in sorted(last.items(), reverse=True)
    ]
    table = markdown_table(["r_obs", "t", f"estimated (sgt-k{k})", "actual", "bias"], body)
    nmse = ", ".join(
        f"k = {kk}: " + " / ".join(f"{row[j]:.3f}" for row in sel.nmse_by_fraction)
        for j, kk in enumerate(sel.candidates)
    )
    return (
        f"{table}\n\nnormalised MSE (r_obs = 1/2 / 1/3 / 1/4; KnowSum Fig. 9): {nmse}; selected k = {sel.k}"
    )


def study(
    fixture: Path,
    img: Path,
    repeats: int,
    resamples: int,
    ts: list[float],
    seeds: list[int],
    counts: list[str],
    stable: int,
    estimators: list[str] | None = None,
) -> None:
    """Score, back-test (every seed) and print one table per counting mode, then the horizon's
    stability, the size curve and KnowSum's own protocol."""
    img.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for count in counts:
            run = Path(tmp) / f"run-{count}"
            with contextlib.redirect_stdout(io.StringIO()):
                code = knowsum(["census", "score", str(fixture), "--out", str(run), "--count", count])
            if code != 0:
                raise SystemExit(f"census score failed on {fixture} ({count})")
            start = time.perf_counter()
            bts = []
            for seed in seeds:
                done = backtest_census(
                    run,
                    Path(tmp) / f"bt-{count}-{seed}",
                    ts,
                    repeats,
                    resamples,
                    seed=seed,
                    estimators=estimators,
                )
                bts.append(done.record)
            bt = bts[0]
            target = img / f"foresee-{fixture.stem}-{count}.png"
            shutil.copyfile(Path(tmp) / f"bt-{count}-{seeds[0]}" / "plots" / "backtest.png", target)
            print(f"\n### {count} counting: {bt.n_queries} queries, N_seen = {bt.n_seen}")
            print(
                f"({repeats} splits per t and seed, seeds {seeds[0]}–{seeds[-1]}, "
                f"{resamples} resamples each; "
                f"{time.perf_counter() - start:.0f} s)\n"
            )
            print(_table(bts))
            for s in bt.skipped:
                print(f"\nt = {s.t:g}: not checked ({s.reason})")
            print("\n" + "\n".join(size_curve_lines(bt)))
            result, prev = run_prevalence(run)
            k = result.k or 6
            counter = stability(prev, k, result.t, stable)
            print(f"\ntrust horizon ({bt.horizon.estimator}), seed {seeds[0]}: {bt.horizon.message}")
            print(f"horizon over {stable} seeds: " + ", ".join(f"{h}: {n}" for h, n in counter.most_common()))
            print("\nKnowSum's own validation (§5.1, Fig. 7):\n")
            print(knowsum_protocol(prev, k))
            print(f"figure: {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("fixture", type=Path, help="items per query (JSON lines: query, items)")
    parser.add_argument("--from-run", type=Path, default=None, help="write the fixture from this census run")
    parser.add_argument(
        "--synthetic", type=int, default=0, help="write a synthetic fixture of this many queries"
    )
    parser.add_argument("--img", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "img")
    parser.add_argument("--repeats", type=int, default=100)
    parser.add_argument("--n-bootstrap", "--resamples", dest="resamples", type=int, default=50)
    parser.add_argument("--t", default="1,3,9,19,49,99")
    parser.add_argument("--seeds", default="0,1,2,3,4", help="back-test seeds (cells are averaged)")
    parser.add_argument("--count", default="mention,incidence", help="counting modes")
    parser.add_argument("--stability", type=int, default=30, help="seeds of the horizon stability count")
    parser.add_argument("--estimator", default="", help="comma-separated predictors (default: every one)")
    args = parser.parse_args()
    if args.from_run is not None:
        from_run(args.from_run, args.fixture)
    elif args.synthetic:
        synthetic(args.fixture, args.synthetic)
    study(
        args.fixture,
        args.img,
        args.repeats,
        args.resamples,
        [float(x) for x in args.t.split(",")],
        [int(x) for x in args.seeds.split(",")],
        args.count.split(","),
        args.stability,
        [e for e in args.estimator.split(",") if e] or None,
    )


if __name__ == "__main__":
    main()
