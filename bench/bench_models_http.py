"""Requests/s through ``sample()`` + the response store vs a bare async httpx loop (same concurrency).

A loopback OpenAI-compatible server (:class:`knowsum.models.testing.LoopbackServer`, answering
instantly) runs in its own process. Both clients send the same number of chat requests with the same
concurrency over one keep-alive connection pool:

- *bare*: ``httpx.AsyncClient.post`` + ``response.json()`` in C worker coroutines, bodies prebuilt;
- *knowsum*: ``sample(OpenAIBackend, requests, store=ResponseStore(fresh file))``: key hashing, seed
  derivation, body building, retries bookkeeping, and one SQLite transaction per response.

Rounds alternate (bare, knowsum, bare, …); the median of each is reported. Target ratio ≥ 0.95.

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


async def bare(base_url: str, n: int, concurrency: int, tag: str) -> float:
    backend = OpenAIBackend("bench", base_url)  # only to build identical bodies up front
    bodies = [backend.body([r]) for r in make_requests(_prompts(n, tag), PARAMS)]
    url = f"{base_url}/chat/completions"
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    texts: list[str] = []
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        it = iter(bodies)

        async def worker() -> None:
            for body in it:
                resp = await client.post(url, json=body)
                texts.append(resp.json()["choices"][0]["message"]["content"])

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    assert len(texts) == n
    return n / elapsed


async def knowsum(base_url: str, n: int, concurrency: int, tag: str, db: Path) -> float:
    backend = OpenAIBackend("bench", base_url, concurrency=concurrency, timeout=60)
    requests = make_requests(_prompts(n, tag), PARAMS)
    with ResponseStore(db) as store:
        start = time.perf_counter()
        got = [r async for r in sample(backend, requests, store=store, progress=False)]
        elapsed = time.perf_counter() - start
        assert len(got) == n and store.count() == n and all(r.ok for r in got)
    await backend.aclose()
    return n / elapsed


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
    rates: dict[str, list[float]] = {"bare": [], "knowsum": []}
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
    b, k = statistics.median(rates["bare"]), statistics.median(rates["knowsum"])
    print(f"requests per round: {args.requests}, concurrency {args.concurrency}, rounds {args.rounds}")
    print(f"bare httpx loop:      {b:8.0f} req/s  (rounds: {', '.join(f'{r:.0f}' for r in rates['bare'])})")
    print(
        f"sample() + store:     {k:8.0f} req/s  (rounds: {', '.join(f'{r:.0f}' for r in rates['knowsum'])})"
    )
    print(f"ratio:                {k / b:8.3f}   target >= 0.95 -> {'PASS' if k / b >= 0.95 else 'FAIL'}")


if __name__ == "__main__":
    main()
