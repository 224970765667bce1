"""The recall metrics as pure functions (Bombieri et al., "Do LLMs Dream of Ontologies?").

Nothing here reads files or calls a model; :mod:`knowsum.recall._score` composes these functions.

- Error analysis (§4.1): :func:`levenshtein` between the gold and the wrongly predicted ID;
  :func:`jaccard` between the token sets (:func:`label_tokens`) of the gold label and the label
  of the wrongly predicted ID.
- Popularity buckets (§5.2; re-exported from :mod:`knowsum.stats.buckets`): :func:`bucket_edges`
  — floor(D / 50) consecutive *distinct* observed popularity values per bucket, the last bucket
  also the remainder (the authors' rule) — and :func:`assign_buckets`; equal values share a bucket.
- Repeated IDs (§5.1): :func:`repetition_ratio`, ``R_B = n_B / (N_B / N · k)``.
- Prediction invariance (§6.1): :func:`prediction_invariance`, ``PI = 1 − (U − 1)/(M − 1)``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence

from rapidfuzz.distance import Levenshtein

from knowsum.stats.buckets import assign_buckets, bucket_edges

__all__ = [
    "assign_buckets",
    "bucket_edges",
    "jaccard",
    "label_tokens",
    "levenshtein",
    "prediction_invariance",
    "repetition_ratio",
]

_TOKEN = re.compile(r"\w+")


def levenshtein(a: str, b: str) -> int:
    """Levenshtein (1966) edit distance: insertions, deletions and substitutions of one character.

    Example:
        >>> levenshtein("GO:0060219", "GO:0060519")
        1
    """
    return int(Levenshtein.distance(a, b))


def label_tokens(label: str) -> frozenset[str]:
    """Token set of a label: case-folded runs of word characters (``\\w+``); punctuation splits.

    Example:
        >>> sorted(label_tokens("Heart valve morphogenesis"))
        ['heart', 'morphogenesis', 'valve']
    """
    return frozenset(_TOKEN.findall(label.casefold()))


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    """Jaccard (1901) similarity ``|A ∩ B| / |A ∪ B|`` of two token sets (``0.0`` if both are empty).

    Example:
        >>> jaccard(label_tokens("heart valve morphogenesis"), label_tokens("heart trabecula morphogenesis"))
        0.5
    """
    sa, sb = set(a), set(b)
    union = len(sa | sb)
    return len(sa & sb) / union if union else 0.0


def prediction_invariance(answers: Sequence[Hashable]) -> float:
    """Prediction invariance of one concept after ``M`` prompts: ``PI = 1 − (U − 1)/(M − 1)``.

    ``U`` is the number of distinct answers (§6.1): 1.0 when every answer is the same, 0.0 when all
    ``M`` differ. Answers are compared as given (the recall instrument passes the extracted ID, with
    ``None`` standing for every "no ID" answer).

    Raises:
        ValueError: fewer than two answers.

    Example:
        >>> prediction_invariance(["GO:1", "GO:1", "GO:2", None, None])
        0.5
    """
    m = len(answers)
    if m < 2:
        raise ValueError(f"prediction invariance needs M >= 2 answers, got {m}")
    u = len(set(answers))
    return 1.0 - (u - 1) / (m - 1)


def repetition_ratio(n_b: int, big_n_b: int, big_n: int, k: int) -> float:
    """``R_B = n_B / (N_B / N · k)``: observed over expected top-k repeated IDs in bucket ``B`` (§5.1).

    Args:
        n_b: Top-k repeated IDs that fall in bucket ``B``.
        big_n_b: IDs of the ontology in bucket ``B``.
        big_n: IDs in all buckets.
        k: Number of top repeated IDs considered.

    Returns:
        The ratio (1.0 = as many as a uniform draw would put there); ``nan`` for an empty bucket.
    """
    expected = big_n_b / big_n * k if big_n and k else 0.0
    return n_b / expected if expected else float("nan")
