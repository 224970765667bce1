"""Generated tokens/s through ``sample()`` (+ store) vs calling llama-cpp-python directly.

Both sides run the same registry model (default ``smollm2-135m-instruct``; ``make test`` installs it),
the same prompts, the same per-sample seeds (:func:`knowsum.models.derive_seed`), the same sampling
values (KnowSum's temperature 1 with top-p/top-k/min-p off) and ``reset()`` before every call, so they
generate identical texts; the benchmark checks that. Rounds alternate; medians are reported.
Target ratio ≥ 0.95.

The local backend runs llama-cpp-python in one dedicated worker thread; the direct baseline runs in
that same thread (like with like); ``--main-thread`` adds direct calls from the main thread.
(llama.cpp keeps a team of CPU threads per calling thread; when calls alternate between threads, the
idle team spins and generation slowed several-fold on the 2-core test machine.)
Rates per second of process CPU time (all threads) are printed too: on a busy shared machine they are
steadier than wall-clock rates.

    .venv/bin/python bench/bench_models_local.py [--model smollm2-135m-instruct] [--samples 24] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from knowsum.models import (
    PAPER_PARAMS,
    GenerationParams,
    Request,
    ResponseStore,
    installed_path,
    make_requests,
    model_spec,
    open_backend,
    sample_sync,
)
from knowsum.models._local import LocalBackend, load_llama

# the overhead over direct llama-cpp-python calls is measured on the sequential path (identical texts);
# batched decoding has its own bench (bench_models_batched.py)
os.environ.setdefault("KNOWSUM_BATCH", "1")

PROMPTS = ["Name one human disease.", "List three human genes.", "What is a GO biological process?"]
Result = tuple[float, float, list[str]]
"""(tokens per wall-clock second, tokens per process-CPU second, texts)."""


def direct(llm: Any, requests: list[Request]) -> Result:
    """Plain llama-cpp-python calls, exactly as the local backend makes them."""
    texts, tokens = [], 0
    start, cpu = time.perf_counter(), time.process_time()
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
        texts.append(out["choices"][0]["message"]["content"])
        tokens += out["usage"]["completion_tokens"]
    return tokens / (time.perf_counter() - start), tokens / (time.process_time() - cpu), texts


def in_thread(pool: ThreadPoolExecutor, fn: Callable[..., Result], *args: Any) -> Result:
    """Run ``fn(*args)`` in the single worker thread of ``pool`` and return its result."""
    return pool.submit(fn, *args).result()


def through_sample(backend: LocalBackend, requests: list[Request], db: Path) -> Result:
    """The same requests through sample() with a fresh store."""
    with ResponseStore(db) as store:
        start, cpu = time.perf_counter(), time.process_time()
        got = sample_sync(backend, requests, store=store, progress=False)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert store.count() == len(requests)
    tokens = sum(r.completion_tokens for r in got)
    return tokens / wall, tokens / cpu, [r.text for r in got]


def _row(label: str, results: list[Result], j: int) -> float:
    values = [float(r[j]) for r in results]  # type: ignore[arg-type]  # j is 0 or 1: the two rates
    med = statistics.median(values)
    print(f"  {label:<30} {med:7.1f}  (rounds: {', '.join(f'{v:.1f}' for v in values)})")
    return med


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--samples", type=int, default=24, help="samples per round (spread over 3 prompts)")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--main-thread", action="store_true", help="also time direct calls from the main thread")
    args = ap.parse_args()
    params = GenerationParams(**{**PAPER_PARAMS.as_dict(), "max_tokens": args.max_tokens, "stop": ()})
    backend = open_backend(args.model)
    assert isinstance(backend, LocalBackend)
    llm = load_llama(installed_path(args.model), n_ctx=model_spec(args.model).n_ctx)
    per_prompt = max(1, args.samples // len(PROMPTS))
    runs: dict[str, list[Result]] = {"main": [], "thread": [], "sample": []}
    order = ["thread", "sample", *(["main"] if args.main_thread else [])]
    with tempfile.TemporaryDirectory() as tmp:
        warm = make_requests(PROMPTS, params, n=1, start=10**6)
        through_sample(backend, warm, Path(tmp) / "warm.sqlite")
        pool = backend._executor  # the very thread sample() uses: one llama.cpp thread team for both
        in_thread(pool, direct, llm, warm)
        for i in range(args.rounds):
            reqs = make_requests(PROMPTS, params, n=per_prompt, start=i * per_prompt)
            for name in order if i % 2 == 0 else order[::-1]:
                if name == "sample":
                    runs[name].append(through_sample(backend, reqs, Path(tmp) / f"r{i}.sqlite"))
                else:
                    runs[name].append(
                        in_thread(pool, direct, llm, reqs) if name == "thread" else direct(llm, reqs)
                    )
            assert len({tuple(runs[name][-1][2]) for name in order}) == 1, "texts differ"
    asyncio.run(backend.aclose())
    print(f"model {args.model}, {per_prompt * len(PROMPTS)} samples/round, max_tokens {args.max_tokens}")
    for j, unit in ((0, "tokens/s (wall clock)"), (1, "tokens per process-CPU s")):
        print(f"{unit}:")
        if args.main_thread:
            _row("direct, main thread", runs["main"], j)
        d = _row("direct, worker thread", runs["thread"], j)
        s = _row("sample() + store", runs["sample"], j)
        verdict = "PASS" if s / d >= 0.95 else "FAIL"
        print(f"  {'ratio':<30} {s / d:7.3f}  target >= 0.95 -> {verdict}")


if __name__ == "__main__":
    main()
