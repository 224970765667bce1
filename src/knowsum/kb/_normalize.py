"""Normalization of free text before matching it against labels.

The same function is applied to labels and queries, so two strings match at the "normalized" stage
iff they are equal after: Unicode NFKC + case folding; Greek letters spelled out (``α`` → ``alpha``);
quotes removed and the possessive ``'s`` dropped (``Alzheimer's`` → ``alzheimer``); hyphens, dashes,
slashes and other punctuation turned into spaces; a trailing bracketed qualifier that is an ID
(``(DOID:1234)``, ``[GO:0001822]``) or a semantic tag (``(disorder)``, ``(disease)``) removed;
whitespace collapsed.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["normalize_text"]

_GREEK = {
    "α": "alpha",
    "β": "beta",
    "γ": "gamma",
    "δ": "delta",
    "ε": "epsilon",
    "ζ": "zeta",
    "η": "eta",
    "θ": "theta",
    "ι": "iota",
    "κ": "kappa",
    "λ": "lambda",
    "μ": "mu",
    "ν": "nu",
    "ξ": "xi",
    "ο": "omicron",
    "π": "pi",
    "ρ": "rho",
    "σ": "sigma",
    "ς": "sigma",
    "τ": "tau",
    "υ": "upsilon",
    "φ": "phi",
    "χ": "chi",
    "ψ": "psi",
    "ω": "omega",
}
_GREEK_RE = re.compile("|".join(_GREEK))
_QUOTES = str.maketrans("", "", "'\"`´‘’‚‛“”„‟′″")
_POSSESSIVE = re.compile(r"(?<=\w)['’`´]s\b", re.IGNORECASE)
_TRAILING_QUALIFIER = re.compile(
    r"\s*[\(\[]\s*(?:[A-Za-z][A-Za-z0-9_.]*\s*[:_]\s*[A-Za-z0-9.]+|disorder|disease|finding|"
    r"morphologic abnormality|clinical)\s*[\)\]]\s*$",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[^\w]+")


def normalize_text(text: str) -> str:
    """Return the normalized form of ``text`` used by the matcher's second stage.

    Args:
        text: Any string (label or query).

    Returns:
        Lower-case words separated by single spaces; ``""`` if nothing word-like remains.

    Example:
        >>> normalize_text("Alzheimer's Disease (DOID:10652)")
        'alzheimer disease'
        >>> normalize_text("TGF-β signalling")
        'tgf beta signalling'
    """
    ascii_only = text.isascii()  # the common case skips the Unicode-only steps
    s = text if ascii_only else unicodedata.normalize("NFKC", text)
    if s.rstrip().endswith((")", "]")):
        s = _TRAILING_QUALIFIER.sub("", s)
    s = _POSSESSIVE.sub("", s)
    s = s.casefold()
    if not ascii_only:
        s = _GREEK_RE.sub(lambda m: f" {_GREEK[m.group(0)]} ", s)
    s = s.translate(_QUOTES)
    s = _NON_WORD.sub(" ", s).replace("_", " ")
    return " ".join(s.split())
