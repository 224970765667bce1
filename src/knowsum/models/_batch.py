"""Scale out: export pending requests as OpenAI Batch JSONL, import the results into the store.

The same files work with the OpenAI Batch API and with vLLM's ``run-batch``. Each exported line is::

    {"custom_id": "<store key>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

and each result line is ``{"custom_id": …, "response": {"status_code": 200, "body": {...}}, "error": …}``.
The exported requests are remembered in the store (``batch_requests``), so an import needs only the
results file. Import is all-or-nothing: the whole file is validated before one transaction writes it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from knowsum._util import read_text_file
from knowsum.errors import ConfigError, InputFileError
from knowsum.models._base import Backend
from knowsum.models._openai import OpenAIBackend
from knowsum.models._params import Request, Response
from knowsum.models._sample import plan
from knowsum.models._store import ResponseStore

__all__ = ["BatchImport", "export_batch", "import_batch", "same_model"]


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


class _BadLineError(ValueError):
    """What is wrong with one results line, in words (field, value, what to do)."""


_REQUEST_LINE = (
    'a batch request, not a result: it has no "response" field (this is the file `knowsum batch export` '
    "wrote; import the results file the batch server returned for it)"
)


def _shown(value: Any, present: bool = True) -> str:
    """A field's value as JSON, cut at 40 characters (``missing`` when the field is absent)."""
    text = json.dumps(value, ensure_ascii=False) if present else "missing"
    return text if len(text) <= 40 else text[:39] + "…"


def _field(obj: dict[str, Any], name: str, where: str, kind: type | tuple[type, ...], expected: str) -> Any:
    """``obj[name]`` if it is a ``kind``; else the error naming the field, its value and what it should be."""
    value = obj.get(name)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise _BadLineError(f"field {where}{name} is {_shown(value, name in obj)}: expected {expected}")
    return value


def _error_message(line: dict[str, Any], resp: dict[str, Any] | None) -> str:
    """The error of a failed request: the line's ``error``, else the HTTP body's ``error``."""
    status = resp.get("status_code") if resp else None
    err = line.get("error") or ((resp or {}).get("body") or {}).get("error") or {}
    message = err.get("message", err) if isinstance(err, dict) else err
    return f"batch error (HTTP {status}): {message}" if message else f"batch error (HTTP {status})"


def _parse_result(line: Any) -> tuple[str, str, str, dict[str, Any], str | None, str | None]:
    """``(custom_id, text, finish_reason, usage, error, model)`` of one result line (``model``: the
    ``response.body.model`` the server answered with, when it names one).

    Raises:
        _BadLineError: the line is not a result (a request line, a missing or empty field …).
    """
    if not isinstance(line, dict):
        raise _BadLineError(f"expected a JSON object, got {_shown(line)}")
    key = _field(line, "custom_id", "", str, "the store key `knowsum batch export` wrote")
    if "response" not in line and not line.get("error"):
        if "body" in line or "method" in line:
            raise _BadLineError(_REQUEST_LINE)
        raise _BadLineError('it has neither a "response" nor an "error" field')
    resp = line.get("response")
    if resp is not None and not isinstance(resp, dict):
        raise _BadLineError(f"field response is {_shown(resp)}: expected an object")
    if line.get("error") or resp is None or resp.get("status_code") != 200:
        if resp is None and not line.get("error"):
            raise _BadLineError('field response is null and there is no "error": the result holds nothing')
        return key, "", "error", {}, _error_message(line, resp), None
    body = _field(resp, "body", "response.", dict, "the completion the server answered")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _BadLineError(
            f"field response.body.choices is {_shown(choices, 'choices' in body)}: the result holds no answer"
        )
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _BadLineError(f"field response.body.choices[0] is {_shown(choice)}: expected an object")
    if "message" in choice:
        message = _field(choice, "message", "response.body.choices[0].", dict, "an object")
        text = _field(message, "content", "response.body.choices[0].message.", str, "the answer text")
    else:
        text = _field(choice, "text", "response.body.choices[0].", str, "the answer text")
    usage = body.get("usage") or {}
    if not isinstance(usage, dict):
        raise _BadLineError(f"field response.body.usage is {_shown(usage)}: expected an object")
    for name in ("prompt_tokens", "completion_tokens"):
        if usage.get(name) is not None:
            _field(usage, name, "response.body.usage.", int, "a whole number")
    model = body.get("model")
    served = model if isinstance(model, str) and model else None
    return key, text, str(choice.get("finish_reason") or "stop"), usage, None, served


