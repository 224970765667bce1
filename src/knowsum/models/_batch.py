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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from knowsum._util import paths, read_text_file
from knowsum.errors import ConfigError, InputFileError
from knowsum.models._base import Backend
from knowsum.models._openai import OpenAIBackend
from knowsum.models._params import GenerationParams, Request, Response
from knowsum.models._sample import plan
from knowsum.models._servers import refusal_of
from knowsum.models._store import ResponseStore

__all__ = ["BatchImport", "check_export", "export_batch", "import_batch", "same_model"]


def check_export(backend: Backend, requests: Sequence[Request]) -> OpenAIBackend:
    """``backend`` as the :class:`OpenAIBackend` that can export ``requests``, checked before any file
    or store is made: each distinct parameter set (and prompt kind) is turned into a request body once.

    Raises:
        ConfigError: not an OpenAI-compatible backend, or parameters its server family refuses
            (``--top-k`` for ``--server-kind openai`` …).
    """
    if not isinstance(backend, OpenAIBackend):
        raise ConfigError("batch export needs an OpenAI-compatible model: --model openai:MODEL")
    checked: set[tuple[GenerationParams, bool]] = set()
    for r in requests:
        kind = (r.params, r.messages is None)
        if kind not in checked:
            backend.body([r])
            checked.add(kind)
    return backend


