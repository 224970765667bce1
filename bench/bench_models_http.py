"""Requests/s through ``sample()`` + the response store vs a bare async httpx loop (same concurrency).

A loopback OpenAI-compatible server (:class:`knowsum.models.testing.LoopbackServer`, answering
instantly) runs in its own process. Both clients send the same number of chat requests with the same
concurrency over one keep-alive connection pool:

- *bare*: C worker coroutines that build the same JSON body from the prompt, ``httpx.AsyncClient.post``
  it and read the text from ``response.json()``;
- *knowsum*: ``sample(OpenAIBackend, requests, store=ResponseStore(fresh file))``: key hashing, seed
  derivation, body building, retries bookkeeping, and one SQLite transaction per response.

Rounds alternate (bare, knowsum, bare, …); the median of each is reported. Target ratio ≥ 0.95.
Against an instant server the client is CPU-bound, so the rate per second of *client CPU time*
(``time.process_time``) is printed too: on a shared, busy machine it is the stable figure, while
wall-clock rates swing with whatever else runs.

    .venv/bin/python bench/bench_models_http.py [--requests 4000] [--concurrency 16] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import socket
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from knowsum.models import GenerationParams, ResponseStore, make_requests, sample
from knowsum.models._openai import OpenAIBackend
from knowsum.models.testing import LoopbackServer

PARAMS = GenerationParams(seed=1, max_tokens=32)


def _serve(port: int) -> None:
    LoopbackServer(port=port).serve_forever()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _prompts(n: int, tag: str) -> list[str]:
    return [f"Name a human disease ({tag} {i})." for i in range(n)]


Rate = tuple[float, float]
"""(requests per wall-clock second, requests per second of client CPU time)."""


async def bare(base_url: str, n: int, concurrency: int, tag: str) -> Rate:
    seeds = [r.seed for r in make_requests(_prompts(n, tag), PARAMS)]  # the same seeds as knowsum sends
    jobs = zip(_prompts(n, tag), seeds, strict=True)
    url = f"{base_url}/chat/completions"
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    texts: list[str] = []
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:

        async def worker() -> None:
            for prompt, seed in jobs:
                body = {
                    "model": "bench",
                    "temperature": 1.0,
                    "top_p": 1.0,
                    "max_tokens": 32,
                    "top_k": -1,
                    "min_p": 0.0,
                    "messages": [{"role": "user", "content": prompt}],
                    "seed": seed,
                }
                resp = await client.post(url, json=body)
                texts.append(resp.json()["choices"][0]["message"]["content"])

        start, cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert len(texts) == n
    return n / elapsed, n / cpu


async def knowsum(base_url: str, n: int, concurrency: int, tag: str, db: Path) -> Rate:
    backend = OpenAIBackend("bench", base_url, concurrency=concurrency, timeout=60)
    requests = make_requests(_prompts(n, tag), PARAMS)
    with ResponseStore(db) as store:
        start, cpu = time.perf_counter(), time.process_time()
        got = [r async for r in sample(backend, requests, store=store, progress=False)]
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        assert len(got) == n and store.count() == n and all(r.ok for r in got)
    await backend.aclose()
    return n / elapsed, n / cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=4000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    port = _free_port()
    server = mp.get_context("spawn").Process(target=_serve, args=(port,), daemon=True)
    server.start()
    base_url = f"http://127.0.0.1:{port}/v1"
    for _ in range(100):
        try:
            httpx.post(f"{base_url}/chat/completions", json={"messages": [{"content": "up?"}]}, timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.05)
    rates: dict[str, list[Rate]] = {"bare": [], "knowsum": []}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(bare(base_url, 200, args.concurrency, "warmup"))
            for i in range(args.rounds):
                rates["bare"].append(asyncio.run(bare(base_url, args.requests, args.concurrency, f"b{i}")))
                db = Path(tmp) / f"round{i}.sqlite"
                rates["knowsum"].append(
                    asyncio.run(knowsum(base_url, args.requests, args.concurrency, f"k{i}", db))
                )
    finally:
        server.terminate()
        server.join()
    print(f"requests per round: {args.requests}, concurrency {args.concurrency}, rounds {args.rounds}")
    for j, label in ((0, "req/s (wall clock)"), (1, "req per client-CPU s")):
        b = statistics.median(r[j] for r in rates["bare"])
        k = statistics.median(r[j] for r in rates["knowsum"])
        print(f"{label}:")
        print(f"  bare httpx loop:   {b:8.0f}  (rounds: {', '.join(f'{r[j]:.0f}' for r in rates['bare'])})")
        print(
            f"  sample() + store:  {k:8.0f}  (rounds: {', '.join(f'{r[j]:.0f}' for r in rates['knowsum'])})"
        )
        print(f"  ratio:             {k / b:8.3f}  target >= 0.95 -> {'PASS' if k / b >= 0.95 else 'FAIL'}")


if __name__ == "__main__":
    main()
