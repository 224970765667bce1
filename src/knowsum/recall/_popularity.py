"""Popularity of concepts for RQ2 (paper §5): where the numbers come from and how they are bucketed.

Sources (``--popularity``):

- ``web`` — the web-occurrence tables of the paper's public release (GO, Uberon), read with
  :func:`knowsum.kb.load_popularity`: documents containing both the label and the ID.
- a file — any user table ``ID<sep>count`` (or the 4-column release layout).
- ``annotations`` — built-in proxy from the installed data: number of human genes directly
  annotated with a GO term (``knowsum kb install genes``).
- ``pubmed`` — built-in proxy: number of PubMed articles linked to the human genes annotated with
  a GO term (summed over the genes).
- ``none`` — no popularity analysis; ``auto`` is ``web`` where a table exists, else ``none``.

Whatever the source, :func:`known_popularity` takes the values of the concepts at hand (a run's
universe, a scored file's rows) and refuses a source that has none of them; :func:`coverage_note`
says how many of the scored concepts have one when not all do (paper §5.2 buckets every concept).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from knowsum.errors import ConfigError
from knowsum.kb import POPULARITY_FILES, SYNTAX, load_genes, load_popularity
from knowsum.recall.metrics import assign_buckets, bucket_edges

__all__ = [
    "PROXIES",
    "Buckets",
    "coverage_note",
    "known_popularity",
    "load_popularity_source",
    "resolve_source",
]

PROXIES = ("annotations", "pubmed")
_NAMED = ("auto", "web", "none", *PROXIES)


def resolve_source(kb: str, source: str) -> str:
    """The effective source name: ``auto`` becomes ``web`` or ``none``; a path is kept.

    Raises:
        ConfigError: a proxy that does not apply to ``kb``, or ``web`` for a KB without a web table.
    """
    if source == "auto":
        return "web" if kb in POPULARITY_FILES else "none"
    if source == "web" and kb not in POPULARITY_FILES:
        raise ConfigError(
            f"no web-popularity table for {kb!r} (only {', '.join(POPULARITY_FILES)}); "
            "pass --popularity FILE with ID,count rows, or --popularity none"
        )
    if source in PROXIES and kb != "go":
        raise ConfigError(f"popularity proxy {source!r} applies to go only; pass --popularity FILE")
    if source not in _NAMED and not Path(source).is_file():
        raise ConfigError(f"--popularity {source!r} is neither a file nor one of {', '.join(_NAMED)}")
    return source


def _canonical(kb: str, raw: Mapping[str, float]) -> dict[str, float]:
    syntax = SYNTAX.get(kb)
    out: dict[str, float] = {}
    for key, value in raw.items():
        cid = syntax.normalize(key) if syntax is not None else key
        out[cid or key.strip()] = float(value)
    return out


def _gene_proxy(source: str, ids: set[str] | None) -> dict[str, float]:
    genes = load_genes()
    out: dict[str, float] = {}
    for gene_id in genes:
        terms = {a.go_id for a in genes.go_annotations(gene_id)}
        if ids is not None:
            terms &= ids
        if not terms:
            continue
        weight = 1.0 if source == "annotations" else float(genes.pubmed_count(gene_id))
        for go_id in terms:
            out[go_id] = out.get(go_id, 0.0) + weight
    return out


def load_popularity_source(kb: str, source: str, ids: set[str] | None = None) -> dict[str, float] | None:
    """Popularity by canonical ID from ``source`` (see module docstring); ``None`` for ``none``.

    Args:
        kb: KB name.
        source: ``auto``, ``web``, ``annotations``, ``pubmed``, ``none`` or a file path.
        ids: Restrict proxies to these IDs (saves work on samples).
    """
    source = resolve_source(kb, source)
    if source == "none":
        return None
    if source == "web":
        return _canonical(kb, {r.id: r.count for r in load_popularity(kb)})
    if source in PROXIES:
        return _gene_proxy(source, ids)
    return _canonical(kb, {r.id: r.count for r in load_popularity(path=Path(source))})


def known_popularity(
    kb: str, source: str, popularity: Mapping[str, float], ids: Iterable[str]
) -> dict[str, float]:
    """The popularity of each of ``ids`` (canonical IDs) that ``popularity`` has a value for.

    The one check of ``recall run`` (``ids``: the KB's universe) and ``recall score`` (the file's gold
    IDs): a source none of whose IDs is one of the concepts would leave the popularity analysis (§5)
    out without a word, so it is refused.

    Raises:
        ConfigError: none of ``ids`` has a value in ``popularity``.
    """
    known = {i: popularity[i] for i in ids if i in popularity}
    if not known:
        raise ConfigError(
            f"popularity source {source!r} has no value for any {kb} concept here: give a popularity "
            f"table keyed by the concepts' {kb} IDs (ID,count rows)"
        )
    return known


def coverage_note(source: str, n_known: int, n: int, scored: str = "scored") -> str | None:
    """The note of a popularity source that covers ``n_known`` of the ``n`` ``scored`` concepts
    (``None`` when it covers them all).

    A concept without a value has no bucket (paper §5.2 buckets concepts by popularity): it counts in
    accuracy and Tables 1–3 but not in the per-bucket figures, and when it is a wrong prediction the
    paper-rule Table 2 means are pooled over every wrong prediction (:func:`~knowsum.recall._paper.
    paper_scores`), since a mean over buckets would leave it out.
    """
    if n_known >= n:
        return None
    rest = n - n_known
    return (
        f"popularity source {source!r} has a value for {n_known:,} of the {n:,} {scored} concepts; the "
        f"other {rest:,} {'has' if rest == 1 else 'have'} no popularity bucket: counted in accuracy and "
        "Tables 1–3, not in the per-bucket figures (Fig. 2–3, Tables 4 and 6); where one is a wrong "
        "prediction, the paper-rule Table 2 means are pooled over every wrong prediction"
    )


@dataclass(frozen=True, slots=True)
class Buckets:
    """Popularity buckets over a universe of concepts (paper §5.2; the rule: :mod:`knowsum.stats.buckets`).

    Attributes:
        popularity: Popularity by ID for the universe (concepts without a value are left out).
        edges: ``n + 1`` bucket boundaries (:func:`~knowsum.recall.metrics.bucket_edges`).
        of: Bucket number (1-based) by ID.
        sizes: ``N_B``: universe concepts per bucket, index 0 = bucket 1.
    """

    popularity: Mapping[str, float]
    edges: NDArray[np.float64]
    of: Mapping[str, int]
    sizes: tuple[int, ...]

    @classmethod
    def build(cls, popularity: Mapping[str, float], n_buckets: int = 50) -> Buckets:
        """Bucket every ID of ``popularity`` into ``n_buckets`` buckets of consecutive distinct values."""
        ids = list(popularity)
        values = np.fromiter((popularity[i] for i in ids), dtype=np.float64, count=len(ids))
        edges = bucket_edges(values, n_buckets)
        numbers = assign_buckets(values, edges)
        sizes = np.bincount(numbers, minlength=edges.size)[1:]  # fewer buckets than asked when D < n
        return cls(
            dict(popularity), edges, dict(zip(ids, numbers.tolist(), strict=True)), tuple(sizes.tolist())
        )

    @property
    def n(self) -> int:
        """Number of buckets."""
        return len(self.sizes)
