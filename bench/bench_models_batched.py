"""Batched decoding, measured in tokens/s: sample() at n_parallel 1, 2, 4, 8 vs llama.cpp's own ceiling.

Every path runs the same model on the census request (diseases prompt, KnowSum's sampling values,
per-sample seeds) at a *fixed generation length* (``--max-tokens``, default 128: the census answer is
longer, so nearly every sample runs to the budget; the tokens actually generated are counted, so a
sample that ends early never inflates a rate). Reported per path: tokens/s (median and min–max over
rounds), samples/s at that length, and the ratio to the sequential path's median.

The ceiling: llama.cpp's batched throughput through its low-level API (``llama_decode`` of N rows per
step after one shared prompt prefill, greedy argmax, no knowsum code) — what this machine can give for
N sequences at all. Each path runs in a fresh process of its own (llama.cpp thread teams of idle
contexts in one process spin and slow the busy one), rounds alternate their order, and the load
average is printed: the machine is shared, so compare ratios within a run, not absolute rates.

    .venv/bin/python bench/bench_models_batched.py [--model smollm2-135m-instruct] [--samples 8]
        [--max-tokens 128] [--sizes 1,2,4,8] [--rounds 3] [--no-ceiling]

(the defaults shown). The Qwen figures of docs/performance.md and the README were measured with::

    .venv/bin/python bench/bench_models_batched.py --model qwen2.5-coder-1.5b-instruct --samples 8 \\
        --max-tokens 96 --rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from knowsum.census._config import CensusConfig
from knowsum.census._tasks import resolve_task
from knowsum.models import PAPER_PARAMS, GenerationParams, Request, make_requests, open_backend, sample_sync
from knowsum.models._local import LocalBackend
from knowsum.models._tokens import llama_prompt_tokens


def through(backend: LocalBackend, requests: list[Request]) -> tuple[int, float]:
    """The requests through ``sample()`` (no store); ``(completion tokens, seconds)``."""
    start = time.perf_counter()
    got = sample_sync(backend, requests, progress=False)
    return sum(r.completion_tokens for r in got), time.perf_counter() - start


def ceiling(llm: Any, prompt: list[int], n: int, length: int) -> tuple[int, float]:
    """llama.cpp alone: prefill ``prompt`` once, copy it to ``n`` sequences, decode ``length`` steps of
    ``n`` rows with greedy argmax; ``(tokens, seconds)`` of the decoding steps."""
    import llama_cpp as lc
    import numpy as np

    params = lc.llama_context_params.from_buffer_copy(llm.context_params)
    params.n_seq_max, params.kv_unified = n, False
    params.n_ctx = (len(prompt) + length + 16) * n
    ctx = lc.llama_init_from_model(llm._model.model, params)
    mem, vocab = lc.llama_get_memory(ctx), llm._model.vocab
    nv = lc.llama_vocab_n_tokens(vocab)
    batch = lc.llama_batch_init(max(len(prompt), n), 0, 1)

    def decode(rows: list[tuple[int, int, int]]) -> None:
        for k, (tok, pos, seq) in enumerate(rows):
            batch.token[k], batch.pos[k], batch.n_seq_id[k] = tok, pos, 1
            batch.seq_id[k][0], batch.logits[k] = seq, True
        batch.n_tokens = len(rows)
        assert lc.llama_decode(ctx, batch) == 0

    try:
        decode([(t, i, 0) for i, t in enumerate(prompt[:-1])])
        for s in range(1, n):
            lc.llama_memory_seq_cp(mem, 0, s, -1, -1)
        toks, pos = [prompt[-1]] * n, len(prompt) - 1
        start = time.perf_counter()
        for _ in range(length):
            decode([(toks[s], pos, s) for s in range(n)])
            toks = [
                int(np.argmax(np.ctypeslib.as_array(lc.llama_get_logits_ith(ctx, s), shape=(nv,))))
                for s in range(n)
            ]
            pos += 1
        return n * length, time.perf_counter() - start
    finally:
        lc.llama_batch_free(batch)
        lc.llama_free(ctx)


def _one(args: argparse.Namespace) -> None:
    """Child process: warm one path up, time it on round ``args.round``'s requests, print JSON."""
    task = resolve_task(CensusConfig(task="diseases", answers=args.answers))
    params = GenerationParams(**{**PAPER_PARAMS.as_dict(), "max_tokens": args.max_tokens})
    kind, n = args.one.split(":")
    b = open_backend(args.model, n_parallel=int(n) if kind == "sample" else 1)
    assert isinstance(b, LocalBackend)
    warm = make_requests(
        [task.prompt], GenerationParams(**{**params.as_dict(), "max_tokens": 8}), n=2, start=10**6
    )
    reqs = make_requests([task.prompt], params, n=args.samples, start=args.round * args.samples)
    if kind == "ceiling":
        prompt = b._executor.submit(
            lambda: llama_prompt_tokens(b.llm, reqs[0].chat_messages(), None, [])[0]
        ).result()
        b._executor.submit(ceiling, b.llm, prompt, int(n), 4).result()
        tokens, secs = b._executor.submit(ceiling, b.llm, prompt, int(n), args.max_tokens).result()
    else:
        through(b, warm)
        tokens, secs = through(b, reqs)
    asyncio.run(b.aclose())
    print(json.dumps({"tokens": tokens, "seconds": secs}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--samples", type=int, default=8, help="samples per path and round (sample() paths)")
    ap.add_argument("--answers", type=int, default=20, help="the census prompt's n (the demo asks 20)")
    ap.add_argument("--max-tokens", type=int, default=128, help="the fixed generation length")
    ap.add_argument("--sizes", default="1,2,4,8")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-ceiling", action="store_true", help="only the sample() paths")
    ap.add_argument("--one", help=argparse.SUPPRESS)  # child: 'sample:N' or 'ceiling:N'
    ap.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        _one(args)
        return
    sizes = args.sizes.split(",")
    paths = [f"sample:{n}" for n in sizes] + ([] if args.no_ceiling else [f"ceiling:{n}" for n in sizes])
    print(
        f"model {args.model}, census diseases prompt (n={args.answers}), {args.samples} samples/path/round, "
        f"fixed length {args.max_tokens} tokens, {args.rounds} alternating rounds, one process per path"
    )
    print(f"load average before: {os.getloadavg()}")
    rates: dict[str, list[float]] = {}
    for i in range(args.rounds):
        for path in paths if i % 2 == 0 else list(reversed(paths)):
            cmd = [sys.executable, __file__, "--one", path, "--round", str(i), "--model", args.model]
            cmd += ["--samples", str(args.samples), "--answers", str(args.answers)]
            cmd += ["--max-tokens", str(args.max_tokens)]
            done = subprocess.run(cmd, check=True, capture_output=True, text=True)
            out = json.loads(done.stdout.splitlines()[-1])
            rates.setdefault(path, []).append(out["tokens"] / out["seconds"])
            print(
                f"  round {i + 1} {path:<11} {rates[path][-1]:8.1f} tokens/s, load {os.getloadavg()[0]:.2f}"
            )
    base = statistics.median(rates["sample:1"])
    print(f"{'path':<34} {'tokens/s median':>15} {'min-max':>15} {'samples/s':>10} {'vs N=1':>7}")
    for path, rs in rates.items():
        kind, n = path.split(":")
        name = f"sample(), n_parallel {n}" if kind == "sample" else f"llama.cpp ceiling, {n} sequences"
        med = statistics.median(rs)
        spread = f"{min(rs):.1f}-{max(rs):.1f}"
        print(f"{name:<34} {med:15.1f} {spread:>15} {med / args.max_tokens:10.3f} {med / base:6.2f}x")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
