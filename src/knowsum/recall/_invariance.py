"""Prediction invariance PI-1/2/3 (paper §6): ask the same thing M ways, count distinct answers.

- PI-1: the English prompt ``M`` times at temperature 0 (paper: M = 10), sample indexes 0…M−1;
- PI-2: the English prompt once at each temperature 0.0, 0.1, …, 1.0 (M = 11);
- PI-3: the prompt in English, Italian, German, French and Spanish at temperature 0 (M = 5).

Per concept ``PI = 1 − (U − 1)/(M − 1)`` (:func:`~knowsum.recall.metrics.prediction_invariance`)
over the extracted IDs (every "no ID" answer counts as the same answer); ``AvPI`` per bucket is
the mean PI of its concepts, and its Spearman ρ with the per-bucket accuracy (fraction of the M
answers that are correct) is tested by permutation. :func:`summary_from_counts` computes both from
integer counts; answers files made elsewhere (:mod:`knowsum.recall._invariance_files`) use it too.
Their buckets are positional (K rows per bucket, the §6.2 sample's layout); where the §5 popularity
buckets of the same rows differ, :func:`bucketing_caveats` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from knowsum.models import GenerationParams, Request
from knowsum.recall._concepts import Concept
from knowsum.recall._config import InvarianceMethod, RecallConfig
from knowsum.recall._score import spearman_or_none
from knowsum.recall._templates import render_prompt
from knowsum.recall.record import InvarianceBucket, InvarianceSummary, Reading
from knowsum.records import Caveat

__all__ = [
    "TWO_BUCKETINGS",
    "bucketing_caveats",
    "invariance_requests",
    "summarize_invariance",
    "summary_from_counts",
]

TWO_BUCKETINGS = "rq2-rq3-buckets"
"""The kind of :func:`bucketing_caveats`' caveat."""


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


def _ratio(num: int, den: int) -> float:
    return num / den  # one correctly rounded division: equal rationals give equal floats (exact ties)


def summary_from_counts(
    method: InvarianceMethod,
    variants: Sequence[str],
    unique: Sequence[int],
    hits: Sequence[int],
    groups: Mapping[int, Sequence[int]],
    *,
    n_perm: int,
    seed: int,
    reading: Reading = "knowsum",
    source: str = "",
    per_bucket: int | None = None,
) -> InvarianceSummary:
    """AvPI and accuracy per bucket from integer counts, and their Spearman ρ (paper §6.1, §6.3).

    With ``M = len(variants)`` answers per concept, ``U`` its distinct answers and ``hits`` its
    correct ones, a bucket of ``K`` concepts has ``AvPI = (1/K) Σ (1 − (U − 1)/(M − 1)) =
    1 − (ΣU − K)/(K(M − 1))`` and accuracy ``Σhits/(K·M)``, each one division of integers. Summing
    float PIs instead (``np.mean``, the authors' script) leaves rounding noise that splits buckets
    with the same AvPI and moves ρ (PI-2 on the authors' GPT-3.5 GO answers: .9488 with
    ``np.mean``, .9496 summed in order, .9507 exact).

    Args:
        method: ``pi1``, ``pi2`` or ``pi3``.
        variants: Names of the ``M`` variants (``M >= 2``).
        unique: Per concept, ``U``.
        hits: Per concept, its correct answers (0…M).
        groups: Bucket number → indexes of its concepts (concepts without a bucket left out).
        n_perm: Permutations of the Spearman test (:func:`~knowsum.recall._score.spearman_or_none`:
            ``None`` below 3 buckets or for a constant series).
        seed: Its seed.
        reading: Recorded as given (:class:`InvarianceSummary`).
        source: Recorded as given.
        per_bucket: Recorded as given.

    Raises:
        ValueError: ``M < 2``.
    """
    m, n = len(variants), len(unique)
    if m < 2:
        raise ValueError(f"prediction invariance needs M >= 2 answers, got {m}")
    rows: list[InvarianceBucket] = []
    for bucket, idx in sorted(groups.items()):
        k = len(idx)
        if not k:
            continue
        u, h = sum(unique[i] for i in idx), sum(hits[i] for i in idx)
        rows.append(
            InvarianceBucket(
                bucket=bucket,
                n=k,
                avpi=_ratio(k * (m - 1) - (u - k), k * (m - 1)),
                accuracy=_ratio(h, k * m),
            )
        )
    rho, p = spearman_or_none([r.avpi for r in rows], [r.accuracy for r in rows], n_perm, seed)
    return InvarianceSummary(
        method=method,
        m=m,
        variants=list(variants),
        n_concepts=n,
        mean_pi=_ratio(n * (m - 1) - (sum(unique) - n), n * (m - 1)) if n else 0.0,
        accuracy=_ratio(sum(hits), n * m) if n else 0.0,
        buckets=rows,
        spearman=rho,
        spearman_p=p,
        reading=reading,
        source=source,
        per_bucket=per_bucket,
    )


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
    """PI per concept, AvPI and accuracy per popularity bucket, and their Spearman correlation
    (knowsum's reading: ``U`` counts distinct extracted IDs, every "no ID" answer the same one).

    Args:
        method: ``pi1``, ``pi2`` or ``pi3``.
        variants: Names of the ``M`` variants.
        concepts: The probed concepts (buckets may be ``None``: left out of the buckets).
        answers: Per concept, the ``M`` extracted IDs.
        correct: Per concept, whether each of the ``M`` answers is correct.
        n_perm: Permutations of the Spearman test.
        seed: Its seed.
    """
    groups: dict[int, list[int]] = {}
    for i, c in enumerate(concepts):
        if c.bucket is not None:
            groups.setdefault(c.bucket, []).append(i)
    return summary_from_counts(
        method,
        variants,
        [len(set(a)) for a in answers],
        [sum(row) for row in correct],
        groups,
        n_perm=n_perm,
        seed=seed,
    )


