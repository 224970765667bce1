"""The per-task question makers of genebench and the indexes they share (see :mod:`._build`).

Distractors are drawn so that they are plausible and never valid: lexically close full names and
designations (rapidfuzz ratio among texts sharing the first or last word), aliases of other genes,
locations of other genes, genes of one other type for the odd-one-out — each checked against every
valid value of the gene (normalized with :func:`knowsum.kb.normalize_text`).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from knowsum.genebench._prompts import EVIDENCE_ORDER
from knowsum.genebench._schema import (
    NO_RIGHT_ANSWER,
    TASKS,
    ExpressionAnswer,
    GoAnswer,
    Question,
    content_hash,
)
from knowsum.genebench._userdata import Expression
from knowsum.kb import GeneRecord, Ontology, normalize_text

__all__ = [
    "EXCLUDED_TYPES",
    "TASKS",
    "WORDING",
    "BuildInputs",
    "Builder",
    "is_placeholder_name",
    "single_gold",
]

#: Question text by task (Fig. 10; ``{}`` is the gene symbol). Q7 is the released wording, which adds
#: "all" to Fig. 10's "What are the Gene Ontology annotations for SMCHD1?".
WORDING: dict[str, str] = {
    "Q1": "Select the full name of {} gene.",
    "Q2-A": "Select the synonyms of {} gene.",
    "Q2-B": "Select the synonyms of {} gene.",
    "Q3-A": "Select the chromosome location of {} gene.",
    "Q3-B": "Select the chromosome location of {} gene.",
    "Q4": "Select the gene symbol that does not belong to the same gene type as the other three.",
    "Q5": "Select all the related proteins of {} gene.",
    "Q6": "What is the expression pattern of {} gene?",
    "Q7": "What are all the Gene Ontology annotations for {}?",
    "Q8": "What is the functional summary of {}?",
}
#: Gene types never used by Q4 (the release asks "unknown" and "other" genes too; only no type is out).
EXCLUDED_TYPES = frozenset({""})
_PLACEHOLDER = re.compile(r"uncharacterized LOC\d+")


def is_placeholder_name(name: str) -> bool:
    """Whether a full name is the placeholder ``uncharacterized LOC<id>`` (answerable from the symbol)."""
    return _PLACEHOLDER.fullmatch(name) is not None


_COMPLEX = "GO:0032991"
_QUALIFIER = {"MF": "enables", "BP": "involved_in", "CC": "located_in"}
_CANDIDATES = 150


@dataclass(frozen=True)
class BuildInputs:
    """Everything questions are built from.

    Attributes:
        genes: Gene records (the pool questions are asked about, and distractors come from).
        go: The Gene Ontology (term names and the ``part_of`` qualifier); ``None`` skips Q7.
        expression: Gene (symbol or Entrez ID) → expression pattern (Q6); ``None`` skips Q6.
        summaries: Gene → functional summary (Q8); ``None`` skips Q8.
        abstracts: PubMed ID → abstract (the "with abstracts" form of Q7/Q8); ``None`` for none.
        max_abstracts: Abstracts joined into one context (the lowest PMIDs first; the release joins
            2–10 with ``\\n---\\n``).
    """

    genes: Sequence[GeneRecord]
    go: Ontology | None = None
    expression: Mapping[str, Expression] | None = None
    summaries: Mapping[str, str] | None = None
    abstracts: Mapping[int, str] | None = None
    max_abstracts: int = 10


def _locations(rec: GeneRecord) -> tuple[str, ...]:
    """``CHR;BAND`` strings of a gene (``17;17p13.1``); the band's own chromosome when several."""
    out = []
    for band in rec.bands:
        chrom = next((c for c in rec.chromosomes if band.startswith(c)), rec.chromosome)
        out.append(f"{chrom};{band}")
    return tuple(out)


_NORM: dict[str, str] = {}


