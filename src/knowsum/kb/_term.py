"""Value objects of the knowledge-base layer: :class:`Term` and :class:`Synonym`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["IS_A", "PARENT", "PART_OF", "Synonym", "Term"]

#: Relation names used for parents; loaders map source spellings ("isa", "part of") onto these.
IS_A = "is_a"
PART_OF = "part_of"
#: Untyped parent edge, for sources that give ancestors without relation types (cellxgene's Uberon, MONDO).
PARENT = "parent"


@dataclass(frozen=True, slots=True)
class Synonym:
    """One synonym of a term.

    Attributes:
        text: The synonym as written in the source.
        scope: OBO scope (``EXACT``, ``NARROW``, ``BROAD``, ``RELATED``) or a source-specific tag
            (``ALIAS``, ``PREVIOUS`` for HGNC, ``TITLE`` for Wikipedia titles); ``""`` when the
            source does not say.
    """

    text: str
    scope: str = ""


@dataclass(frozen=True, slots=True)
class Term:
    """One entry of an ontology (or of a flat vocabulary such as MeSH or the theorem list).

    Attributes:
        id: Primary identifier (``GO:0001822``, ``DOID:10652``, ``D000544``, ``Q11518``…).
        name: Primary label.
        namespace: GO aspect, ICD level, HGNC locus type, MSC code…; ``""`` when not applicable.
        obsolete: ``True`` for deprecated terms (kept so that recall can tell them apart).
        definition: Textual definition, ``""`` when the source has none.
        synonyms: Synonyms with their scope, in source order.
        alt_ids: Secondary IDs that resolve to this term.
        relations: ``(relation, parent_id)`` pairs, e.g. ``("is_a", "GO:0048513")``.
        xrefs: Cross-references as ``PREFIX:ID`` strings (``MESH:D000544``, ``ICD10CM:G30``).
        properties: Other ``(key, value)`` pairs (tree numbers, locus type, Entrez ID…).
    """

    id: str
    name: str
    namespace: str = ""
    obsolete: bool = False
    definition: str = ""
    synonyms: tuple[Synonym, ...] = ()
    alt_ids: tuple[str, ...] = ()
    relations: tuple[tuple[str, str], ...] = ()
    xrefs: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()

    def parents(self, relation: str | None = None) -> tuple[str, ...]:
        """Direct parents, over one relation or (``None``) all of them."""
        return tuple(p for r, p in self.relations if relation is None or r == relation)

    def labels(self) -> tuple[str, ...]:
        """The name followed by every synonym text (duplicates removed, order kept)."""
        return tuple(dict.fromkeys((self.name, *(s.text for s in self.synonyms))))

    def prop(self, key: str) -> tuple[str, ...]:
        """All values of property ``key``."""
        return tuple(v for k, v in self.properties if k == key)
