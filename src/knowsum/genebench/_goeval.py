"""CAFA-style scoring of predicted GO annotations (Huang et al. App. D "Gene Ontology Annotation").

Following the paper's adaptation of CAFA (Jiang et al. 2016) to language-model output:

1. Every predicted description is normalized (:func:`knowsum.kb.normalize_text`; the GO qualifier —
   ``enables``, ``involved in``, ``located in``, ``part of``… with spaces or underscores — is
   removed) and mapped to a GO ID through a dictionary of the official term names and their
   synonyms. Names win over synonyms; a synonym shared by several terms maps to the lowest ID.
2. Unmappable predictions are excluded and counted apart as hallucinated outputs.
3. Predicted and reference IDs are closed upward over ``is_a`` + ``part_of`` (propagation); the three
   aspect roots (GO:0008150, GO:0003674, GO:0005575) are dropped from both closures, as in CAFA,
   since every annotation implies them.
4. Per gene: precision = |P∩R|/|P|, recall = |P∩R|/|R|, F1 (eq. 2–3); a gene with no mappable
   prediction has precision 0 (stated choice: CAFA's Fmax averages precision over covered proteins
   only). Scores are macro-averaged over genes by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from knowsum.kb import IS_A, PART_OF, Ontology, normalize_text
from knowsum.stats import PRF, set_prf

__all__ = ["GO_ROOTS", "GoMapper", "GoScore"]

GO_ROOTS = frozenset({"GO:0008150", "GO:0003674", "GO:0005575"})
_QUALIFIER = re.compile(
    r"^(?:not\s+)?(?:enables|involved\s+in|located\s+in|part\s+of|is\s+active\s+in|contributes\s+to|"
    r"acts\s+upstream\s+of(?:\s+or\s+within)?(?:\s+(?:positive|negative)\s+effect)?|colocalizes\s+with|"
    r"capable\s+of|has\s+function|is\s+a)\s+"
)


@dataclass(frozen=True, slots=True)
class GoScore:
    """Scores of one gene's predicted annotations against its reference annotations."""

    prf: PRF
    n_predicted: int
    n_mapped: int
    n_unmapped: int
    n_reference: int


class GoMapper:
    """Maps GO descriptions to GO IDs and scores predictions (see the module docstring).

    Args:
        go: The installed Gene Ontology.
    """

    def __init__(self, go: Ontology) -> None:
        self.go = go
        names: dict[str, str] = {}
        synonyms: dict[str, str] = {}
        for tid in go:
            term = go[tid]
            if term.obsolete:
                continue
            names.setdefault(normalize_text(term.name), tid)
            for s in term.synonyms:
                key = normalize_text(s.text)
                if key not in synonyms or tid < synonyms[key]:
                    synonyms[key] = tid
        self._table = {**synonyms, **names}
        self._closure: dict[str, frozenset[str]] = {}

    def map(self, description: str) -> str | None:
        """The GO ID of a description (with or without qualifier), or ``None`` if unmappable."""
        key = normalize_text(description.replace("_", " "))
        tid = self._table.get(key)
        if tid is None:
            stripped = _QUALIFIER.sub("", key, count=1)
            tid = self._table.get(stripped)
        return tid

    def closure(self, ids: Iterable[str]) -> frozenset[str]:
        """Upward closure over is_a + part_of, without the aspect roots."""
        out: set[str] = set()
        for tid in ids:
            c = self._closure.get(tid)
            if c is None:
                c = self.go.closure([tid], (IS_A, PART_OF)) - GO_ROOTS
                self._closure[tid] = c
            out |= c
        return frozenset(out)

    def score(self, predicted: Sequence[str], reference: Sequence[str]) -> GoScore:
        """Score predicted descriptions against reference descriptions of one gene."""
        mapped = [self.map(p) for p in predicted]
        pred_ids = {m for m in mapped if m is not None}
        ref_ids = {m for r in reference if (m := self.map(r)) is not None}
        prf = set_prf(self.closure(pred_ids), self.closure(ref_ids), zero_division=0.0)
        n_unmapped = sum(m is None for m in mapped)
        return GoScore(prf, len(predicted), len(predicted) - n_unmapped, n_unmapped, len(ref_ids))
