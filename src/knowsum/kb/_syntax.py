"""Identifier syntax per knowledge base: tell a well-formed ID from garbage, normalize ID strings.

Recall probes ask a model for an ID; its answer is one of: an existing ID, a well-formed ID that
does not exist (an invented one), or not an ID at all. :class:`IdSyntax` decides the last case with
a regular expression and canonicalizes the spelling first: prefix case and separator
(``go_1822`` → ``GO:0001822``), and zero padding for fixed-width ontologies (GO, HP, UBERON, MONDO).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SYNTAX", "IdSyntax"]


@dataclass(frozen=True, slots=True)
class IdSyntax:
    """The identifier syntax of one knowledge base.

    Attributes:
        prefix: CURIE prefix including the colon (``"GO:"``), or ``""`` for bare IDs (MeSH, ICD).
        pattern: Regular expression a canonical ID matches in full.
        width: Number of digits after the prefix for zero-padded ontologies, ``0`` otherwise.
    """

    prefix: str
    pattern: str
    width: int = 0

    def is_well_formed(self, text: str) -> bool:
        """Whether ``text`` (after :meth:`normalize`) has this KB's ID syntax."""
        return self.normalize(text) is not None

    def normalize(self, text: str) -> str | None:
        """Canonical spelling of an ID string, or ``None`` if it is not a well-formed ID.

        Accepts any prefix case, ``:``/``_``/space/no separator, and missing zero padding.

        Example:
            >>> SYNTAX["go"].normalize("go_1822")
            'GO:0001822'
        """
        s = text.strip()
        if self.prefix:
            bare = self.prefix[:-1]
            m = re.fullmatch(rf"{re.escape(bare)}\s*[:_ ]?\s*(\d+)", s, flags=re.IGNORECASE)
            if m is None:
                return None
            digits = m.group(1)
            if self.width:
                if len(digits) > self.width:
                    return None
                digits = digits.zfill(self.width)
            s = self.prefix + digits
        else:
            s = s.upper()
        return s if re.fullmatch(self.pattern, s) else None


SYNTAX: dict[str, IdSyntax] = {
    "go": IdSyntax("GO:", r"GO:\d{7}", 7),
    "doid": IdSyntax("DOID:", r"DOID:\d+"),
    "hpo": IdSyntax("HP:", r"HP:\d{7}", 7),
    "uberon": IdSyntax("UBERON:", r"UBERON:\d{7}", 7),
    "mondo": IdSyntax("MONDO:", r"MONDO:\d{7}", 7),
    "hgnc": IdSyntax("HGNC:", r"HGNC:\d+"),
    "mesh": IdSyntax("", r"[DC]\d{6,9}"),
    "icd10": IdSyntax("", r"[A-Z]\d{2}(?:\.\d{1,2})?|[A-Z]\d{2}-[A-Z]\d{2}|[IVXL]+"),
    "icd10cm": IdSyntax("", r"[A-Z]\d[0-9A-Z](?:\.[0-9A-Z]{1,4})?|[A-Z]\d[0-9A-Z]-[A-Z]\d[0-9A-Z]|\d{1,2}"),
    "theorems": IdSyntax("", r"Q[1-9]\d*"),
    "genes": IdSyntax("", r"[1-9]\d*"),
}