def same_model(requested: str, served: str) -> bool:
    """Whether a result ``served`` by a model answers a request for ``requested``: the same name, or
    that name with the dated snapshot suffix OpenAI answers with (``gpt-4o-mini`` →
    ``gpt-4o-mini-2024-07-18``)."""
    return re.fullmatch(re.escape(requested) + r"(-\d{4}(-\d{2}-\d{2})?)?", served) is not None


@dataclass(frozen=True, slots=True)
class BatchImport:
    """What one results file did to the store."""

    new: int
    """Results stored now (a request without a response, or whose stored one was an error)."""
    errors: int
    """How many of the new results are recorded errors (the request failed on the server)."""
    unchanged: int
    """Results the store already held, with the same answer (nothing written)."""
    conflicting: int
    """Results for requests the store already answered differently: the stored answer is kept."""


def _tally(store: ResponseStore, responses: list[Response]) -> tuple[list[Response], BatchImport]:
    """The responses to write (the new ones) and the counts of the import."""
    new: list[Response] = []
    unchanged = conflicting = 0
    for r in responses:
        old = store.get(r.key)
        if old is None or old.error is not None:
            new.append(r)
        elif r.error is None and old.text == r.text:
            unchanged += 1
        else:
            conflicting += 1
    return new, BatchImport(len(new), sum(r.error is not None for r in new), unchanged, conflicting)


def import_batch(store: ResponseStore, results: Path, *, allow_model_mismatch: bool = False) -> BatchImport:
    """Import an OpenAI Batch results file into the store; return what it did (:class:`BatchImport`).

    The whole file is checked before anything is written, then written in one transaction: a bad
    file leaves the store as it was. A stored answer is never replaced (the store is append-only for
    successes): a result for a request already answered is counted as unchanged (same answer) or
    conflicting (another answer; the stored one is kept).

    Args:
        store: The store the requests were exported from.
        results: The results file the batch server returned.
        allow_model_mismatch: Store results whose ``response.body.model`` is another model than the
            request's (:func:`same_model`) under the request's model; without it they are refused.

    Raises:
        InputFileError: a missing, binary, non-UTF-8 or empty file; a line that is not a result (a
            request line of the exported file, a missing or empty field — named, with its value); a
            ``custom_id`` given twice; one that was not exported from this store; a result from
            another model than the request's (file and line named; nothing is written).
    """
    lines = read_text_file(results, "batch results file").splitlines()
    responses: list[Response] = []
    first_line: dict[str, int] = {}
    now = time.time()
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            key, text, reason, usage, error, served = _parse_result(json.loads(raw))
        except json.JSONDecodeError as exc:
            problem = f"not JSON ({exc.msg} at column {exc.colno})"
            raise InputFileError(results, f"not an OpenAI Batch result line: {problem}", no, raw) from exc
        except _BadLineError as exc:
            raise InputFileError(
                results, f"not an OpenAI Batch result line: {exc}; fix or remove it and import again", no, raw
            ) from exc
        if key in first_line:
            raise InputFileError(
                results,
                f"custom_id {key[:16]}… appears twice (first on line {first_line[key]}): a results file "
                "holds one result per request; keep one of them and import again",
                no,
                raw,
            )
        first_line[key] = no
        found = store.batch_request(key)
        if found is None:
            raise InputFileError(
                results,
                f"custom_id {key[:16]}… was not exported from {store.path} (use the same --store)",
                no,
                raw,
            )
        request, who = found
        if served is not None and not allow_model_mismatch and not same_model(who["model"], served):
            raise InputFileError(
                results,
                f"response.body.model is {served!r} but the request was for {who['model']!r}: import the "
                "results of the model it was exported for, or pass --allow-model-mismatch to store "
                f"them as {who['model']!r}",
                no,
                raw,
            )
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
    if not responses:
        raise InputFileError(
            results, "no results in the file (an OpenAI Batch results file holds one JSON line per request)"
        )
    new, counts = _tally(store, responses)
    store.put_many(new)
    return counts
