"""Map free text to ontology IDs: exact → normalized → fuzzy.

Stages (:class:`Match.stage`):

1. ``exact`` — the stripped text equals a name or synonym as written.
2. ``normalized`` — equal after :func:`~knowsum.kb._normalize.normalize_text` (case, whitespace,
   punctuation, dashes, possessive 's, quotes, Greek letters, trailing ``(DOID:1234)`` qualifiers).
3. ``fuzzy`` — the best normalized label by rapidfuzz ``fuzz.ratio`` (normalized Indel similarity,
   ``100·(1 − d_indel/(|a|+|b|))``) if it reaches the cut-off, default 0.9 as in KnowSum
   (Li et al. 2025, App. B.3: "fuzzy string comparison via rapidfuzz, similarity threshold 0.9").

Labels are names first, then EXACT synonyms, then the other synonyms; when two terms share a
(normalized) label the first one in that order wins, and among equal fuzzy scores the first label
wins — exactly what ``rapidfuzz.process.extractOne`` over :attr:`Matcher.choices` returns.

:meth:`Matcher.match_many` gives the same answers as calling :meth:`Matcher.match` per string, but
vectorized: duplicates are matched once, exact/normalized hits are dictionary lookups, and the rest
is scored with ``rapidfuzz.process.cdist(..., workers=-1)`` after a lossless length *blocking* step:
since ``d_indel ≥ |len(a) − len(b)|``, a pair can reach similarity ``s`` only if
``|len(a) − len(b)| ≤ (1 − s)(len(a) + len(b))``, so each query is compared only with labels in
that length window.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from rapidfuzz import fuzz, process

from knowsum.errors import InputError
from knowsum.kb._normalize import normalize_text
from knowsum.kb._term import Term

__all__ = ["Match", "Matcher", "Stage"]

Stage = Literal["exact", "normalized", "fuzzy", "search"]
_CHUNK = 512


@dataclass(frozen=True, slots=True)
class Match:
    """One match of a query.

    Attributes:
        query: The text as given.
        id: Primary ID of the matched term.
        name: Primary name of the matched term.
        matched: The label (name or synonym, as written in the source) that matched.
        score: Similarity in [0, 1] (1.0 for exact and normalized matches).
        stage: ``exact``, ``normalized``, ``fuzzy`` (or ``search`` for :meth:`Matcher.search`).
    """

    query: str
    id: str
    name: str
    matched: str
    score: float
    stage: Stage


class Matcher:
    """Free-text → ID matcher over the names and synonyms of an ontology.

    Args:
        terms: An :class:`~knowsum.kb.Ontology` or any mapping of ID → :class:`Term`.
        cutoff: Minimum fuzzy similarity in (0, 1]; default 0.9 (KnowSum App. B.3).
        include_obsolete: Also match labels of obsolete terms.
    """

    def __init__(
        self, terms: Mapping[str, Term], cutoff: float = 0.9, include_obsolete: bool = False
    ) -> None:
        if not 0.0 < cutoff <= 1.0:
            raise InputError(f"matcher cut-off must be in (0, 1], got {cutoff}")
        self.cutoff = cutoff
        live = [t for t in terms.values() if include_obsolete or not t.obsolete]
        labelled: list[tuple[str, str]] = [(t.id, t.name) for t in live]
        labelled += [(t.id, s.text) for t in live for s in t.synonyms if s.scope == "EXACT"]
        labelled += [(t.id, s.text) for t in live for s in t.synonyms if s.scope != "EXACT"]
        self._names = {t.id: t.name for t in live}
        self._exact: dict[str, tuple[str, str]] = {}
        index: dict[str, int] = {}
        ids: list[str] = []
        labels: list[str] = []
        for tid, label in labelled:
            raw = label.strip()
            if raw and raw not in self._exact:
                self._exact[raw] = (tid, label)
            norm = normalize_text(label)
            if norm and norm not in index:
                index[norm] = len(ids)
                ids.append(tid)
                labels.append(label)
        self._index = index
        self.choices: list[str] = list(index)
        """Unique normalized labels, in priority order (what the fuzzy stage scores against)."""
        self.choice_ids: list[str] = ids
        self.choice_labels: list[str] = labels
        lengths = np.fromiter((len(c) for c in self.choices), dtype=np.int64, count=len(self.choices))
        self._order = np.argsort(lengths, kind="stable")
        self._sorted_len = lengths[self._order]

    def __len__(self) -> int:
        return len(self.choices)

    @property
    def exact_labels(self) -> Mapping[str, tuple[str, str]]:
        """Stage 1 table: stripped label as written → ``(ID, label)`` (first owner in priority order)."""
        return self._exact

    def _make(self, query: str, idx: int, score: float, stage: Stage) -> Match:
        tid = self.choice_ids[idx]
        return Match(query, tid, self._names[tid], self.choice_labels[idx], score, stage)

    def _lookup(self, query: str) -> Match | str | None:
        """Exact or normalized match, else the normalized query (``None`` if nothing word-like)."""
        hit = self._exact.get(query.strip())
        if hit is not None:
            return Match(query, hit[0], self._names[hit[0]], hit[1], 1.0, "exact")
        norm = normalize_text(query)
        if not norm:
            return None
        idx = self._index.get(norm)
        return self._make(query, idx, 1.0, "normalized") if idx is not None else norm

    def match(self, text: str) -> Match | None:
        """Best match of one string, or ``None`` below the cut-off.

        Raises:
            InputError: ``text`` is empty or blank.
        """
        if not text or not text.strip():
            raise InputError("empty text to match: give a non-blank string")
        found = self._lookup(text)
        if not isinstance(found, str):
            return found
        best = process.extractOne(
            found, self.choices, scorer=fuzz.ratio, processor=None, score_cutoff=self.cutoff * 100
        )
        return None if best is None else self._make(text, best[2], best[1] / 100, "fuzzy")

    def match_many(self, texts: Iterable[str]) -> list[Match | None]:
        """Match many strings at once (same results as :meth:`match`; blank strings give ``None``)."""
        queries = list(texts)
        positions: dict[str, list[int]] = {}  # identical strings are matched once
        for i, q in enumerate(queries):
            positions.setdefault(q, []).append(i)
        out: list[Match | None] = [None] * len(queries)
        pending: dict[str, list[str]] = {}  # normalized query -> the raw strings that gave it
        for q, where in positions.items():
            found = self._lookup(q) if q and q.strip() else None
            if isinstance(found, str):
                pending.setdefault(found, []).append(q)
            else:
                for i in where:
                    out[i] = found
        best = self._fuzzy_batch(list(pending))
        for norm, (idx, score) in zip(pending, best, strict=True):
            if idx >= 0:
                for q in pending[norm]:
                    m = self._make(q, idx, score / 100, "fuzzy")
                    for i in positions[q]:
                        out[i] = m
        return out

    def _window(self, length: int) -> tuple[int, int]:
        r = 1.0 - self.cutoff
        lo = 0 if r >= 1 else math.floor(length * (1 - r) / (1 + r)) - 1
        hi = len(self._sorted_len) if r >= 1 else math.ceil(length * (1 + r) / max(1 - r, 1e-9)) + 1
        a = int(np.searchsorted(self._sorted_len, lo, side="left"))
        b = int(np.searchsorted(self._sorted_len, hi, side="right"))
        return a, b

    def _fuzzy_batch(self, norms: Sequence[str]) -> list[tuple[int, float]]:
        """``(choice index or -1, score 0-100)`` per normalized query, via blocked ``cdist``.

        Ties must go to the first label in priority order (as ``extractOne`` does), so within a
        length window the labels are scored in their original order and ``argmax`` (first maximum)
        picks the winner. Scores are fractions ``100·k/(|a|+|b|)``: two different ones differ by at
        least ``100/(|a|+|b|)²`` (> 6e-4 below 400 characters), far above float32 resolution.
        """
        result: list[tuple[int, float]] = [(-1, 0.0)] * len(norms)
        by_len: dict[int, list[int]] = {}
        for i, q in enumerate(norms):
            by_len.setdefault(len(q), []).append(i)
        cutoff = self.cutoff * 100
        for length, rows in by_len.items():
            a, b = self._window(length)
            if a >= b:
                continue
            cols = np.sort(self._order[a:b])
            window = [self.choices[i] for i in cols]
            for start in range(0, len(rows), _CHUNK):
                chunk = rows[start : start + _CHUNK]
                scores = process.cdist(
                    [norms[i] for i in chunk],
                    window,
                    scorer=fuzz.ratio,
                    processor=None,
                    score_cutoff=cutoff,
                    dtype=np.float32,
                    workers=-1,
                )
                best = scores.argmax(axis=1)
                found = scores[np.arange(len(chunk)), best] > 0
                for row in np.flatnonzero(found):
                    qi, idx = chunk[row], int(cols[best[row]])
                    result[qi] = (idx, float(fuzz.ratio(norms[qi], self.choices[idx])))
        return result

    def search(self, text: str, limit: int = 5) -> list[Match]:
        """The best few candidate terms for ``text``, one per ID, no cut-off.

        Candidates are ranked by rapidfuzz ``WRatio`` (which rewards partial and token matches),
        ties broken by ``ratio`` (closer overall length first).
        """
        if not text or not text.strip():
            raise InputError("empty text to search: give a non-blank string")
        norm = normalize_text(text) or text.strip().casefold()
        hits = process.extract(
            norm, self.choices, scorer=fuzz.WRatio, processor=None, limit=max(limit * 10, 50)
        )
        ranked = sorted(hits, key=lambda h: (-h[1], -fuzz.ratio(norm, h[0]), h[2]))
        seen: dict[str, Match] = {}
        for _choice, score, idx in ranked:
            tid = self.choice_ids[idx]
            if tid not in seen:
                seen[tid] = self._make(text, idx, score / 100, "search")
        return list(seen.values())[:limit]
