"""Pull the concept ID out of a model answer and normalize it (paper §4.2, footnote 10).

Chat models answer "The ID is GO:0001822." as often as "GO:0001822"; a regular expression per ID
syntax (from :data:`knowsum.kb.SYNTAX`) finds the first well-formed ID in the text. Normalization
fixes the prefix case and separator (``go_1822``), the zero padding (``GO:1822`` → ``GO:0001822``)
and, in completion mode, the missing prefix (the prompt ends with ``GO:`` so the model writes
``0001822``). An answer without a well-formed ID is *no ID* (``None``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from knowsum.errors import ConfigError
from knowsum.kb import SYNTAX, IdSyntax

__all__ = ["IdExtractor", "extract_id"]

# Bare-ID syntaxes whose KB pattern also admits chapter numerals/numbers ("I", "12"): extract only codes.
# ICD-10 takes up to four decimals so that "J45.909" (an ICD-10-CM code) is read whole, never cut to
# "J45" (which would then score as correct); such a code is kept as an ID absent from WHO ICD-10.
_BARE_OVERRIDES = {
    "icd10": r"[A-Z]\d{2}(?:\.?\d{1,4})?",
    "icd10cm": r"[A-Z]\d[0-9A-Z](?:\.[0-9A-Z]{1,4})?",
}
_EDGE_L = r"(?<![A-Za-z0-9])"
_EDGE_R = r"(?![A-Za-z0-9])"


@dataclass(frozen=True, slots=True)
class IdExtractor:
    """Finds and canonicalizes IDs of one KB in free text.

    Attributes:
        kb: KB name (a key of :data:`knowsum.kb.SYNTAX`).
        syntax: The KB's ID syntax.
        regex: The search expression (compiled, case-insensitive).
    """

    kb: str
    syntax: IdSyntax = field(init=False)
    regex: re.Pattern[str] = field(init=False, repr=False)
    full: re.Pattern[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.kb not in SYNTAX:
            raise ConfigError(f"KB {self.kb!r} has no ID syntax; known: {', '.join(sorted(SYNTAX))}")
        syntax = SYNTAX[self.kb]
        if syntax.prefix:
            bare = re.escape(syntax.prefix[:-1])
            expr = rf"{_EDGE_L}{bare}[ \t]?[:_]?[ \t]?(\d+)(?!\d)"
        else:
            inner = _BARE_OVERRIDES.get(self.kb, syntax.pattern)
            expr = rf"{_EDGE_L}(?:{inner}){_EDGE_R}"
        object.__setattr__(self, "syntax", syntax)
        object.__setattr__(self, "regex", re.compile(expr, re.IGNORECASE))
        object.__setattr__(self, "full", re.compile(syntax.pattern))

    def normalize(self, candidate: str) -> str | None:
        """Canonical spelling of one ID candidate, or ``None`` if it is not well formed.

        Same result as :meth:`knowsum.kb.IdSyntax.normalize` (plus ``A001`` → ``A00.1`` for
        ICD-10), with a fast path for the common spellings.
        """
        s = candidate.strip()
        if self.kb == "icd10":
            s = s.upper()
            if "." not in s and len(s) > 3:  # "A001" → "A00.1"
                s = f"{s[:3]}.{s[3:]}"
        if not self.syntax.prefix:
            s = s.upper()
            return s if self.full.fullmatch(s) else None
        m = self.regex.fullmatch(s)
        if m is None:
            return self.syntax.normalize(s)
        return self._from_digits(m.group(1))

    def _from_digits(self, digits: str) -> str | None:
        width = self.syntax.width
        if width:
            if len(digits) > width:
                return None
            digits = digits.zfill(width)
        s = self.syntax.prefix + digits
        return s if self.full.fullmatch(s) else None

    def extract(self, text: str, completion_prefix: str = "") -> str | None:
        """The first well-formed ID in ``text`` (canonical), or ``None`` ("no ID").

        Args:
            text: The model answer.
            completion_prefix: In completion mode, the ID prefix the prompt ended with (``"GO:"``);
                it is prepended to the answer so that ``"0001822 is …"`` yields ``GO:0001822``.
        """
        stripped = text.strip()
        if self.kb not in _BARE_OVERRIDES and self.full.fullmatch(stripped):  # fast path: exactly an ID
            return stripped
        if completion_prefix and stripped[:1].isdigit():
            text = completion_prefix + stripped
        for m in self.regex.finditer(text):
            found = self._from_digits(m.group(1)) if self.syntax.prefix else self.normalize(m.group(0))
            if found is None and self.kb == "icd10":
                found = _long_icd10(m.group(0))
            if found is not None:
                return found
        return None


def _long_icd10(code: str) -> str | None:
    """``J45.909``/``J45909`` → ``J45.909``: an ICD-shaped code longer than WHO ICD-10 has."""
    s = code.upper()
    digits = s[3:].lstrip(".")
    return f"{s[:3]}.{digits}" if len(digits) >= 3 else None


_CACHE: dict[str, IdExtractor] = {}


def extract_id(kb: str, text: str, completion_prefix: str = "") -> str | None:
    """Module-level shortcut for :meth:`IdExtractor.extract` (extractors are cached per KB).

    Example:
        >>> extract_id("go", "The ID is go_1822.")
        'GO:0001822'
        >>> extract_id("go", "0060993", completion_prefix="GO:")
        'GO:0060993'
    """
    ext = _CACHE.get(kb)
    if ext is None:
        ext = _CACHE[kb] = IdExtractor(kb)
    return ext.extract(text, completion_prefix)