def _norm(text: str) -> str:
    """:func:`normalize_text`, memoized (the same aliases, names and locations recur)."""
    n = _NORM.get(text)
    if n is None:
        if len(_NORM) > 2_000_000:
            _NORM.clear()
        n = _NORM[text] = normalize_text(text)
    return n


def _letters(texts: Sequence[str]) -> dict[str, str]:
    return {chr(ord("A") + i): t for i, t in enumerate(texts)}


class Builder:
    """Indexes over the gene pool, built once, and one method per task."""

    def __init__(self, inputs: BuildInputs, seed: int) -> None:
        self.inputs = inputs
        self.seed = seed
        self.genes = list(inputs.genes)
        self.locs = [_locations(g) for g in self.genes]
        self.loc_pool = sorted({loc for locs in self.locs for loc in locs})
        self.alias_pool: list[tuple[str, int]] = [
            (a, i) for i, g in enumerate(self.genes) for a in g.aliases if a != g.symbol
        ]
        self.names = [g.name for g in self.genes]
        self.name_index = self._word_index(self.names)
        self.designations: list[str] = sorted({d for g in self.genes for d in g.designations})
        self.designation_index = self._word_index(self.designations)
        self.loc = [g.is_loc for g in self.genes]
        by_type: dict[tuple[str, bool], list[int]] = defaultdict(list)
        for i, g in enumerate(self.genes):
            if g.gene_type not in EXCLUDED_TYPES:
                by_type[(g.gene_type, self.loc[i])].append(i)
        self.by_type = dict(by_type)
        #: LOC flag → gene types with at least 3 genes in that group (the odd one out needs 3).
        self.types_with_3 = {
            flag: sorted(t for (t, lf), ids in self.by_type.items() if lf == flag and len(ids) >= 3)
            for flag in (False, True)
        }
        self._go_cache: dict[str, tuple[str, str, bool] | None] = {}

    @staticmethod
    def _word_index(texts: Sequence[str]) -> dict[str, list[int]]:
        index: dict[str, list[int]] = defaultdict(list)
        for i, t in enumerate(texts):
            words = t.split()
            if words:
                index["^" + words[0].lower()].append(i)
                index["$" + words[-1].lower()].append(i)
        return dict(index)

    def rng(self, task: str) -> random.Random:
        return random.Random(f"{self.seed}:{task}")

    # -- distractors ----------------------------------------------------------------------------
    def _close(
        self,
        rng: random.Random,
        target: str,
        texts: Sequence[str],
        index: Mapping[str, list[int]],
        k: int,
        invalid: set[str],
    ) -> list[str]:
        """``k`` texts lexically closest to ``target`` among those sharing its first or last word."""
        if k <= 0:
            return []
        words = target.split()
        cand: set[int] = set()
        for key in ("^" + words[0].lower(), "$" + words[-1].lower()) if words else ():
            pool = index.get(key, [])
            if len(pool) <= _CANDIDATES:
                cand.update(pool)
            else:  # a random window: cheap, and the ranking below picks the closest texts
                start = rng.randrange(len(pool) - _CANDIDATES + 1)
                cand.update(pool[start : start + _CANDIDATES])
        choices = sorted({texts[i] for i in cand})
        ranked = [m[0] for m in process.extract(target, choices, scorer=fuzz.ratio, limit=k + 12)]
        out: list[str] = []
        seen = set(invalid)
        for text in ranked:
            n = _norm(text)
            if n not in seen:
                seen.add(n)
                out.append(text)
            if len(out) == k:
                return out
        return out + self._random_texts(rng, texts, k - len(out), seen)

    @staticmethod
    def _random_texts(rng: random.Random, texts: Sequence[str], k: int, invalid: set[str]) -> list[str]:
        out: list[str] = []
        seen = set(invalid)
        for _ in range(50 * max(k, 1)):
            if len(out) == k or not texts:
                break
            t = texts[rng.randrange(len(texts))]
            n = _norm(t)
            if n not in seen:
                seen.add(n)
                out.append(t)
        return out

    def _other_aliases(self, rng: random.Random, i: int, k: int) -> list[str]:
        g = self.genes[i]
        invalid = {_norm(a) for a in (g.symbol, *g.aliases)}
        out: list[str] = []
        for _ in range(50 * k):
            if len(out) == k or not self.alias_pool:
                break
            alias, owner = self.alias_pool[rng.randrange(len(self.alias_pool))]
            n = _norm(alias)
            if owner != i and n not in invalid:
                invalid.add(n)
                out.append(alias)
        return out

    # -- question assembly ----------------------------------------------------------------------
    def _choice(
        self,
        task: str,
        i: int,
        question: str,
        correct: Sequence[str],
        wrong: Sequence[str],
        rng: random.Random,
    ) -> Question | None:
        qtype, _knowledge, _perspective = TASKS[task]
        texts = [*correct, *wrong]
        if len(texts) != 4 or len({_norm(t) for t in texts}) != 4:
            return None  # not enough distinct distractors for this gene
        order = list(range(4))
        rng.shuffle(order)
        options = _letters([texts[j] for j in order])
        gold = [chr(ord("A") + pos) for pos, j in enumerate(order) if j < len(correct)]
        answer: str | list[str] = gold[0] if qtype == "single_choice" else gold
        return self.question(task, i, question, options, answer, None, "loc" if self.loc[i] else "non-loc")

    def question(
        self,
        task: str,
        i: int,
        question: str,
        options: dict[str, str] | None,
        answer: object,
        context: str | None,
        flag: str,
    ) -> Question:
        qtype, knowledge, perspective = TASKS[task]
        g = self.genes[i]
        # Built valid by construction (tests validate every built question): no per-question validation.
        fields: dict[str, Any] = {
            "question_index": content_hash(qtype, knowledge, question, options, context),
            "question_type": qtype,
            "knowledge": knowledge,
            "question": question,
            "options": options,
            "answer": answer,
            "context": context,
            "batch_id": None,
            "perspective": perspective,
            "flag": flag,
            "task": task,
            "gene": g.symbol,
            "gene_id": g.gene_id,
            "pubmed_count": g.pubmed_count,
        }
        return _trusted(fields)

    def q1(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        invalid = {_norm(g.name), *(_norm(d) for d in g.designations)}
        wrong = self._close(rng, g.name, self.names, self.name_index, 3, invalid)
        return self._choice("Q1", i, WORDING["Q1"].format(g.symbol), [g.name], wrong, rng)

    def q2a(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        correct = [NO_RIGHT_ANSWER] if not g.aliases else [g.aliases[0], NO_RIGHT_ANSWER]
        wrong = self._other_aliases(rng, i, 4 - len(correct))
        q = self._choice("Q2-A", i, WORDING["Q2-A"].format(g.symbol), correct, wrong, rng)
        return None if q is None else single_gold(q, correct[0])

    def q2b(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        gold = rng.sample(list(g.aliases), 2)  # every released Q2-B question has exactly 2 correct
        wrong = self._other_aliases(rng, i, 4 - len(gold))
        return self._choice("Q2-B", i, WORDING["Q2-B"].format(g.symbol), gold, wrong, rng)

    def _other_locations(self, rng: random.Random, i: int, k: int) -> list[str]:
        return self._random_texts(rng, self.loc_pool, k, {_norm(x) for x in self.locs[i]})

    def q3a(self, i: int, rng: random.Random) -> Question | None:
        gold = self.locs[i][0]
        wrong = self._other_locations(rng, i, 3)
        return self._choice("Q3-A", i, WORDING["Q3-A"].format(self.genes[i].symbol), [gold], wrong, rng)

    def q3b(self, i: int, rng: random.Random) -> Question | None:
        correct = [self.locs[i][0], NO_RIGHT_ANSWER] if self.locs[i] else [NO_RIGHT_ANSWER]
        wrong = self._other_locations(rng, i, 4 - len(correct))
        text = WORDING["Q3-B"].format(self.genes[i].symbol)
        q = self._choice("Q3-B", i, text, correct, wrong, rng)
        return None if q is None else single_gold(q, correct[0])

    def q4(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        loc = self.loc[i]
        others = [t for t in self.types_with_3[loc] if t != g.gene_type]
        if not others:
            return None
        pool = self.by_type[(rng.choice(others), loc)]
        same = [self.genes[j].symbol for j in rng.sample(pool, 3)]
        text = WORDING["Q4"]
        return self._choice("Q4", i, text, [g.symbol], same, rng)

    def q5(self, i: int, rng: random.Random) -> Question | None:
        g = self.genes[i]
        # all the gene's related proteins, up to 4 (the release asks 2–4 correct of 4 options)
        gold = rng.sample(list(g.designations), min(len(g.designations), 4))
        invalid = {_norm(x) for x in (*g.designations, g.name)}
        wrong = self._close(rng, gold[0], self.designations, self.designation_index, 4 - len(gold), invalid)
        return self._choice("Q5", i, WORDING["Q5"].format(g.symbol), gold, wrong, rng)

    def q6(self, i: int, expr: Expression) -> Question:
        answer = ExpressionAnswer(tissue_list=expr.tissues, category=expr.category)
        g = self.genes[i]
        flag = "loc" if self.loc[i] else "non-loc"
        return self.question("Q6", i, WORDING["Q6"].format(g.symbol), None, answer, None, flag)

    def _go_term(self, go_id: str) -> tuple[str, str, bool] | None:
        """``(primary ID, name, is a complex)`` of a live GO term, memoized; ``None`` if unknown/obsolete."""
        if go_id in self._go_cache:
            return self._go_cache[go_id]
        go = self.inputs.go
        assert go is not None
        tid = go.resolve(go_id)
        info = None
        if tid is not None and not go[tid].obsolete:
            info = (tid, go[tid].name, _COMPLEX in go and go.is_a(tid, _COMPLEX))
        self._go_cache[go_id] = info
        return info

    def go_answers(self, rec: GeneRecord) -> list[GoAnswer]:
        best: dict[str, tuple[int, str, str]] = {}
        names: dict[str, tuple[str, bool]] = {}
        for ann in rec.go:
            info = self._go_term(ann.go_id)
            if info is None:
                continue
            tid = info[0]
            names[tid] = info[1:]
            rank = (
                EVIDENCE_ORDER.index(ann.evidence) if ann.evidence in EVIDENCE_ORDER else len(EVIDENCE_ORDER)
            )
            if tid not in best or rank < best[tid][0]:
                best[tid] = (rank, ann.evidence, ann.aspect)
        out = []
        for tid, (_, evidence, aspect) in sorted(best.items()):
            name, is_complex = names[tid]
            qualifier = "part_of" if aspect == "CC" and is_complex else _QUALIFIER.get(aspect, "involved_in")
            out.append(GoAnswer(go=f"{qualifier} {name}", evidence=evidence))
        return out

    def context(self, rec: GeneRecord, pmids: Sequence[int]) -> str:
        abstracts = self.inputs.abstracts or {}
        texts = [abstracts[p] for p in sorted(pmids) if p in abstracts][: self.inputs.max_abstracts]
        return "\n---\n".join(texts)


_FIELDS = frozenset(Question.model_fields)


def _trusted(fields: dict[str, Any]) -> Question:
    """A :class:`Question` from values built valid by construction, without pydantic's per-instance work.

    What ``model_construct`` does, for every field given (2 µs instead of 20 µs: a full build makes
    400,000 questions). Every built question is validated by the tests (file round trip).
    """
    q = Question.__new__(Question)
    object.__setattr__(q, "__dict__", fields)
    object.__setattr__(q, "__pydantic_fields_set__", set(_FIELDS))
    object.__setattr__(q, "__pydantic_extra__", None)
    object.__setattr__(q, "__pydantic_private__", None)
    return q


def single_gold(q: Question, gold_text: str) -> Question:
    letter = next(k for k, v in (q.options or {}).items() if v == gold_text)
    return q.model_copy(update={"answer": letter})
