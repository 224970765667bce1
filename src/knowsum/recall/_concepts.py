"""Which concepts a recall run probes: the eligible universe, selection, and polysemy.

Universe (paper §3.2): the non-obsolete terms of the KB whose primary ID has the KB's syntax
(Uberon keeps native ``UBERON:`` terms only); for ICD-10, codes of at most four characters
(categories ``A00`` and first-level subcategories ``A00.1``), as in the paper.

Selection: ``all``; ``sample`` — a seeded random sample of N; ``stratified`` — K random concepts
per popularity bucket (§6.2: N = 50 buckets × K = 20).

Polysemy (§4.1): a prediction is correct when it is the gold ID or the ID of any other term with
the same label (case-insensitive), so a label shared by several concepts accepts each of them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from knowsum.errors import ConfigError
from knowsum.kb import Ontology
from knowsum.recall._popularity import Buckets

__all__ = ["Concept", "LabelIndex", "Selection", "primary_names", "select", "universe"]

Selection = Literal["all", "sample", "stratified"]


@dataclass(frozen=True, slots=True)
class Concept:
    """One concept to probe: gold ID, label, and its popularity and bucket when known."""

    id: str
    label: str
    popularity: float | None = None
    bucket: int | None = None


def _eligible_id(kb: str, ontology: Ontology, tid: str) -> bool:
    syntax = ontology.syntax
    if syntax is not None and not re.fullmatch(syntax.pattern, tid):
        return False
    if kb == "icd10":
        return ontology[tid].namespace in ("category", "subcategory") and len(tid.replace(".", "")) <= 4
    return True


def universe(kb: str, ontology: Ontology, buckets: Buckets | None = None) -> list[Concept]:
    """Every eligible concept of ``ontology`` in ID order, with popularity/bucket from ``buckets``."""
    out: list[Concept] = []
    for tid in sorted(ontology):
        term = ontology[tid]
        if term.obsolete or not term.name or not _eligible_id(kb, ontology, tid):
            continue
        pop = buckets.popularity.get(tid) if buckets is not None else None
        bucket = buckets.of.get(tid) if buckets is not None else None
        out.append(Concept(tid, term.name, pop, bucket))
    return out


def select(
    concepts: Sequence[Concept],
    mode: Selection = "all",
    *,
    n: int | None = None,
    per_bucket: int | None = None,
    seed: int = 0,
) -> list[Concept]:
    """Choose the concepts to probe (result in the input order).

    Args:
        concepts: The universe.
        mode: ``all``, ``sample`` (``n`` concepts) or ``stratified`` (``per_bucket`` per bucket; a
            bucket with fewer concepts gives all of them; concepts without a bucket are skipped).
        n: Sample size for ``sample``.
        per_bucket: K for ``stratified``.
        seed: Seed of the random choice.

    Raises:
        ConfigError: a missing size, or ``stratified`` without popularity buckets.
    """
    rng = random.Random(seed)
    if mode == "all":
        return list(concepts)
    if mode == "sample":
        if n is None or n < 1:
            raise ConfigError("selection 'sample' needs a sample size >= 1 (--sample N)")
        chosen = set(rng.sample(range(len(concepts)), min(n, len(concepts))))
        return [c for i, c in enumerate(concepts) if i in chosen]
    if per_bucket is None or per_bucket < 1:
        raise ConfigError("selection 'stratified' needs K >= 1 concepts per bucket (--per-bucket K)")
    by_bucket: dict[int, list[int]] = {}
    for i, c in enumerate(concepts):
        if c.bucket is not None:
            by_bucket.setdefault(c.bucket, []).append(i)
    if not by_bucket:
        raise ConfigError("stratified selection needs popularity (use --popularity web|FILE|annotations)")
    picked: set[int] = set()
    for b in sorted(by_bucket):
        members = by_bucket[b]
        picked.update(rng.sample(members, min(per_bucket, len(members))))
    return [c for i, c in enumerate(concepts) if i in picked]


def primary_names(ontology: Ontology, include_obsolete: bool = False) -> dict[str, str]:
    """Primary ID → name, read in one pass over :meth:`Ontology.labels` (the name comes first)."""
    names: dict[str, str] = {}
    for tid, label in ontology.labels(include_obsolete=include_obsolete):
        names.setdefault(tid, label)
    return names


def _key(label: str) -> str:
    return " ".join(label.casefold().split())


class LabelIndex:
    """Label → IDs of the non-obsolete terms carrying that name (case- and space-insensitive)."""

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        index: dict[str, set[str]] = {}
        for tid, label in pairs:
            index.setdefault(_key(label), set()).add(tid)
        self._index = {k: frozenset(v) for k, v in index.items()}

    @classmethod
    def of(cls, ontology: Ontology) -> LabelIndex:
        """Index the primary names of the non-obsolete terms of ``ontology``."""
        return cls(primary_names(ontology).items())

    def ids(self, label: str) -> frozenset[str]:
        """IDs whose name is ``label`` (empty if none)."""
        return self._index.get(_key(label), frozenset())


def with_buckets(concepts: Sequence[Concept], buckets: Buckets | None) -> list[Concept]:
    """The concepts with popularity and bucket looked up in ``buckets`` (unchanged if ``None``)."""
    if buckets is None:
        return list(concepts)
    return [
        replace(c, popularity=buckets.popularity.get(c.id), bucket=buckets.of.get(c.id)) for c in concepts
    ]
