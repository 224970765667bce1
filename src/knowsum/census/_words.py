"""The relaxed theorem criterion's twelve words, with their word forms (KnowSum §4.1, App. B.4).

The paper accepts a math concept whose name contains one of twelve words — theorem, lemma, law,
principle, formula, criterion, identity, conjecture, rule, equation, postulate, corollary — and,
under the strict criterion, only "theorem". It does not say how word forms are treated; knowsum
matches each word as a whole word, case-insensitively, in the forms of :data:`WORD_FORMS`: the
singular, the English plural, the Latin/Greek plural where the word has one (formulae, criteria,
lemmata, theoremata), the Latin singular *theorema* (as in "Theorema Egregium"), and any of these
followed by a possessive apostrophe ("Kepler's laws'", "Fermat's theorem's").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType

__all__ = ["WORD_FORMS", "matched_words", "words_rule"]

WORD_FORMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "theorem": ("theorem", "theorems", "theorema", "theoremata"),
        "lemma": ("lemma", "lemmas", "lemmata"),
        "law": ("law", "laws"),
        "principle": ("principle", "principles"),
        "formula": ("formula", "formulas", "formulae"),
        "criterion": ("criterion", "criteria", "criterions"),
        "identity": ("identity", "identities"),
        "conjecture": ("conjecture", "conjectures"),
        "rule": ("rule", "rules"),
        "equation": ("equation", "equations"),
        "postulate": ("postulate", "postulates"),
        "corollary": ("corollary", "corollaries"),
    }
)
"""Each of the paper's twelve words → the forms accepted for it."""


def _forms(word: str) -> tuple[str, ...]:
    """The forms of ``word``: :data:`WORD_FORMS`, else the word with ``-s`` and ``-es``."""
    w = word.lower()
    return WORD_FORMS.get(w, (w, f"{w}s", f"{w}es"))


def _pattern(forms: Iterable[str]) -> str:
    alt = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    # a whole word: no letter/digit before or after (an apostrophe after is a possessive)
    return rf"(?<!\w)(?:{alt})(?!\w)"


def words_rule(words: Sequence[str]) -> re.Pattern[str]:
    """A case-insensitive whole-word pattern for any form of ``words`` (see :data:`WORD_FORMS`)."""
    return re.compile(_pattern(f for w in words for f in _forms(w)), re.IGNORECASE)


_EACH = {w: re.compile(_pattern(forms), re.IGNORECASE) for w, forms in WORD_FORMS.items()}


def matched_words(text: str, words: Sequence[str] = tuple(WORD_FORMS)) -> tuple[str, ...]:
    """Which of ``words`` (default: the twelve) ``text`` contains, in any form, in ``words`` order."""
    out = []
    for w in words:
        rule = _EACH.get(w) or words_rule([w])
        if rule.search(text):
            out.append(w)
    return tuple(out)
