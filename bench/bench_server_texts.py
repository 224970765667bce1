"""The embedded model vs the same GGUF behind llama-cpp-python's server: equal texts? how fast?

Starts ``python -m llama_cpp.server`` (``pip install -e '.[server]'``) on a free 127.0.0.1 port with a
registry model, asks the same requests through the embedded sequential path (``n_parallel=1``, what
``KNOWSUM_BATCH=1`` selects) and through ``openai:<alias> --base-url`` (concurrency 1), then prints, per
prompt, whether the texts are equal (else the first differing character), and both wall times with
their ratio. The server is stopped at the end.

    python bench/bench_server_texts.py                         # SmolLM2, temperature 0, 64 tokens
    python bench/bench_server_texts.py --temperature 1 --max-tokens 40
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "models"))

from _llama_server import ALIAS, LlamaServer

from knowsum.models import (
    GenerationParams,
    installed_path,
    make_requests,
    model_spec,
    open_backend,
    sample_sync,
)
from knowsum.models._local import default_threads

PROMPTS = (
    "Name a fruit.",
    "List 5 human diseases, one per line.",
    "What is the GO ID of apoptotic process?",
    "Write one sentence about the sea.",
    "Give the full name of the gene TP53.",
)


def first_difference(a: str, b: str) -> int | None:
    """Index of the first differing character, ``None`` if equal."""
    if a == b:
        return None
    return next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--temperature", type=float, default=0.0)
    ap.add_argument("--max-tokens", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    params = GenerationParams(temperature=args.temperature, max_tokens=args.max_tokens, seed=args.seed)
    requests = make_requests(PROMPTS, params)
    t0 = time.perf_counter()
    embedded = sample_sync(open_backend(args.model, n_parallel=1), requests)
    t_embedded = time.perf_counter() - t0
    spec = model_spec(args.model)
    with tempfile.TemporaryDirectory() as tmp:
        srv = LlamaServer(
            installed_path(args.model),
            Path(tmp) / "server.log",
            n_ctx=spec.n_ctx,
            n_threads=default_threads(),
        )
        srv.start()
        try:
            backend = open_backend(f"openai:{ALIAS}", base_url=srv.base_url, concurrency=1)
            t0 = time.perf_counter()
            served = sample_sync(backend, requests)
            t_served = time.perf_counter() - t0
        finally:
            srv.stop()
    equal = 0
    for req, e, s in zip(requests, embedded, served, strict=True):
        at = first_difference(e.text, s.text)
        equal += at is None
        print(f"{req.prompt!r:45} {'equal' if at is None else f'differs at character {at}'}")
    print(f"{equal} of {len(requests)} texts equal (temperature {args.temperature}, {args.max_tokens} tok)")
    print(
        f"embedded sequential {t_embedded:.1f} s, server {t_served:.1f} s (kind {backend.server_kind}), "
        f"ratio embedded/server {t_embedded / t_served:.2f}; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
