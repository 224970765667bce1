"""Verification (KnowSum Algorithm 1, step 2): is a decoded item real knowledge, and which one?

Each verifier maps item texts to :class:`Verdict` objects in one batch call (the KB verifiers go
through :meth:`knowsum.kb.Matcher.match_many`: exact → normalized → fuzzy at cut-off 0.9, App. B.3).
A verdict's ``status`` is:

- ``valid`` — matched and passes the criterion; its ``id`` is the cluster key (DOID, Wikidata ID…);
- ``excluded`` — matched, but fails the strict criterion (e.g. a DOID disease outside "disease of
  anatomical entity", App. B.4);
- ``unverified`` — theorems only: not in the (small) theorem list, but its text passes the name
  rule of the criterion; reported apart, never counted;
- ``invalid`` — no match (hallucination, misspelling beyond the cut-off, non-item text).

A text of the form ``A (B)`` that matches nothing as a whole is retried as ``A``, then ``B``
(models often write "COPD (chronic obstructive pulmonary disease)").

Criteria: diseases strict = the one DO category of the term (rule
:data:`knowsum.kb.STRICT_RULE`, see :mod:`knowsum.kb._categories`) is ``DOID:7`` (disease of
anatomical entity), relaxed = any term under ``DOID:4`` (disease). Theorems strict = the canonical
name contains "theorem", relaxed = it contains one of
:data:`~knowsum.census._tasks.CONCEPT_WORDS`, in any of the word forms of
:mod:`knowsum.census._words` (plural, Latin/Greek plural, possessive, any case).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from knowsum.census._tasks import CONCEPT_WORDS, Task
from knowsum.census._words import words_rule
from knowsum.census.record import KBCategories
from knowsum.errors import ConfigError
from knowsum.kb import PAPER_FIG10, STRICT_RULE, Ontology, assign_categories, category_counts, normalize_text

if TYPE_CHECKING:
    from knowsum.kb import Match

__all__ = [
    "ANATOMICAL",
    "DISEASE_ROOT",
    "Status",
    "Verdict",
    "Verifier",
    "criterion_words",
    "make_verifier",
    "words_rule",
]

Status = Literal["valid", "excluded", "unverified", "invalid"]
_PAREN = re.compile(r"\s*([^()]+?)\s*\(\s*([^()]+?)\s*\)\s*")
DISEASE_ROOT = "DOID:4"
"""DOID "disease": the relaxed disease criterion accepts anything under it."""
ANATOMICAL = "DOID:7"
"""DOID "disease of anatomical entity": the strict disease criterion (App. B.4)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """The verifier's decision on one item.

    Attributes:
        status: ``valid``, ``excluded``, ``unverified`` or ``invalid`` (module docstring).
        key: Cluster key: the matched ID (KB tasks) or the normalized text (unverified text tasks).
        name: Canonical name of the matched term (or the item text).
        score: Match similarity in [0, 1], or ``None``.
        stage: ``exact``, ``normalized``, ``fuzzy`` or ``None``.
        claimed_ok: Whether the identifier the model claimed resolves to the matched term
            (``None`` when no ID was claimed or nothing matched).
    """

    status: Status
    key: str | None = None
    name: str | None = None
    score: float | None = None
    stage: str | None = None
    claimed_ok: bool | None = None


def criterion_words(task: Task, criterion: str) -> tuple[str, ...]:
    """The words of the name rule: theorems strict ``("theorem",)``, relaxed the twelve
    :data:`CONCEPT_WORDS`; a custom task's ``name_words`` under strict; else none."""
    if task.kind == "theorems":
        return ("theorem",) if criterion == "strict" else CONCEPT_WORDS
    if criterion == "strict" and task.name_words:
        return task.name_words
    return ()


class Verifier:
    """Base verifier: every item is valid and clusters by its normalized text (custom, no KB)."""

    def __init__(self, task: Task, criterion: str) -> None:
        self.task = task
        self.criterion = criterion

    def verify(self, texts: Sequence[str], claimed: Sequence[str | None]) -> list[Verdict]:
        """One verdict per text (``claimed`` = the ID each item claimed, aligned with ``texts``)."""
        out = []
        for text in texts:
            key = normalize_text(text)
            out.append(Verdict("valid", key, text, None, None) if key else Verdict("invalid"))
        return out

    def kb_releases(self) -> dict[str, str]:
        """Knowledge base → the release the items are judged against (none here)."""
        return {}


