"""Scale out: export pending requests as OpenAI Batch JSONL, import the results into the store.

The same files work with the OpenAI Batch API and with vLLM's ``run-batch``. Each exported line is::

    {"custom_id": "<store key>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

and each result line is ``{"custom_id": …, "response": {"status_code": 200, "body": {...}}, "error": …}``.
The exported requests are remembered in the store (``batch_requests``), so an import needs only the
results file. Import is all-or-nothing: the whole file is validated before one transaction writes it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from knowsum.errors import ConfigError, InputFileError
from knowsum.models._base import Backend
from knowsum.models._openai import OpenAIBackend
from knowsum.models._params import Request, Response
from knowsum.models._sample import plan
from knowsum.models._store import ResponseStore

__all__ = ["export_batch", "import_batch"]


def export_batch(backend: Backend, requests: Iterable[Request], store: ResponseStore, out: Path) -> int:
    """Write the requests the store still lacks to ``out`` (OpenAI Batch JSONL); return how many.

    Args:
        backend: an :class:`OpenAIBackend` (its model, API and base URL define body and keys).
        requests: the draws of the run.
        store: the response store (done keys are skipped; exported ones are remembered).
        out: the JSONL file to write (written to a temporary file, then renamed).
    """
    if not isinstance(backend, OpenAIBackend):
        raise ConfigError("batch export needs an OpenAI-compatible model: --model openai:MODEL")
    pending = plan(backend, requests, store)
    todo = pending.pending
    url = urlsplit(backend.endpoint).path or "/v1/chat/completions"
    rows = [(backend.key(r), r, backend.describe()) for r in todo]
    tmp = out.with_name(out.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for key, r, _ in rows:
            line = {"custom_id": key, "method": "POST", "url": url, "body": backend.body([r])}
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    store.record_batch(rows)
    tmp.replace(out)
    return len(rows)


def _parse_result(line: dict[str, Any]) -> tuple[str, str, str, dict[str, Any], str | None]:
    """``(custom_id, text, finish_reason, usage, error)`` of one result line; KeyError etc. if malformed."""
    key = str(line["custom_id"])
    resp = line.get("response") or {}
    status = resp.get("status_code")
    if line.get("error") or status != 200:
        err = line.get("error") or (resp.get("body") or {}).get("error") or {}
        message = err.get("message", err) if isinstance(err, dict) else err
        return key, "", "error", {}, f"batch error (HTTP {status}): {message}"
    body = resp["body"]
    choice = body["choices"][0]
    text = choice["message"]["content"] if "message" in choice else choice["text"]
    if not isinstance(text, str):
        raise TypeError("choice text is not a string")
    return key, text, str(choice.get("finish_reason") or "stop"), body.get("usage") or {}, None


def import_batch(store: ResponseStore, results: Path) -> tuple[int, int]:
    """Import an OpenAI Batch results file into the store; return ``(imported, errors)``.

    Raises:
        InputFileError: unreadable file, malformed line, or a ``custom_id`` that was not exported
            from this store (file and line named; nothing is written).
    """
    try:
        lines = results.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(results, f"cannot read batch results ({exc})") from exc
    responses: list[Response] = []
    now = time.time()
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            key, text, reason, usage, error = _parse_result(json.loads(raw))
        except (ValueError, KeyError, TypeError, IndexError, AttributeError) as exc:
            raise InputFileError(results, f"not an OpenAI Batch result line ({exc!r})", no, raw) from exc
        found = store.batch_request(key)
        if found is None:
            raise InputFileError(
                results,
                f"custom_id {key[:16]}… was not exported from {store.path} (use the same --store)",
                no,
                raw,
            )
        request, who = found
        responses.append(
            Response(
                key=key,
                request=request,
                text=text,
                finish_reason=reason,
                prompt_tokens=int(usage.get("prompt_tokens") or 0),
                completion_tokens=int(usage.get("completion_tokens") or 0),
                created=now,
                error=error,
                backend=who["backend"],
                model=who["model"],
                endpoint=who["endpoint"],
            )
        )
    store.put_many(responses)
    return len(responses), sum(r.error is not None for r in responses)
