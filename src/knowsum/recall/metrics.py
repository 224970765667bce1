"""The recall metrics as pure functions (Bombieri et al., "Do LLMs Dream of Ontologies?").

Nothing here reads files or calls a model; :mod:`knowsum.recall._score` composes these functions.

- Error analysis (§4.1): :func:`levenshtein` between the gold and the wrongly predicted ID;
  :func:`jaccard` between the token sets (:func:`label_tokens`) of the gold label and the label
  of the wrongly predicted ID.
- Popularity buckets (§5.2): :func:`bucket_edges` — the 50 percentiles of the *distinct*
  observed popularity values — and :func:`assign_buckets`; equal values always share a bucket.
- Repeated IDs (§5.1): :func:`repetition_ratio`, ``R_B = n_B / (N_B / N · k)``.
- Prediction invariance (§6.1): :func:`prediction_invariance`, ``PI = 1 − (U − 1)/(M − 1)``.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Iterable, Sequence

import numpy as np
from numpy.typing import NDArray
from rapidfuzz.distance import Levenshtein

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


def bucket_edges(values: Iterable[float], n_buckets: int = 50) -> NDArray[np.float64]:
    """Bucket boundaries: ``n_buckets + 1`` percentiles of the distinct observed values (§5.2).

    The percentiles are taken over the *distinct* values (NumPy's linear interpolation), so each
    bucket spans about the same number of distinct popularity values; with a long-tailed
    popularity, low buckets then hold far more concepts than high ones, as in the paper.

    Raises:
        ValueError: no values, non-finite values or ``n_buckets < 1``.
    """
    arr = np.unique(np.asarray(list(values), dtype=np.float64))
    if arr.size == 0:
        raise ValueError("no popularity values to bucket")
    if not np.all(np.isfinite(arr)):
        raise ValueError("popularity values must be finite")
    if n_buckets < 1:
        raise ValueError(f"n_buckets must be >= 1, got {n_buckets}")
    edges: NDArray[np.float64] = np.percentile(arr, np.linspace(0.0, 100.0, n_buckets + 1))
    return edges


def assign_buckets(
    values: Sequence[float] | NDArray[np.float64], edges: NDArray[np.float64]
) -> NDArray[np.int64]:
    """Bucket number (1-based) of each value: bucket ``i`` holds ``edges[i-1] <= v < edges[i]``.

    The last bucket also holds ``v == edges[-1]``; values below the first edge go to bucket 1 and
    above the last to the last bucket. Equal values always land in the same bucket.

    Example:
        >>> e = bucket_edges([0, 1, 2, 3, 4], n_buckets=4)
        >>> assign_buckets([0, 0, 1, 3.5, 4], e).tolist()
        [1, 1, 2, 4, 4]
    """
    arr = np.asarray(values, dtype=np.float64)
    n = edges.size - 1
    idx = np.searchsorted(edges[1:-1], arr, side="right") + 1
    out: NDArray[np.int64] = np.clip(idx, 1, n).astype(np.int64)
    return out


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
