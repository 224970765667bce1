"""Benchmark genebench: building, scoring, and a local-model run against raw generation.

Part 1 — build: every question the registry data allows over all 77,614 genes (KBs ``genes`` and
``go``): questions per task and seconds (target < 60 s on 2 cores), plus the time to write the JSONL.

Part 2 — scoring: ``--instances`` answered instances (default 10⁵) drawn from the built questions —
choice questions in every rotation with a random letter, a chatty reply or garbage; GO questions with
a mix of gold descriptions, random real GO term names and invented ones — scored with
:func:`score_instances` (CAFA closure included) and aggregated with :func:`summarize`
(target < 10 s).

Part 3 — local model (``--model``, default smollm2-135m-instruct): the same requests are generated
once directly through the backend (no store, no scoring) and once by ``run_genebench`` with a fresh
store, writing its run directory (plots and report included); the ratio of the wall times is
genebench's speed relative to the model's own generation speed (target ≥ 0.95); the two alternate
for ``--rounds`` rounds and the best time of each is compared. Skip with ``--no-model``.

``--baseline REV`` runs parts 1 and 2 also on the source of git revision ``REV`` (extracted with
``git archive`` into a temporary folder), each side in its own process, alternating for ``--rounds``
rounds, and reports the best time of each side and their ratio — a figure measured at whatever load
the machine has, against the named baseline at the same load.

Usage::

    .venv/bin/python bench/bench_genebench.py [--instances 100000] [--model NAME] [--model-questions 24]
    .venv/bin/python bench/bench_genebench.py --no-model --baseline dc40c05 --rounds 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from knowsum.genebench import (
    BuildInputs,
    GenebenchConfig,
    GoMapper,
    Instance,
    Question,
    build_questions,
    instances_of,
    messages,
    run_genebench,
    score_instances,
    summarize,
    write_questions,
)
from knowsum.kb import load_genes, load_ontology

# the overhead over direct llama-cpp-python calls is measured on the sequential path (identical texts);
# batched decoding has its own bench (bench_models_batched.py)
os.environ.setdefault("KNOWSUM_BATCH", "1")


_TIMES: dict[str, float] = {}


def bench_build() -> list[Question]:
    t0 = time.perf_counter()
    store = load_genes()
    records = store.records()
    go = load_ontology("go")
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    questions, report = build_questions(BuildInputs(records, go), seed=0)
    build = time.perf_counter() - t0
    store.close()
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        write_questions(Path(tmp) / "q.jsonl", questions)
        write = time.perf_counter() - t0
    print(f"loaded {len(records):,} gene records + GO in {load:.2f} s")
    for task, counts in report.counts.items():
        print(f"  {task:<5} {sum(counts.values()):>7,}  {counts}")
    for task, why in report.skipped.items():
        print(f"  {task}: not built — {why}")
    print(
        f"build: {len(questions):,} questions in {build:.2f} s (target < 60 s); "
        f"load + build {load + build:.2f} s"
    )
    print(f"  (writing the JSONL: {write:.2f} s, not counted)")
    _TIMES["build"] = build
    return questions


def _reply(q: Question, rot: int | None, rng: random.Random, go_names: list[str]) -> str:
    if q.options:
        roll = rng.random()
        letter = chr(65 + rng.randrange(len(q.options)))
        if q.question_type == "multiple_choice":
            return ", ".join(sorted({letter, chr(65 + rng.randrange(len(q.options)))}))
        if roll < 0.8:
            return letter
        return f"The correct answer is {letter}." if roll < 0.95 else "I do not know."
    if q.question_type == "go_annotation":
        gold = [a.go for a in q.answer]  # type: ignore[union-attr]
        items = rng.sample(gold, min(len(gold), rng.randint(0, 5)))
        items += [f"involved in {rng.choice(go_names)}" for _ in range(rng.randint(0, 3))]
        items += ["enables invented flux binding"] * rng.randint(0, 1)
        return json.dumps([{"go": g, "evidence": "IEA"} for g in items])
    return ""


def bench_score(questions: list[Question], n: int) -> None:
    go = load_ontology("go")
    names = [go[t].name for t in list(go)[:5000] if not go[t].obsolete]
    rng = random.Random(0)
    pairs = instances_of(questions, "cyclic")
    sample = [pairs[i] for i in sorted(rng.sample(range(len(pairs)), min(n, len(pairs))))]
    insts = [Instance(q, r, _reply(q, r, rng, names)) for q, r in sample]
    kinds = Counter(q.question_type for q, _ in sample)
    t0 = time.perf_counter()
    mapper = GoMapper(go)
    t_map = time.perf_counter() - t0
    t0 = time.perf_counter()
    records = score_instances(insts, mapper, None)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    scores = summarize(records, n_perm=2000)
    t_sum = time.perf_counter() - t0
    total = t_map + t_score + t_sum
    print(f"scoring {len(insts):,} instances {dict(kinds)}")
    print(f"  GO dictionary {t_map:.2f} s, score {t_score:.2f} s, summarize {t_sum:.2f} s")
    print(f"scoring total: {total:.2f} s (target < 10 s); overall {scores.overall:.4f}")
    _TIMES["score"] = total


def bench_model(model: str, n_questions: int, rounds: int) -> None:
    from knowsum.models import GenerationParams, Request, open_backend, sample_sync

    store = load_genes()
    records = store.records()
    store.close()
    tasks = ["Q1", "Q2-A", "Q2-B", "Q3-A", "Q3-B", "Q4"]
    questions, _ = build_questions(BuildInputs(records), tasks, per_type=max(1, n_questions // 11), seed=5)
    config = GenebenchConfig(seed=5)
    pairs = instances_of(questions, "cyclic")
    requests = [
        Request(
            messages=messages(q, r or 0),
            params=GenerationParams(temperature=0.0, max_tokens=config.tokens(q.question_type), seed=5),
        )
        for q, r in pairs
    ]
    backend = open_backend(model)
    raws: list[float] = []
    runs: list[float] = []
    try:
        sample_sync(
            backend, [Request(prompt="Say hi.", params=GenerationParams(max_tokens=4))], progress=False
        )
        from knowsum.models import ResponseStore

        for _ in range(rounds):  # alternate the two, so a change of machine load hits both alike
            t0 = time.perf_counter()
            raw = sample_sync(backend, requests, progress=False)
            raws.append(time.perf_counter() - t0)
            with tempfile.TemporaryDirectory() as tmp, ResponseStore(Path(tmp) / "s.sqlite") as st:
                t0 = time.perf_counter()
                run = run_genebench(
                    config, backend, store=st, questions=questions, progress=False, out=Path(tmp) / "run"
                )
                runs.append(time.perf_counter() - t0)
                result = run.record
    finally:
        asyncio.run(backend.aclose())
    t_raw, t_run = min(raws), min(runs)
    tokens = sum(r.completion_tokens for r in raw)
    print(f"model {model}: {len(questions)} questions, {len(requests)} instances, {tokens} tokens")
    print(f"  best of {rounds} alternating rounds; load {os.getloadavg()[0]:.2f}")
    print(f"  generation alone: {t_raw:.1f} s ({len(requests) / t_raw:.2f} instances/s)")
    print(
        f"  genebench run (store, validation, scoring, summary, run directory with plots and page): "
        f"{t_run:.1f} s; "
        f"overall {result.scores.overall}"
    )
    print(f"  genebench speed / generation speed: {t_raw / t_run:.3f} (target ≥ 0.95)")


def _side(src: Path | None, n: int) -> dict[str, float]:
    """Parts 1-2 in a fresh process on ``src`` (a folder holding ``knowsum``; None: this checkout)."""
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    cmd = [sys.executable, __file__, "--no-model", "--instances", str(n), "--times-json"]
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    times: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return times


def bench_baseline(rev: str, n: int, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(__file__).resolve().parents[1]  # the checkout, wherever the script is run from
        git = ["git", "archive", rev, "src"]
        archive = subprocess.run(git, cwd=root, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        sides: dict[str, list[dict[str, float]]] = {"this": [], rev: []}
        loads = []
        for _ in range(rounds):  # alternate, so a change of machine load hits both alike
            sides["this"].append(_side(None, n))
            sides[rev].append(_side(Path(tmp) / "src", n))
            loads.append(os.getloadavg()[0])
    print(
        f"side by side with {rev}, best of {rounds} alternating rounds, "
        f"load {min(loads):.1f}–{max(loads):.1f}"
    )
    for part in ("build", "score"):
        new, old = (min(t[part] for t in sides[k]) for k in ("this", rev))
        print(f"  {part}: this {new:.2f} s, {rev} {old:.2f} s, ratio {new / old:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", type=int, default=100_000)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--model-questions", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=2, help="Alternating rounds of raw generation and run.")
    ap.add_argument("--no-model", action="store_true")
    ap.add_argument("--baseline", metavar="REV", help="Also time parts 1-2 on git revision REV.")
    ap.add_argument("--times-json", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.baseline:
        bench_baseline(args.baseline, args.instances, args.rounds)
        return
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    questions = bench_build()
    bench_score(questions, args.instances)
    if args.times_json:
        print(json.dumps(_TIMES))
        return
    if not args.no_model:
        bench_model(args.model, args.model_questions, args.rounds)


if __name__ == "__main__":
    main()
