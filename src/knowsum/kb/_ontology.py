"""The read-only :class:`Ontology`: a ``Mapping[str, Term]`` with closure and ID checks."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Literal

from knowsum.kb._store import read_store
from knowsum.kb._syntax import SYNTAX, IdSyntax
from knowsum.kb._term import IS_A, PARENT, PART_OF, Term

__all__ = ["IdStatus", "Ontology"]

#: What an ID string is, as told by :meth:`Ontology.id_status`.
IdStatus = Literal["primary", "alt", "obsolete", "nonexistent", "malformed"]

_DEFAULT_RELATIONS: tuple[str, ...] = (IS_A, PART_OF, PARENT)


class Ontology(Mapping[str, Term]):
    """An installed knowledge base, read-only.

    Indexing accepts primary IDs, alternative IDs (resolving to the primary term) and loosely
    spelled IDs (``go:1822``) that :class:`IdSyntax` canonicalizes. Iteration yields primary IDs
    only, obsolete ones included (filter with ``term.obsolete``).

    Args:
        name: KB name (``"go"``, ``"doid"``…).
        terms: Terms by primary ID.
        alt_ids: Alternative ID → primary ID.
        meta: Store metadata (``release``, ``source``…).
        roots: IDs whose children define :meth:`category` (default: terms with no taxonomy parent).
        taxonomy: The subsumption relation: ``is_a``, or ``parent`` for sources without typed edges.
    """

    def __init__(
        self,
        name: str,
        terms: Mapping[str, Term],
        alt_ids: dict[str, str] | None = None,
        meta: dict[str, str] | None = None,
        roots: Iterable[str] | None = None,
        taxonomy: str = IS_A,
    ) -> None:
        self.name = name
        self._terms = terms
        self._alt = alt_ids or {}
        self.meta = meta or {}
        self.syntax: IdSyntax | None = SYNTAX.get(name)
        self.taxonomy = taxonomy
        self._children: dict[tuple[str, str], list[str]] | None = None
        self._anc_cache: dict[tuple[str, tuple[str, ...]], frozenset[str]] = {}
        self._roots = None if roots is None else tuple(roots)

    @property
    def roots(self) -> tuple[str, ...]:
        """Root terms: as given (DOID: ``DOID:4``), else the non-obsolete terms without an is_a parent."""
        if self._roots is None:
            self._roots = tuple(
                t.id for t in self._terms.values() if not t.obsolete and not t.parents(self.taxonomy)
            )
        return self._roots

    @classmethod
    def open(cls, name: str, path: Path) -> Ontology:
        """Load an ontology from its store file (see :mod:`knowsum.kb._store`)."""
        meta, terms, alts = read_store(path)
        roots = meta.get("roots")
        return cls(name, terms, alts, meta, roots.split() if roots else None, meta.get("taxonomy", IS_A))

    # -- Mapping ---------------------------------------------------------------------------------
    def __getitem__(self, key: str) -> Term:
        tid = self.resolve(key)
        if tid is None:
            raise KeyError(key)
        return self._terms[tid]

    def __iter__(self) -> Iterator[str]:
        return iter(self._terms)

    def __len__(self) -> int:
        return len(self._terms)

    def __repr__(self) -> str:
        return f"Ontology({self.name!r}, {len(self)} terms, release={self.meta.get('release', '?')!r})"

    # -- IDs ---------------------------------------------------------------------------------------
    @property
    def alt_ids(self) -> Mapping[str, str]:
        """Alternative ID → primary ID."""
        return self._alt

    def resolve(self, key: str) -> str | None:
        """Primary ID for a primary, alternative or loosely spelled ID; ``None`` if unknown."""
        if key in self._terms:
            return key
        if key in self._alt:
            return self._alt[key]
        k = self.syntax.normalize(key) if self.syntax else None  # only when the exact key is unknown
        if k is None:
            return None
        return k if k in self._terms else self._alt.get(k)

    def id_status(self, key: str) -> IdStatus:
        """Classify an ID string: existing (primary/alt/obsolete), invented but well-formed, or garbage."""
        tid = self.resolve(key)
        if tid is not None:
            if self._terms[tid].obsolete:
                return "obsolete"
            return "primary" if tid in (key, self.syntax.normalize(key) if self.syntax else key) else "alt"
        if self.syntax is not None and self.syntax.is_well_formed(key):
            return "nonexistent"
        return "malformed"

    # -- Graph -------------------------------------------------------------------------------------
    def parents(self, tid: str, relations: Iterable[str] | None = None) -> tuple[str, ...]:
        """Direct parents of ``tid`` over ``relations`` (``None``: all relations)."""
        rels = None if relations is None else set(relations)
        return tuple(p for r, p in self[tid].relations if rels is None or r in rels)

    def ancestors(self, tid: str, relations: Iterable[str] | None = _DEFAULT_RELATIONS) -> frozenset[str]:
        """All ancestors of ``tid`` (excluding itself) over ``relations`` (default is_a + part_of).

        Parent IDs missing from the ontology (dangling references) are kept as IDs.
        """
        key = (self[tid].id, tuple(sorted(relations)) if relations is not None else ("*",))
        cached = self._anc_cache.get(key)
        if cached is not None:
            return cached
        rels = None if relations is None else set(relations)
        seen: set[str] = set()
        stack = [key[0]]
        while stack:
            term = self._terms.get(stack.pop())
            if term is None:
                continue
            for r, p in term.relations:
                if (rels is None or r in rels) and p not in seen:
                    seen.add(p)
                    stack.append(p)
        result = frozenset(seen)
        self._anc_cache[key] = result
        return result

    def closure(
        self, ids: Iterable[str], relations: Iterable[str] | None = _DEFAULT_RELATIONS
    ) -> frozenset[str]:
        """Upward closure of a set of IDs (the IDs themselves, resolved, plus all ancestors).

        This is the CAFA-style propagation of annotations: a term implies all its ancestors.
        Unknown IDs are ignored.
        """
        rels = tuple(relations) if relations is not None else None
        out: set[str] = set()
        for i in ids:
            tid = self.resolve(i)
            if tid is not None:
                out.add(tid)
                out |= self.ancestors(tid, rels)
        return frozenset(out)

    def children(self, tid: str, relation: str | None = None) -> tuple[str, ...]:
        """Direct children of ``tid`` over one relation (default: the taxonomy relation)."""
        if self._children is None:
            index: dict[tuple[str, str], list[str]] = {}
            for t in self._terms.values():
                for r, p in t.relations:
                    index.setdefault((p, r), []).append(t.id)
            self._children = index
        return tuple(self._children.get((self[tid].id, relation or self.taxonomy), ()))

    def descendants(self, tid: str, relation: str | None = None) -> frozenset[str]:
        """All descendants of ``tid`` (excluding itself) over one relation (default: the taxonomy)."""
        seen: set[str] = set()
        stack = [self[tid].id]
        while stack:
            for c in self.children(stack.pop(), relation):
                if c not in seen:
                    seen.add(c)
                    stack.append(c)
        return frozenset(seen)

    def category(self, tid: str) -> tuple[str, ...]:
        """Top-level categories of ``tid``: the children of a root that are ``tid`` or its is_a ancestors.

        For DOID (root ``DOID:4`` "disease") this is e.g. ``("DOID:7",)`` "disease of anatomical
        entity" for Alzheimer's disease — the KnowSum strict criterion (App. B.4) keeps only those.
        A root itself has no category (``()``).
        """
        term = self[tid]
        lineage = {term.id} | self.ancestors(term.id, (self.taxonomy,))
        roots = set(self.roots)
        return tuple(
            sorted(
                t for t in lineage if t not in roots and set(self._terms[t].parents(self.taxonomy)) & roots
            )
        )

    def is_a(self, tid: str, ancestor: str) -> bool:
        """Whether ``tid`` is ``ancestor`` or descends from it over is_a."""
        a = self[ancestor].id
        t = self[tid].id
        return t == a or a in self.ancestors(t, (self.taxonomy,))

    def labels(self, include_obsolete: bool = False) -> Iterator[tuple[str, str]]:
        """``(ID, label)`` pairs for every name and synonym (primary IDs)."""
        for t in self._terms.values():
            if include_obsolete or not t.obsolete:
                for label in t.labels():
                    yield t.id, label
