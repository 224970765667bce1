"""Is a JSON-lines file one knowsum wrote? The write guard replaces only those.

knowsum writes three JSON-lines formats: a ``store export`` (one stored response per line), a batch
request file (``batch export``, ``run --export-batch``: OpenAI Batch request lines) and a GeneBench
question file (``genebench build``). A file is knowsum's when its first line is one of them, key for
key; anything else starting with ``{`` — above all an OpenAI batch *results* file, answers already
paid for and maybe not imported yet, or a user's own data — is not, and is never replaced. The key
sets are written out here (this layer imports nothing above it); ``tests/util/test_outputs_jsonl.py``
checks them against what the writers produce.
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["knowsum_jsonl"]

_STORE_EXPORT = frozenset(
    {
        "key",
        "backend",
        "model",
        "endpoint",
        "params",
        "sample_index",
        "seed",
        "text",
        "finish_reason",
        "prompt_tokens",
        "completion_tokens",
        "latency",
        "created",
        "error",
    }
)
"""A ``store export`` line's keys (``ResponseStore.export_jsonl``), besides ``prompt`` or ``messages``."""
_BATCH_REQUEST = frozenset({"custom_id", "method", "url", "body"})
"""A ``batch export`` (``run --export-batch``) request line's keys: exactly these. A batch *results*
file (``custom_id``, ``response``, ``error``: what the server paid for) is never one of ours."""
_QUESTION = frozenset(
    {
        "question_index",
        "question_type",
        "knowledge",
        "question",
        "answer",
        "context",
        "batch_id",
        "perspective",
        "flag",
    }
)
"""A ``genebench build`` question line's keys always written (the released layout; ``options`` for
choice questions)."""
_QUESTION_OURS = frozenset({"task", "gene", "gene_id", "pubmed_count"})
"""knowsum's extensions of a question line: one of them tells its file from the released one."""


def _knowsum_line(record: object) -> bool:
    """Whether ``record`` (a parsed JSON line) is a line of a JSON-lines file knowsum writes: a store
    export, a batch request file, a GeneBench question file (:data:`_STORE_EXPORT`…)."""
    if not isinstance(record, dict):
        return False
    keys = frozenset(record)
    if keys == _BATCH_REQUEST:
        return record["method"] == "POST" and isinstance(record["body"], dict)
    if keys - _STORE_EXPORT in ({"prompt"}, {"messages"}) and keys >= _STORE_EXPORT:
        return True
    return _QUESTION <= keys <= _QUESTION | _QUESTION_OURS | {"options"} and bool(keys & _QUESTION_OURS)


def _first_line(path: Path) -> bytes:
    """The first line of ``path`` (at most 16 MiB: a store export's line holds a whole answer)."""
    try:
        with path.open("rb") as fh:
            return fh.readline(1 << 24)
    except OSError:
        return b""


def knowsum_jsonl(path: Path) -> bool:
    """Whether ``path``'s first line is a line of a JSON-lines file knowsum writes (:func:`_knowsum_line`)."""
    try:
        return _knowsum_line(json.loads(_first_line(path).decode("utf-8").lstrip("\ufeff")))
    except (UnicodeDecodeError, ValueError):
        return False
