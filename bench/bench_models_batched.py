"""Census samples/s and tokens/s: batched decoding (n_parallel 2, 4, 8) vs sequential vs direct calls.

All sides run the same model, the same census-style prompt, the same per-sample seeds and KnowSum's
sampling values; each path runs in a fresh process of its own (llama.cpp thread teams of idle
backends in one process spin and slow the busy one), rounds alternate, and the load average is
printed (the machine is shared: compare ratios, not absolute rates). Batched texts differ from the
sequential ones (other matrix kernels), so texts are not compared here; ``tests/models/test_batched.py``
checks that a batched sample does not depend on its batch companions.

    .venv/bin/python bench/bench_models_batched.py [--model smollm2-135m-instruct] [--samples 16]
        [--answers 20] [--max-tokens N] [--sizes 2,4,8] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import time
from typing import Any

from knowsum.census._config import CensusConfig
from knowsum.census._tasks import resolve_task
from knowsum.models import PAPER_PARAMS, GenerationParams, Request, make_requests, open_backend, sample_sync
from knowsum.models._local import LocalBackend


def direct(llm: Any, requests: list[Request]) -> tuple[int, float]:
    """Plain sequential llama-cpp-python calls; ``(completion tokens, seconds)``."""
    tokens, start = 0, time.perf_counter()
    for r in requests:
        p = r.params
        llm.reset()
        out = llm.create_chat_completion(
            messages=r.chat_messages(),
            temperature=p.temperature,
            top_p=p.top_p,
            top_k=p.top_k,
            min_p=p.min_p,
            max_tokens=p.max_tokens,
            stop=list(p.stop),
            seed=r.seed,
        )
        tokens += out["usage"]["completion_tokens"]
    return tokens, time.perf_counter() - start


def through(backend: LocalBackend, requests: list[Request]) -> tuple[int, float]:
    """The requests through ``sample()`` (no store); ``(completion tokens, seconds)``."""
    start = time.perf_counter()
    got = sample_sync(backend, requests, progress=False)
    return sum(r.completion_tokens for r in got), time.perf_counter() - start


def _one(args: argparse.Namespace) -> None:
    """Child process: warm one path up, time it on round ``args.round``'s requests, print JSON."""
    task = resolve_task(CensusConfig(task="diseases", answers=args.answers))
    params = GenerationParams(**{**PAPER_PARAMS.as_dict(), "max_tokens": args.max_tokens or task.max_tokens})
    n = 1 if args.one == "direct" else int(args.one)
    b = open_backend(args.model, n_parallel=n)
    assert isinstance(b, LocalBackend)
    warm = make_requests(
        [task.prompt], GenerationParams(**{**params.as_dict(), "max_tokens": 8}), n=2, start=10**6
    )
    reqs = make_requests([task.prompt], params, n=args.samples, start=args.round * args.samples)
    if args.one == "direct":  # load weights and touch the caches untimed, then time the plain calls
        b._executor.submit(direct, b.llm, warm).result()
        tokens, secs = b._executor.submit(direct, b.llm, reqs).result()
    else:
        through(b, warm)
        tokens, secs = through(b, reqs)
    asyncio.run(b.aclose())
    print(json.dumps({"tokens": tokens, "seconds": secs}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--answers", type=int, default=20, help="the census prompt's n (the demo asks 20)")
    ap.add_argument("--max-tokens", type=int, default=None, help="default: the census's own budget")
    ap.add_argument("--sizes", default="2,4,8")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # child: 'direct' or a batch size
    ap.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(args)
        return
    task = resolve_task(CensusConfig(task="diseases", answers=args.answers))
    max_tokens = args.max_tokens or task.max_tokens
    paths = ["direct", "1", *args.sizes.split(",")]
    print(
        f"model {args.model}, census diseases prompt (n={args.answers}), {args.samples} samples/round, "
        f"max_tokens {max_tokens}, {args.rounds} rounds (best round reported); each path in its own process"
    )
    print(f"load average before: {os.getloadavg()}")
    rates: dict[str, list[tuple[float, float]]] = {}
    for i in range(args.rounds):
        for path in paths if i % 2 == 0 else list(reversed(paths)):
            cmd = [sys.executable, __file__, "--one", path, "--round", str(i), "--model", args.model]
            cmd += ["--samples", str(args.samples), "--answers", str(args.answers)]
            cmd += ["--max-tokens", str(max_tokens)]
            out = json.loads(
                subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1]
            )
            name = "direct" if path == "direct" else f"sample(), n_parallel {path}"
            secs = out["seconds"]
            rates.setdefault(name, []).append((out["tokens"] / secs, args.samples / secs))
            print(
                f"  round {i + 1} {name:<26} {rates[name][-1][1]:.4f} samples/s, "
                f"load {os.getloadavg()[0]:.2f}"
            )
    base = max(r[1] for r in rates["sample(), n_parallel 1"])
    print(f"{'path':<28} {'tokens/s':>9} {'samples/s':>10} {'vs sequential':>14}")
    for name, rs in rates.items():
        tok, smp = max(r[0] for r in rs), max(r[1] for r in rs)
        print(f"{name:<28} {tok:9.1f} {smp:10.3f} {smp / base:13.2f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
