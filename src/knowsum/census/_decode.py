"""Decoders: split one model response into candidate items (KnowSum Algorithm 1, decoder ``C``).

A decoder removes stylistic variation and keeps the core of each answer: list markers and
numbering (``-``, ``*``, ``•``, ``1.``, ``2)``), Markdown emphasis, trailing punctuation, and a
claimed identifier in parentheses or after a dash (``Asthma (DOID:2841)`` → text ``Asthma``,
claimed ``DOID:2841``), which is kept apart as a free memorization signal, and a gloss after a
dash or colon (``Asthma - a chronic disease of the airways`` → ``Asthma``, when the gloss has at
least three words). Lines that are headers
(end with a colon) or chat filler ("Here are 50 diseases") are dropped.
"""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

__all__ = ["DecodedItem", "decode"]

_MARKER = re.compile(r"^\s*(?:[-*•·▪◦–—+>]+|\(?\d{1,4}[.):\]]|\(?[a-zA-Z][.)])\s+")
_NUM_ONLY = re.compile(r"^\s*\d{1,4}[.):]?\s*")
_CLAIM_PAREN = re.compile(r"\s*[(\[]\s*((?:[A-Za-z][A-Za-z0-9_]*)\s*:\s*[A-Za-z]?\d[\w.]*)\s*[)\]]")
_CLAIM_OPEN = re.compile(r"\s*[(\[]\s*((?:[A-Za-z][A-Za-z0-9_]*)\s*:\s*[A-Za-z]?\d[\w.]*)?\s*$")
_GLOSS = re.compile(r"\s+[-–—]\s+|:\s+")
_CLAIM_TAIL = re.compile(r"\s*(?:[-–—:,]\s*)((?:[A-Za-z][A-Za-z0-9_]*)\s*:\s*[A-Za-z]?\d[\w.]*)\s*$")
_EMPHASIS = re.compile(r"[*_`]{1,3}")
_FILLER = re.compile(
    r"^(?:note:|(?:sure|certainly|of course|here (?:is|are)|below (?:is|are)|i hope|let me know"
    r"|these are)\b)",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")
_LETTER = re.compile(r"[^\W\d_]")
_NUM_LEAD = re.compile(r"^\s*\d{1,4}[.):]\s")
MAX_ITEM_CHARS = 200
"""Longer pieces are not list items (kept as one item only by the ``whole`` decoder)."""


class DecodedItem(NamedTuple):
    """One candidate item of one response (a named tuple: millions are made, cheaply).

    Attributes:
        query: Index of the response (query) it came from.
        position: 0-based position within the response.
        text: The cleaned item text.
        claimed_id: An identifier the model attached to it (``DOID:2841``), normalized to
            ``PREFIX:digits`` without spaces, or ``None``.
    """

    query: int
    position: int
    text: str
    claimed_id: str | None = None


def _clean(piece: str) -> tuple[str, str | None]:
    text = _EMPHASIS.sub("", piece).strip()
    text = _MARKER.sub("", text, count=1)
    claimed = None
    m = _CLAIM_PAREN.search(text) or _CLAIM_TAIL.search(text)
    if m is None:
        m = _CLAIM_OPEN.search(text)  # "Asthma (DOID: 2841" cut off or unclosed
    if m is not None:
        claimed = _SPACES.sub("", m.group(1)).upper() if m.group(1) else None
        text = (text[: m.start()] + " " + text[m.end() :]).strip()
    gloss = _GLOSS.search(text)
    if gloss is not None and gloss.start() > 0 and len(text[gloss.end() :].split()) >= 3:
        text = text[: gloss.start()]  # "Asthma - a chronic condition of the airways"
    text = _NUM_ONLY.sub("", text) if _NUM_LEAD.match(text) else text
    text = _SPACES.sub(" ", text).strip().strip("\"'“”‘’").strip()
    text = text.rstrip(".;,:!?").strip()
    if text.lower().startswith("and "):
        text = text[4:].strip()
    return text, claimed


@functools.lru_cache(maxsize=1 << 18)
def _line(piece: str) -> tuple[str, str | None] | None:
    """:func:`_piece` of a raw line (memoized: list lines repeat a lot across responses)."""
    return _piece(_MARKER.sub("", piece.strip(), count=1))


@functools.lru_cache(maxsize=1 << 17)
def _piece(raw: str) -> tuple[str, str | None] | None:
    """The cleaned ``(text, claimed ID)`` of one piece (stripped, list marker removed), or ``None``."""
    if not raw or raw.endswith(":") or _FILLER.match(raw):
        return None
    text, claimed = _clean(raw)
    if not text or len(text) > MAX_ITEM_CHARS or not _LETTER.search(text):
        return None
    return text, claimed


def _pieces(response: str, decoder: str, separator: str | None) -> list[str]:
    if separator is not None:
        return [p for line in response.splitlines() for p in line.split(separator)]
    if decoder == "whole":
        return [response]
    lines = response.splitlines()
    if decoder == "comma":
        return [p for line in lines for p in re.split(r",|;", line)]
    return lines


def decode(
    response: str, query: int, decoder: str = "lines", separator: str | None = None
) -> list[DecodedItem]:
    """Split ``response`` into cleaned items.

    Args:
        response: The model's text.
        query: Index of the response (stored in each item).
        decoder: ``lines`` (one item per line), ``comma`` (items separated by commas, semicolons
            or newlines) or ``whole`` (the whole response is one item, for open-ended answers).
        separator: A custom separator (splits each line on it); overrides ``decoder``.

    Returns:
        Items in order; empty pieces, headers, filler sentences and over-long pieces are dropped.
    """
    if decoder == "whole" and separator is None:
        text = _SPACES.sub(" ", response).strip()
        return [DecodedItem(query, 0, text)] if text else []
    out: list[DecodedItem] = []
    make = tuple.__new__
    for kept in map(_line, _pieces(response, decoder, separator)):
        if kept is not None:
            out.append(make(DecodedItem, (query, len(out), kept[0], kept[1])))
    return out