class KBVerifier(Verifier):
    """Match against a knowledge base, then apply the task's criterion to the matched term."""

    def __init__(self, task: Task, criterion: str, ontology: Ontology, cutoff: float) -> None:
        from knowsum.kb import Matcher

        super().__init__(task, criterion)
        self.ontology = ontology
        self.matcher = Matcher(ontology, cutoff=cutoff)
        words = criterion_words(task, criterion)
        self.name_rule = words_rule(words) if words else None
        self._passes: dict[str, bool] = {}
        self._categories: dict[str, tuple[str, ...]] | None = None

    def _passes_uncached(self, tid: str) -> bool:
        term = self.ontology[tid]
        if self.task.namespace is not None and term.namespace != self.task.namespace:
            return False
        if self.task.kind == "diseases":
            if self.criterion == "strict":
                return self.categories().get(tid) == (ANATOMICAL,)
            return tid == DISEASE_ROOT or self.ontology.is_a(tid, DISEASE_ROOT)
        if self.name_rule is not None:
            return bool(self.name_rule.search(term.name))
        return True

    def categories(self) -> dict[str, tuple[str, ...]]:
        """One top-level category per term by :data:`~knowsum.kb.STRICT_RULE` (computed once)."""
        if self._categories is None:
            self._categories = assign_categories(self.ontology, STRICT_RULE)
        return self._categories

    def category_record(self) -> KBCategories:
        """The KB's category distribution under the strict rule, with the paper's Fig. 10 figure."""
        counts, total = category_counts(self.categories())
        names = {c: (self.ontology[c].name if c in self.ontology else c) for c in counts}
        paper = {self.ontology[ANATOMICAL].name: PAPER_FIG10[ANATOMICAL], "total": PAPER_FIG10["total"]}
        return KBCategories(
            kb=self.ontology.name,
            rule=STRICT_RULE,
            counts={names[c]: n for c, n in counts.items()},
            total=total,
            strict=self.ontology[ANATOMICAL].name,
            paper=paper,
        )

    def kb_releases(self) -> dict[str, str]:
        """The verifier's KB and its installed release (``{}`` when the store does not say)."""
        release = self.ontology.meta.get("release", "")
        return {self.ontology.name: release} if release else {}

    def passes(self, tid: str) -> bool:
        """Whether matched term ``tid`` satisfies the criterion (cached per term)."""
        hit = self._passes.get(tid)
        if hit is None:
            hit = self._passes[tid] = self._passes_uncached(tid)
        return hit

    def _claimed(self, claim: str | None, match: Match) -> bool | None:
        if claim is None:
            return None
        return self.ontology.resolve(claim) == match.id

    def _retry_parentheses(self, matches: dict[str, Match | None]) -> None:
        """``COPD (chronic obstructive pulmonary disease)``: when the whole text matches nothing,
        try the part before the parenthesis, then the part inside it."""
        retry: dict[str, list[str]] = {}
        for text, m in matches.items():
            found = _PAREN.fullmatch(text) if m is None else None
            if found is not None:
                retry[text] = [found.group(1), found.group(2)]
        if not retry:
            return
        parts = list(dict.fromkeys(p for pair in retry.values() for p in pair))
        got = dict(zip(parts, self.matcher.match_many(parts), strict=True))
        for text, pair in retry.items():
            matches[text] = got[pair[0]] or got[pair[1]]

    def _decide(self, text: str, claim: str | None, m: Match | None) -> Verdict:
        if m is None:
            if self.task.kind == "theorems" and self.name_rule is not None and self.name_rule.search(text):
                return Verdict("unverified", normalize_text(text) or text, text)
            return Verdict("invalid")
        status: Status = "valid" if self.passes(m.id) else "excluded"
        return Verdict(status, m.id, m.name, round(m.score, 4), m.stage, self._claimed(claim, m))

    def verify(self, texts: Sequence[str], claimed: Sequence[str | None]) -> list[Verdict]:
        """Batch-match ``texts`` (each distinct text once) and decide each one (module docstring).

        Identical ``(text, claimed ID)`` pairs share one :class:`Verdict` object.
        """
        unique = list(dict.fromkeys(texts))
        matches = dict(zip(unique, self.matcher.match_many(unique), strict=True))
        self._retry_parentheses(matches)
        decided: dict[tuple[str, str | None], Verdict] = {}
        out: list[Verdict] = []
        for pair in zip(texts, claimed, strict=True):
            verdict = decided.get(pair)
            if verdict is None:
                verdict = decided[pair] = self._decide(pair[0], pair[1], matches[pair[0]])
            out.append(verdict)
        return out


def _vocabulary(task: Task) -> Ontology:
    """A plug-in task's vocabulary, built; what its ``vocabulary()`` raises is one line naming it."""
    assert task.vocabulary is not None
    try:
        vocabulary = task.vocabulary()
    except Exception as exc:  # plug-in code: its failure is named, never a traceback
        raise ConfigError(
            f"census task {task.name!r}: its vocabulary() failed: {type(exc).__name__}: {exc}; "
            "fix or uninstall the package that registers it"
        ) from None
    if not isinstance(vocabulary, Ontology):
        raise ConfigError(
            f"census task {task.name!r}: its vocabulary() returned a {type(vocabulary).__name__}, "
            "not a knowsum.kb.Ontology"
        )
    return vocabulary


def make_verifier(task: Task, criterion: str, cutoff: float) -> Verifier:
    """The verifier of ``task`` (loads its KB; diversity tasks get the pass-through verifier).

    Raises:
        KBNotInstalledError: the task's KB is not installed (the message gives the command).
    """
    if task.vocabulary is not None:
        return KBVerifier(task, criterion, _vocabulary(task), cutoff)
    if task.kb is None:
        return Verifier(task, criterion)
    from knowsum.kb import load_ontology

    return KBVerifier(task, criterion, load_ontology(task.kb), cutoff)
