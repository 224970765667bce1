"""Benchmark: batch matcher vs a naive per-string ``rapidfuzz.process.extractOne`` loop.

Matches N generated disease strings (exact DOID names/synonyms, case and punctuation variants,
typos, non-diseases) against the DOID names + synonyms at cut-off 0.9 and reports names/s of

- **batch**: :meth:`knowsum.kb.Matcher.match_many` (dedup, exact/normalized dictionary stages,
  length-blocked ``process.cdist(..., workers=-1)``), and
- **naive**: a Python loop that, per string, looks the stripped string up in the matcher's exact
  label table and otherwise calls ``process.extractOne(normalize_text(s), matcher.choices,
  scorer=fuzz.ratio, score_cutoff=90)`` over all labels.

Both see the same inputs; the bench asserts that they return the same ID for every input (and the
same score). Needs ``knowsum kb install doid``. Run::

    .venv/bin/python bench/bench_match.py            # N = 100000, seed 0
    .venv/bin/python bench/bench_match.py --n 20000
"""

from __future__ import annotations

import argparse
import os
import random
import string
import time
from collections import Counter

from rapidfuzz import fuzz, process

from knowsum.kb import Match, Matcher, load_ontology, normalize_text

_WORDS = [
    "table",
    "lamp",
    "river",
    "boat",
    "window",
    "garden",
    "pencil",
    "engine",
    "coffee",
    "mountain",
    "guitar",
    "ladder",
    "carpet",
    "bicycle",
    "cloud",
    "market",
    "kettle",
    "mirror",
    "blanket",
    "harbor",
    "violin",
    "tunnel",
    "orchard",
    "compass",
    "lantern",
    "meadow",
    "bridge",
    "helmet",
    "saddle",
    "chimney",
    "feather",
    "anchor",
    "basket",
    "candle",
    "drawer",
    "hammer",
    "island",
    "jacket",
    "kitchen",
]


def _typo(s: str, rng: random.Random) -> str:
    chars = list(s)
    for _ in range(rng.choice((1, 1, 2))):
        i = rng.randrange(len(chars))
        op = rng.choice(("del", "ins", "sub", "swap"))
        if op == "del" and len(chars) > 3:
            del chars[i]
        elif op == "ins":
            chars.insert(i, rng.choice(string.ascii_lowercase))
        elif op == "sub":
            chars[i] = rng.choice(string.ascii_lowercase)
        elif i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def _variant(s: str, rng: random.Random, tid: str) -> str:
    pick = rng.randrange(5)
    if pick == 0:
        return s.upper()
    if pick == 1:
        return s.title()
    if pick == 2:
        return s.replace(" ", "-")
    if pick == 3:
        return f"  {s.lower()}  ({tid})"
    return s.replace(" ", "  ") + "."


def generate(labels: list[tuple[str, str]], n: int, seed: int) -> tuple[list[str], Counter[str]]:
    """N query strings: 25% exact labels, 25% variants, 30% typos, 20% non-diseases."""
    rng = random.Random(seed)
    out: list[str] = []
    kinds: Counter[str] = Counter()
    for _ in range(n):
        r = rng.random()
        tid, label = rng.choice(labels)
        if r < 0.25:
            kind, q = "exact", label
        elif r < 0.5:
            kind, q = "variant", _variant(label, rng, tid)
        elif r < 0.8:
            kind, q = "typo", _typo(label, rng)
        else:
            kind, q = "non-disease", " ".join(rng.sample(_WORDS, rng.choice((1, 2, 3))))
        kinds[kind] += 1
        out.append(q)
    return out, kinds


def naive(matcher: Matcher, queries: list[str]) -> list[tuple[str, float] | None]:
    """Per-string exact lookup, else ``extractOne`` over all normalized labels (cut-off 0.9)."""
    exact = matcher.exact_labels
    out: list[tuple[str, float] | None] = []
    for q in queries:
        hit = exact.get(q.strip())
        if hit is not None:
            out.append((hit[0], 100.0))
            continue
        best = process.extractOne(
            normalize_text(q), matcher.choices, scorer=fuzz.ratio, processor=None, score_cutoff=90
        )
        out.append(None if best is None else (matcher.choice_ids[best[2]], best[1]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    doid = load_ontology("doid")
    t0 = time.perf_counter()
    matcher = Matcher(doid)
    build = time.perf_counter() - t0
    labels = list(doid.labels())
    queries, kinds = generate(labels, args.n, args.seed)
    print(
        f"DOID: {len(doid)} terms, {len(matcher)} unique normalized labels (matcher built in {build:.2f} s)"
    )
    print(
        f"inputs: {args.n} strings, {len(set(queries))} distinct; "
        + ", ".join(f"{k} {v}" for k, v in kinds.items())
    )

    t0, c0 = time.perf_counter(), time.process_time()
    batch: list[Match | None] = matcher.match_many(queries)
    t_batch, c_batch = time.perf_counter() - t0, time.process_time() - c0
    t0, c0 = time.perf_counter(), time.process_time()
    ref = naive(matcher, queries)
    t_naive, c_naive = time.perf_counter() - t0, time.process_time() - c0

    mismatches = 0
    for q, b, r in zip(queries, batch, ref, strict=True):
        got = None if b is None else (b.id, round(b.score * 100, 6))
        want = None if r is None else (r[0], round(r[1], 6))
        if got != want:
            mismatches += 1
            if mismatches <= 5:
                print(f"MISMATCH {q!r}: batch {got} naive {want}")
    stages = Counter(m.stage if m else "none" for m in batch)
    print("batch stages: " + ", ".join(f"{k} {v}" for k, v in stages.most_common()))
    assert mismatches == 0, f"{mismatches} inputs matched differently"
    print(f"identical matches: {args.n}/{args.n}")
    print(
        f"naive  extractOne loop: {t_naive:8.2f} s  {args.n / t_naive:12,.0f} names/s  (CPU {c_naive:.2f} s)"
    )
    print(
        f"batch  match_many     : {t_batch:8.2f} s  {args.n / t_batch:12,.0f} names/s  (CPU {c_batch:.2f} s)"
    )
    print(
        f"speed-up: {t_naive / t_batch:.1f}x wall-clock, {c_naive / c_batch:.1f}x CPU time; "
        f"load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
