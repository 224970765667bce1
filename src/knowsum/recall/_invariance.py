"""Prediction invariance PI-1/2/3 (paper §6): ask the same thing M ways, count distinct answers.

- PI-1: the English prompt ``M`` times at temperature 0 (paper: M = 10), sample indexes 0…M−1;
- PI-2: the English prompt once at each temperature 0.0, 0.1, …, 1.0 (M = 11);
- PI-3: the prompt in English, Italian, German, French and Spanish at temperature 0 (M = 5).

Per concept ``PI = 1 − (U − 1)/(M − 1)`` (:func:`~knowsum.recall.metrics.prediction_invariance`)
over the extracted IDs (every "no ID" answer counts as the same answer); ``AvPI`` per bucket is
the mean PI of its concepts, and its Spearman ρ with the per-bucket accuracy (fraction of the M
answers that are correct) is tested by permutation.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from knowsum.models import GenerationParams, Request
from knowsum.recall._concepts import Concept
from knowsum.recall._config import InvarianceMethod, RecallConfig
from knowsum.recall._result import InvarianceBucket, InvarianceSummary
from knowsum.recall._score import spearman_or_none
from knowsum.recall._templates import render_prompt
from knowsum.recall.metrics import prediction_invariance

__all__ = ["invariance_requests", "summarize_invariance"]


def _params(config: RecallConfig, temperature: float) -> GenerationParams:
    return GenerationParams(temperature=temperature, max_tokens=config.tokens, seed=config.seed)


def invariance_requests(
    config: RecallConfig, method: InvarianceMethod, concepts: Sequence[Concept]
) -> tuple[list[str], list[list[Request]]]:
    """The variant names and, per concept, the ``M`` requests of one invariance method."""
    kb, api, tpl = config.kb, config.api, config.template
    if method == "pi1":
        params = _params(config, 0.0)
        variants = [f"repeat {i + 1}" for i in range(config.pi1_repeats)]
        return variants, [
            [
                Request(prompt=render_prompt(kb, c.label, api, template=tpl), params=params, sample_index=i)
                for i in range(config.pi1_repeats)
            ]
            for c in concepts
        ]
    if method == "pi2":
        temps = config.pi2_temperatures
        return [f"T={t:g}" for t in temps], [
            [
                Request(prompt=render_prompt(kb, c.label, api, template=tpl), params=_params(config, t))
                for t in temps
            ]
            for c in concepts
        ]
    params = _params(config, 0.0)
    langs = config.pi3_languages
    return list(langs), [
        [Request(prompt=render_prompt(kb, c.label, api, language=lang), params=params) for lang in langs]
        for c in concepts
    ]


def summarize_invariance(
    method: InvarianceMethod,
    variants: Sequence[str],
    concepts: Sequence[Concept],
    answers: Sequence[Sequence[str | None]],
    correct: Sequence[Sequence[bool]],
    *,
    n_perm: int = 10_000,
    seed: int = 0,
) -> InvarianceSummary:
    """PI per concept, AvPI and accuracy per bucket, and their Spearman correlation.

    Args:
        method: ``pi1``, ``pi2`` or ``pi3``.
        variants: Names of the ``M`` variants.
        concepts: The probed concepts (buckets may be ``None``).
        answers: Per concept, the ``M`` extracted IDs.
        correct: Per concept, whether each of the ``M`` answers is correct.
        n_perm: Permutations of the Spearman test.
        seed: Its seed.
    """
    pis = [prediction_invariance(list(a)) for a in answers]
    by_bucket: dict[int, list[int]] = {}
    for i, c in enumerate(concepts):
        if c.bucket is not None:
            by_bucket.setdefault(c.bucket, []).append(i)
    rows = [
        InvarianceBucket(
            bucket=b,
            n=len(idx),
            avpi=float(np.mean([pis[i] for i in idx])),
            accuracy=float(np.mean([x for i in idx for x in correct[i]])),
        )
        for b, idx in sorted(by_bucket.items())
    ]
    rho, p = spearman_or_none([r.avpi for r in rows], [r.accuracy for r in rows], n_perm, seed)
    flat = [x for row in correct for x in row]
    return InvarianceSummary(
        method=method,
        m=len(variants),
        variants=list(variants),
        n_concepts=len(concepts),
        mean_pi=float(np.mean(pis)) if pis else 0.0,
        accuracy=float(np.mean(flat)) if flat else 0.0,
        buckets=rows,
        spearman=rho,
        spearman_p=p,
    )
