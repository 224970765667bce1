"""Resume scan: with 10^6 stored responses, how long does deciding what is left to do take?

Builds a store holding 10^6 successful responses (1,000 prompts x 1,000 samples, written with the
store's own upsert in 10,000-row transactions), adds 0.1 % more requests that are not stored, then
times :func:`knowsum.models.plan` (compute every key, look them up, list the pending requests) on a
freshly opened store. Target: < 5 s.

    .venv/bin/python bench/bench_resume.py [--prompts 1000] [--samples 1000] [--db PATH]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from knowsum.models import GenerationParams, MockBackend, ResponseStore, make_requests, plan


def build(db: Path, prompts: list[str], samples: int) -> None:
    backend = MockBackend(model_id="bench")
    params = GenerationParams(seed=1, max_tokens=64)
    with ResponseStore(db) as store:
        for p in prompts:
            reqs = make_requests([p], params, n=samples)
            store.put_many(backend.response(r, f"answer {r.sample_index} to {p}", "stop") for r in reqs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prompts", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--db", type=Path, default=None, help="reuse/keep this store file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "resume.sqlite"
        prompts = [f"List the human diseases you know, item {i}." for i in range(args.prompts)]
        stored = args.prompts * args.samples
        t0 = time.perf_counter()
        if not db.exists():
            build(db, prompts, args.samples)
        t_build = time.perf_counter() - t0
        params = GenerationParams(seed=1, max_tokens=64)
        extra = max(1, args.samples // 1000)
        t0 = time.perf_counter()
        requests = make_requests(prompts, params, n=args.samples + extra)
        t_requests = time.perf_counter() - t0
        with ResponseStore(db) as store:
            assert store.count() == stored, store.count()
            t0 = time.perf_counter()
            result = plan(MockBackend(model_id="bench"), requests, store)
            pending = result.pending
            t_plan = time.perf_counter() - t0
        size = db.stat().st_size
    assert len(result.done) == stored and len(pending) == args.prompts * extra
    print(f"stored responses:      {stored:,} ({size / 1e6:,.0f} MB; built in {t_build:.1f} s)")
    print(f"requests:              {len(requests):,} (make_requests {t_requests:.2f} s)")
    print(f"pending found:         {len(pending):,}")
    print(f"resume scan (plan):    {t_plan:.2f} s   target < 5 s -> {'PASS' if t_plan < 5 else 'FAIL'}")


if __name__ == "__main__":
    main()
