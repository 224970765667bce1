"""A synthetic model: answers drawn from a known Zipf law over real DOID names, plus noise.

Every response lists ``per_query`` distinct diseases drawn without replacement with probability
proportional to ``1 / rank^a``; the *truth* is which DOID each response really names. Noise that
must not change the histogram: list numbering and bullets, Markdown bold, claimed IDs in
parentheses (right or wrong), case changes, one doubled letter in long names (a misspelling the
fuzzy matcher at 0.9 must absorb), the same disease repeated inside a response (counted once),
filler lines, and non-diseases (never verified).
"""

from __future__ import annotations

import random
from collections import Counter

import numpy as np

from knowsum.kb import Matcher, Ontology, normalize_text

NON_DISEASES = (
    "banana bread",
    "the quick brown fox",
    "quantum chromodynamics",
    "Eiffel Tower",
    "xyzzy plugh",
)


def disease_names(onto: Ontology, n: int) -> list[tuple[str, str]]:
    """``n`` (DOID, name) pairs whose name matches exactly its own term (unambiguous labels)."""
    matcher = Matcher(onto)
    out = []
    for tid in sorted(onto):
        term = onto[tid]
        if term.obsolete or tid == "DOID:4" or not onto.is_a(tid, "DOID:4") or len(term.name) < 6:
            continue
        m = matcher.match(term.name)
        if m is not None and m.id == tid and m.stage == "exact" and normalize_text(term.name):
            out.append((tid, term.name))
    random.Random(1).shuffle(out)
    return out[:n]


def _misspell(name: str) -> str:
    i = len(name) // 2
    while i < len(name) and not name[i].isalpha():
        i += 1
    return name[:i] + name[i] + name[i:] if i < len(name) else name


def make_responses(
    names: list[tuple[str, str]], n_queries: int, per_query: int, a: float = 1.1, seed: int = 0
) -> tuple[list[str], list[list[str]]]:
    """``(texts, truth)``: one response text per query and the DOIDs it truly names."""
    rng = np.random.default_rng(seed)
    rnd = random.Random(seed)
    weights = 1.0 / np.arange(1, len(names) + 1) ** a
    probs = weights / weights.sum()
    texts, truth = [], []
    for _ in range(n_queries):
        picks = rng.choice(len(names), size=per_query, replace=False, p=probs)
        lines = ["Here are some human diseases:"]
        ids = []
        for j, idx in enumerate(picks.tolist()):
            tid, name = names[idx]
            ids.append(tid)
            shown = name
            roll = rnd.random()
            if roll < 0.15 and len(name) >= 20:
                shown = _misspell(name)
            elif roll < 0.3:
                shown = name.upper() if rnd.random() < 0.5 else f"**{name}**"
            claim = f" ({tid})" if rnd.random() < 0.5 else (" (DOID:999999999)" if rnd.random() < 0.2 else "")
            marker = rnd.choice(["- ", f"{j + 1}. ", f"{j + 1}) ", "* "])
            lines.append(f"{marker}{shown}{claim}")
            if rnd.random() < 0.1:
                lines.append(f"- {name.lower()}")  # duplicate inside the response
            if rnd.random() < 0.1:
                lines.append(f"- {rnd.choice(NON_DISEASES)}")
        texts.append("\n".join(lines))
        truth.append(ids)
    return texts, truth


def truth_counts(truth: list[list[str]]) -> Counter[str]:
    """How many responses name each DOID."""
    return Counter(tid for ids in truth for tid in ids)