def export_batch(
    backend: Backend, requests: Iterable[Request], store: ResponseStore | Path | None, out: Path
) -> int:
    """Write the requests the store still lacks to ``out`` (OpenAI Batch JSONL); return how many.

    The backend and the parameters are checked (:func:`check_export`) before anything is made.
    Nothing is written when every request is stored (the Batch API refuses an empty file); a failure
    leaves neither ``out`` nor its temporary file behind.

    Args:
        backend: an :class:`OpenAIBackend` (its model, API and base URL define body and keys).
        requests: the draws of the run.
        store: the response store (done keys are skipped; exported ones are remembered), or the
            path of one (``None``: the default store) to open once the requests are checked and to
            close after.
        out: the JSONL file to write (written to a temporary file, then renamed).

    Raises:
        ConfigError: see :func:`check_export`.
    """
    requests = list(requests)
    openai = check_export(backend, requests)
    if not isinstance(store, ResponseStore):
        with ResponseStore(store) as opened:
            return export_batch(openai, requests, opened, out)
    todo = plan(openai, requests, store).pending
    if not todo:
        return 0
    url = urlsplit(openai.endpoint).path or "/v1/chat/completions"
    rows = [(openai.key(r), r, openai.describe()) for r in todo]
    tmp = out.with_name(out.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            for key, r, _ in rows:
                line = {"custom_id": key, "method": "POST", "url": url, "body": openai.body([r])}
                fh.write(json.dumps(line, ensure_ascii=False) + "\n")
        store.record_batch(rows)
        tmp.replace(out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
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


class _Result(NamedTuple):
    """One parsed result line."""

    key: str
    text: str
    finish_reason: str
    usage: dict[str, Any]
    error: str | None
    model: str | None
    """The ``response.body.model`` the server answered with, when it names one."""
    refused: bool = False
    """The model refused (``message.refusal``): recorded as this request's error."""


def _answer(choice: dict[str, Any]) -> tuple[str, str | None]:
    """``(text, refusal)`` of a choice: its answer text, or the model's refusal (then text is "")."""
    if "message" not in choice:
        return _field(choice, "text", "response.body.choices[0].", str, "the answer text"), None
    message = _field(choice, "message", "response.body.choices[0].", dict, "an object")
    refusal = refusal_of(choice)
    if refusal is not None:
        return "", refusal
    return _field(message, "content", "response.body.choices[0].message.", str, "the answer text"), None


def _parse_result(line: Any) -> _Result:
    """The result of one results line.

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
        return _Result(key, "", "error", {}, _error_message(line, resp), None)
    body = _field(resp, "body", "response.", dict, "the completion the server answered")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _BadLineError(
            f"field response.body.choices is {_shown(choices, 'choices' in body)}: the result holds no answer"
        )
    choice = choices[0]
    if not isinstance(choice, dict):
        raise _BadLineError(f"field response.body.choices[0] is {_shown(choice)}: expected an object")
    text, refusal = _answer(choice)
    usage = body.get("usage") or {}
    if not isinstance(usage, dict):
        raise _BadLineError(f"field response.body.usage is {_shown(usage)}: expected an object")
    for name in ("prompt_tokens", "completion_tokens"):
        if usage.get(name) is not None:
            _field(usage, name, "response.body.usage.", int, "a whole number")
    model = body.get("model")
    served = model if isinstance(model, str) and model else None
    if refusal is not None:
        return _Result(key, "", "error", usage, f"refused by the model: {refusal}", served, refused=True)
    return _Result(key, text, str(choice.get("finish_reason") or "stop"), usage, None, served)


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
    """How many of the new results are recorded errors (the request failed on the server, or the
    model refused); an error is retried: exported again by the next ``batch export``."""
    refusals: int
    """How many of those errors are the model's refusals (``message.refusal``)."""
    unchanged: int
    """Results the store already held, with the same answer (nothing written)."""
    failed_again: int
    """Error results for requests the store already answered (nothing written: the answer is kept)."""
    missing: int
    """Exported requests of this store with no answer stored and no result in this file (pending)."""


_UNANSWERED = (
    "SELECT b.key FROM batch_requests AS b WHERE NOT EXISTS"
    " (SELECT 1 FROM responses AS r WHERE r.key = b.key AND r.error IS NULL)"
)


def _unanswered_exports(store: ResponseStore) -> set[str]:
    """Keys of the requests exported from ``store`` that hold no answer in it yet."""
    return {row[0] for row in store._execute(_UNANSWERED)}  # the store's own query runner: errors worded


_Line = tuple[int, str, Response, bool]
"""A parsed results line: line number, raw text, its response, whether it is a refusal."""


def _tally(store: ResponseStore, results: Path, parsed: list[_Line]) -> tuple[list[Response], BatchImport]:
    """The responses to write (the new ones) and the counts of the import.

    Raises:
        InputFileError: a result answers a request the store already answered otherwise (the first
            such line named, with how many others do).
    """
    new: list[Response] = []
    unchanged = failed_again = refusals = 0
    conflicts: list[tuple[_Line, str]] = []
    for item in parsed:
        r = item[2]
        old = store.get(r.key)
        if old is None or old.error is not None:
            new.append(r)
            refusals += item[3]
        elif r.error is not None:
            failed_again += 1
        elif old.text == r.text:
            unchanged += 1
        else:
            conflicts.append((item, old.text))
    if conflicts:
        (no, raw, r, _), stored = conflicts[0]
        others = len(conflicts) - 1
        also = {0: "", 1: " (1 other line conflicts too)"}.get(
            others, f" ({others} other lines conflict too)"
        )
        raise InputFileError(
            results,
            f"custom_id {r.key[:16]}… answers {_shown(r.text)} but the store already holds "
            f"{_shown(stored)} for it{also}; "
            "a stored answer is never replaced: import these results into another --store, or remove "
            "the conflicting lines; nothing was imported",
            no,
            raw,
        )
    keys = {item[2].key for item in parsed}
    missing = len(_unanswered_exports(store) - keys)
    errors = sum(r.error is not None for r in new)
    return new, BatchImport(len(new), errors, refusals, unchanged, failed_again, missing)


def _existing_store(path: Path | None) -> ResponseStore:
    """Open the store the requests were exported from (``None``: the default store); a path with no
    store is refused, and no store is made."""
    where = path if path is not None else paths.store_path()
    if not where.is_file():
        what = "is a directory" if where.is_dir() else "no response store here"
        raise InputFileError(
            where, f"{what}: batch import needs the store the requests were exported from; check --store"
        )
    return ResponseStore(where)


def import_batch(
    store: ResponseStore | Path | None, results: Path, *, allow_model_mismatch: bool = False
) -> BatchImport:
    """Import an OpenAI Batch results file into the store; return what it did (:class:`BatchImport`).

    The whole file is checked before anything is written, then written in one transaction: a bad
    file leaves the store as it was. A stored answer is never replaced: a result for a request
    already answered is counted as unchanged (the same answer) or failed again (an error result),
    and a file with another answer for such a request is refused. A refusal of the model
    (``message.refusal``) is stored as that request's error, like a failed request.

    Args:
        store: The store the requests were exported from, or its path (``None``: the default
            store), opened once the file is read and closed after; a path with no store is refused.
        results: The results file the batch server returned.
        allow_model_mismatch: Store results whose ``response.body.model`` is another model than the
            request's (:func:`same_model`) under the request's model; without it they are refused.

    Raises:
        InputFileError: a missing, binary, non-UTF-8 or empty file; a line that is not a result (a
            request line of the exported file, a missing or empty field — named, with its value); a
            ``custom_id`` given twice; one that was not exported from this store; a result from
            another model than the request's; an answer other than the one stored for its request
            (file and line named; nothing is written).
    """
    lines = read_text_file(results, "batch results file").splitlines()
    if not any(line.strip() for line in lines):
        raise InputFileError(
            results, "no results in the file (an OpenAI Batch results file holds one JSON line per request)"
        )
    if not isinstance(store, ResponseStore):
        with _existing_store(store) as opened:
            return _import(opened, results, lines, allow_model_mismatch)
    return _import(store, results, lines, allow_model_mismatch)


def _import(store: ResponseStore, results: Path, lines: list[str], allow_model_mismatch: bool) -> BatchImport:
    """:func:`import_batch` of the ``lines`` of ``results``."""
    parsed: list[_Line] = []
    first_line: dict[str, int] = {}
    now = time.time()
    for no, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            res = _parse_result(json.loads(raw))
        except json.JSONDecodeError as exc:
            problem = f"not JSON ({exc.msg} at column {exc.colno})"
            raise InputFileError(results, f"not an OpenAI Batch result line: {problem}", no, raw) from exc
        except _BadLineError as exc:
            raise InputFileError(
                results, f"not an OpenAI Batch result line: {exc}; fix or remove it and import again", no, raw
            ) from exc
        key = res.key
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
        served = res.model
        if served is not None and not allow_model_mismatch and not same_model(who["model"], served):
            raise InputFileError(
                results,
                f"response.body.model is {served!r} but the request was for {who['model']!r}: import the "
                "results of the model it was exported for, or pass --allow-model-mismatch to store "
                f"them as {who['model']!r}",
                no,
                raw,
            )
        response = Response(
            key=key,
            request=request,
            text=res.text,
            finish_reason=res.finish_reason,
            prompt_tokens=int(res.usage.get("prompt_tokens") or 0),
            completion_tokens=int(res.usage.get("completion_tokens") or 0),
            created=now,
            error=res.error,
            backend=who["backend"],
            model=who["model"],
            endpoint=who["endpoint"],
        )
        parsed.append((no, raw, response, res.refused))
    new, counts = _tally(store, results, parsed)
    store.put_many(new)
    return counts
