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

Beyond the paper's text (App. D says neither), three rules knowsum states:

- **A gene without a reference is not scored.** When no gold annotation maps to a GO term, or the
  mapped ones close to the aspect roots only, the reference set R is empty and P/R/F1 are undefined
  (``set_prf(∅, ∅)`` would give 1 to any reply without a mappable term). CAFA evaluates only the
  proteins that have annotations in the benchmark, so such a gene is left out (:attr:`GoScore.prf` is
  ``None``); the caller counts it and says so in a caveat.
- **Unmapped gold terms are counted** (:attr:`GoScore.n_reference_unmapped`): the reference holds the
  mapped ones only, so its recall is over those; the caller says how many were dropped.
- **A negated annotation is not the positive term.** ``NOT located in nucleus`` (the ``NOT``
  qualifier of GO annotation files) states that the gene is *not* there, so it is left out of the
  predicted set (and out of the reference, should a gold carry it) and counted apart
  (:attr:`GoScore.n_negated`), neither a hit nor a hallucination.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from knowsum.kb import IS_A, PART_OF, Ontology, normalize_text
from knowsum.stats import PRF, set_prf

__all__ = ["GO_ROOTS", "GoMapper", "GoScore"]

GO_ROOTS = frozenset({"GO:0008150", "GO:0003674", "GO:0005575"})
_NOT = re.compile(r"^not\s+")
_QUALIFIER = re.compile(
    r"^(?:not\s+)?(?:enables|involved\s+in|located\s+in|part\s+of|is\s+active\s+in|contributes\s+to|"
    r"acts\s+upstream\s+of(?:\s+or\s+within)?(?:\s+(?:positive|negative)\s+effect)?|colocalizes\s+with|"
    r"capable\s+of|has\s+function|is\s+a)\s+"
)


@dataclass(frozen=True, slots=True)
class GoScore:
    """Scores of one gene's predicted annotations against its reference annotations.

    Attributes:
        prf: Precision, recall, F1 over the closures; ``None`` when the reference closure is empty
            (no gold term maps, or only aspect roots do): the gene cannot be scored.
        n_predicted: Predicted descriptions.
        n_mapped: Predictions mapped to a GO ID (negated ones not counted).
        n_unmapped: Predictions no GO term maps to (hallucinated).
        n_reference: Distinct GO IDs of the reference.
        n_reference_unmapped: Gold descriptions no GO term maps to (left out of the reference).
        n_negated: Predictions negated with ``NOT`` (left out of the predicted set).
    """

    prf: PRF | None
    n_predicted: int
    n_mapped: int
    n_unmapped: int
    n_reference: int
    n_reference_unmapped: int = 0
    n_negated: int = 0


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

    @staticmethod
    def negated(description: str) -> bool:
        """Whether a description is a negated annotation (``NOT located in nucleus``, ``NOT|enables …``)."""
        return _NOT.match(normalize_text(description.replace("_", " ").replace("|", " "))) is not None

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
        """Score predicted descriptions against reference descriptions of one gene (module docstring:
        negated descriptions are left out of both sides; an empty reference closure is not scored)."""
        positive = [p for p in predicted if not self.negated(p)]
        mapped = [self.map(p) for p in positive]
        pred_ids = {m for m in mapped if m is not None}
        refs = [self.map(r) for r in reference if not self.negated(r)]
        ref_ids = {m for m in refs if m is not None}
        ref_closure = self.closure(ref_ids)
        prf = set_prf(self.closure(pred_ids), ref_closure, zero_division=0.0) if ref_closure else None
        n_unmapped = sum(m is None for m in mapped)
        return GoScore(
            prf,
            len(predicted),
            len(positive) - n_unmapped,
            n_unmapped,
            len(ref_ids),
            n_reference_unmapped=sum(m is None for m in refs),
            n_negated=len(predicted) - len(positive),
        )
