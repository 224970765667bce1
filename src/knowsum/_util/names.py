"""File-name-safe names for run folders."""

from __future__ import annotations

import re

__all__ = ["slug"]


def slug(text: str, fallback: str = "run") -> str:
    """A file-name-safe form of a model id or task (``openai:gpt-4o`` → ``openai-gpt-4o``).

    Runs of characters other than letters, digits, ``.``, ``_`` and ``-`` become one ``-``;
    ``fallback`` when nothing is left.
    """
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or fallback