def bucketing_caveats(
    popularity_buckets: Sequence[int | None], per_bucket: int, source: str, n_buckets: int
) -> list[Caveat]:
    """Why §5 and §6 of one scored file may speak of different buckets.

    Answers files made elsewhere are bucketed by position (``per_bucket`` rows per bucket, row ``i``
    in bucket ``i // K + 1``: the layout of the authors' §6.2 sample, drawn K per Web-popularity
    bucket of the whole ontology), while the popularity analysis (§5: Fig. 2, Tables 4 and 6,
    ``R_B``, the bucket in ``predictions.jsonl``) buckets the same rows by their popularity values
    (§5.2). Re-bucketed by its own popularity column, the authors' sample puts 528 of its 1,000
    concepts in their positional bucket. Empty when every row is in the same bucket under both.

    Args:
        popularity_buckets: The §5 bucket of each row (``None``: no popularity value), in row order.
        per_bucket: K of the positional buckets.
        source: The popularity source of the §5 buckets (named in the message).
        n_buckets: The number of §5 buckets.
    """
    n = len(popularity_buckets)
    agree = sum(b == i // per_bucket + 1 for i, b in enumerate(popularity_buckets))
    if agree == n:
        return []
    mark = "RQ2 and RQ3 bucket differently"
    return [
        Caveat(
            kind=TWO_BUCKETINGS,
            mark=mark,
            message=(
                f"{mark}: the popularity analysis (§5: Fig. 2, Tables 4 and 6, R_B, the bucket in "
                f"predictions.jsonl) buckets the {n:,} concepts by popularity ({source}, {n_buckets} "
                f"buckets of consecutive distinct values), prediction invariance (§6: PI, AvPI, Fig. 4) "
                f"by position (--per-bucket {per_bucket}: row i in bucket i // {per_bucket} + 1); only "
                f"{agree:,} of the {n:,} concepts are in the same bucket under both, so a bucket number "
                "does not name the same concepts in the two sections"
            ),
            figure="buckets",
        )
    ]
