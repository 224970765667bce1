"""Generated tokens/s through ``sample()`` (+ store) vs calling llama-cpp-python directly.

Both sides run the same registry model (default ``smollm2-135m-instruct``; ``make test`` installs it),
the same prompts, the same per-sample seeds (:func:`knowsum.models.derive_seed`), the same sampling
values (KnowSum's temperature 1 with top-p/top-k/min-p off) and ``reset()`` before every call, so they
generate identical texts; the benchmark checks that. Rounds alternate; medians are reported.
Target ratio ≥ 0.95.

    .venv/bin/python bench/bench_models_local.py [--model smollm2-135m-instruct] [--samples 24] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

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

PROMPTS = ["Name one human disease.", "List three human genes.", "What is a GO biological process?"]


def direct(llm: object, requests: list[Request]) -> tuple[float, list[str]]:
    """Tokens/s and texts of plain llama-cpp-python calls."""
    texts, tokens = [], 0
    start = time.perf_counter()
    for r in requests:
        p = r.params
        llm.reset()  # type: ignore[attr-defined]
        out = llm.create_chat_completion(  # type: ignore[attr-defined]
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
    return tokens / (time.perf_counter() - start), texts


def through_sample(backend: LocalBackend, requests: list[Request], db: Path) -> tuple[float, list[str]]:
    """Tokens/s and texts through sample() with a fresh store."""
    with ResponseStore(db) as store:
        start = time.perf_counter()
        got = sample_sync(backend, requests, store=store, progress=False)
        elapsed = time.perf_counter() - start
        assert store.count() == len(requests)
    return sum(r.completion_tokens for r in got) / elapsed, [r.text for r in got]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--samples", type=int, default=24, help="samples per round (spread over 3 prompts)")
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    spec = model_spec(args.model)
    params = GenerationParams(**{**PAPER_PARAMS.as_dict(), "max_tokens": args.max_tokens, "stop": ()})
    backend = open_backend(args.model)
    assert isinstance(backend, LocalBackend)
    llm = load_llama(installed_path(args.model), n_ctx=spec.n_ctx)
    per_prompt = max(1, args.samples // len(PROMPTS))
    rates: dict[str, list[float]] = {"direct": [], "sample": []}
    with tempfile.TemporaryDirectory() as tmp:
        through_sample(backend, make_requests(PROMPTS, params, n=1, start=10**6), Path(tmp) / "warm.sqlite")
        direct(llm, make_requests(PROMPTS, params, n=1, start=10**6))
        for i in range(args.rounds):
            reqs = make_requests(PROMPTS, params, n=per_prompt, start=i * per_prompt)
            d_rate, d_texts = direct(llm, reqs)
            s_rate, s_texts = through_sample(backend, reqs, Path(tmp) / f"r{i}.sqlite")
            assert d_texts == s_texts, "direct and sample() disagree on texts"
            rates["direct"].append(d_rate)
            rates["sample"].append(s_rate)
    asyncio.run(backend.aclose())
    d, s = statistics.median(rates["direct"]), statistics.median(rates["sample"])
    print(f"model {args.model}, {per_prompt * len(PROMPTS)} samples/round, max_tokens {args.max_tokens}")
    print(
        f"direct llama-cpp-python: {d:7.1f} tok/s  (rounds: {', '.join(f'{r:.1f}' for r in rates['direct'])})"
    )
    print(
        f"sample() + store:        {s:7.1f} tok/s  (rounds: {', '.join(f'{r:.1f}' for r in rates['sample'])})"
    )
    print(f"ratio:                   {s / d:7.3f}   target >= 0.95 -> {'PASS' if s / d >= 0.95 else 'FAIL'}")


if __name__ == "__main__":
    main()
