"""Validate model replies per question type (App. B: "validated using Pydantic schemas").

A reply that fails validation is scored as wrong and counted in the format-error rate. Two rules:

**strict** (the default; App. B asks for structural correctness, and the Fig. 11 instructions say
"Only provide …"): the reply *is* the answer —

- single choice: one option letter, allowing surrounding whitespace/punctuation (``B``, ``B.``,
  ``'B'``, ``(B)``, ``**B**``) or a JSON wrapper (``{"answer": "B"}``, ``["B"]``, as the release's
  pydantic format instructions ask); no option text, no sentence;
- multiple choice: option letters separated by commas/semicolons/whitespace (``A, C``), or a JSON
  wrapper (``{"answers": ["A", "C"]}``, ``["A", "C"]``);
- expression / GO: the whole reply (inside one optional code fence) is a JSON value (or the
  single-quoted Python literal the prompt's own examples use) that validates: ``{"Tissue": [...],
  "Category": ...}`` with one of the five categories; ``[{"go": str, "evidence": CODE}, …]``;
- summary: any non-empty text.

**lenient** (``--lenient``): what the strict rule accepts, and what knowsum's earlier parser reads —

- single choice: one option letter — alone (``B``, ``B.``, ``(B)``, ``**B**``, ``B: cyclin B1``), after
  "answer is"/"Answer:", or the exact text of one option. A letter that is not an option fails.
- multiple choice: option letters separated by commas, spaces, ``and`` or ``;`` (``A, C``), optionally
  after "Answer:". Anything else in the reply fails (the instruction forbids explanations).
- expression: a JSON object (in a code fence or not; single-quoted Python literals accepted) with a
  tissue list (``Tissue`` / ``tissue_list``) and a ``Category`` among the five categories.
- GO annotation: a JSON array of ``{"go": str, "evidence": CODE}`` objects; CODE must be a GO
  evidence code (the prompt's list or any other code the gold data uses).
- summary: any non-empty text.

A reply the backend stopped at the token limit (``finish_reason == "length"``) that fails validation
is a format error of its own kind, ``truncated`` (see :func:`parse_reply`).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from knowsum.genebench._prompts import EVIDENCE_CODES
from knowsum.genebench._schema import EXPRESSION_CATEGORIES

__all__ = ["RULES", "TRUNCATED", "GoItem", "Parsed", "parse_both", "parse_reply"]

#: The reply-checking rules, default first.
RULES: tuple[str, ...] = ("strict", "lenient")
#: Prefix of the format error of a reply cut by the token limit.
TRUNCATED = "truncated"

_LETTER = re.compile(r"^[\W_]*([A-Z])(?:[\W_]*$|\s*[.):\]-])")
_ANSWER_IS = re.compile(r"\b(?:answer|option)\s*(?:is|:)?\s*[\W_]*([A-Z])(?![A-Za-z0-9])", re.IGNORECASE)
_MULTI = re.compile(
    r"^\s*(?:(?:the\s+)?(?:correct\s+)?(?:answers?|options?)\s*(?:is|are|:)?\s*)?"
    r"\(?([A-Z])\)?((?:\s*(?:,|;|&|/|\band\b|\s)\s*\(?[A-Z]\)?)*)\s*\.?\s*$",
    re.IGNORECASE,
)
_FENCE = re.compile(r"```(?:json|JSON|python)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Parsed:
    """A validated reply: ``value`` (letters, dict or text) or ``error`` (why it failed)."""

    value: Any
    error: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the reply passed validation."""
        return self.error is None


class GoItem(BaseModel):
    """One predicted GO annotation (Fig. 11 schema)."""

    model_config = ConfigDict(extra="ignore")

    go: str = Field(min_length=1)
    evidence: str

    @field_validator("evidence")
    @classmethod
    def _code(cls, value: str) -> str:
        code = value.strip().upper()
        if code not in EVIDENCE_CODES:
            raise ValueError(f"unknown evidence code {value!r}")
        return code


class _Expression(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tissue: list[str] | str
    category: str

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        for c in EXPRESSION_CATEGORIES:
            if c.lower() == value.strip().lower():
                return c
        raise ValueError(f"category {value!r} is not one of the five")


def _clean(text: str) -> str:
    return text.strip().replace("**", "").replace("`", "").strip()


def _single(text: str, options: dict[str, str]) -> Parsed:
    t = _clean(text)
    for option_letter, option_text in options.items():
        if t.rstrip(".").strip().lower() == option_text.lower():
            return Parsed(option_letter)
    m = _LETTER.match(t) or _ANSWER_IS.search(t)
    if m is None:
        return Parsed(None, "no option letter")
    letter = m.group(1).upper()
    if letter not in options:
        return Parsed(None, f"{letter} is not an option")
    return Parsed(letter)


def _multiple(text: str, options: dict[str, str]) -> Parsed:
    m = _MULTI.match(_clean(text).replace("'", "").replace('"', ""))
    if m is None:
        return Parsed(None, "not a list of option letters")
    letters = [m.group(1).upper(), *re.findall(r"\b([A-Za-z])\b", m.group(2) or "")]
    letters = [x.upper() for x in letters]
    bad = sorted({x for x in letters if x not in options})
    if bad:
        return Parsed(None, f"{', '.join(bad)} not among the options")
    return Parsed(tuple(sorted(set(letters))))


def _json_value(text: str, opener: str) -> Any:
    fenced = _FENCE.search(text)
    body = fenced.group(1) if fenced else text
    start = body.find(opener)
    if start < 0:
        raise ValueError(f"no JSON {'array' if opener == '[' else 'object'}")
    chunk = body[start:]
    try:
        value, _ = json.JSONDecoder().raw_decode(chunk)
        return value
    except json.JSONDecodeError:
        close = "]" if opener == "[" else "}"
        end = chunk.rfind(close)
        try:
            return ast.literal_eval(chunk[: end + 1]) if end > 0 else None
        except (ValueError, SyntaxError, MemoryError, RecursionError) as exc:
            raise ValueError("malformed JSON") from exc


def _expression(text: str) -> Parsed:
    try:
        raw = _json_value(text, "{")
    except ValueError as exc:
        return Parsed(None, str(exc))
    if not isinstance(raw, dict):
        return Parsed(None, "not a JSON object")
    data = {str(k).strip().lower(): v for k, v in raw.items()}
    if "tissue" not in data and "tissue_list" in data:
        data["tissue"] = data["tissue_list"]
    try:
        e = _Expression.model_validate(data)
    except ValidationError as exc:
        return Parsed(None, f"expression: {exc.errors()[0]['msg']}")
    tissues = [e.tissue] if isinstance(e.tissue, str) else e.tissue
    return Parsed({"category": e.category, "tissue_list": tuple(t.strip() for t in tissues if t.strip())})


def _go_items(raw: Any) -> Parsed:
    """A decoded GO reply validated as a list of ``{"go", "evidence"}`` items."""
    if not isinstance(raw, list):
        return Parsed(None, "not a JSON array")
    try:
        items = [GoItem.model_validate(x) for x in raw]
    except ValidationError as exc:
        return Parsed(None, f"GO item: {exc.errors()[0]['msg']}")
    return Parsed(tuple((i.go.strip(), i.evidence) for i in items))


def _go(text: str) -> Parsed:
    try:
        raw = _json_value(text, "[")
    except ValueError as exc:
        return Parsed(None, str(exc))
    return _go_items(raw)


_STRICT_LETTERS = re.compile(r"^[\W_]*([A-Z](?:[\s,;]+[A-Z])*)[\W_]*$")
_FENCED = re.compile(r"^```[A-Za-z]*\s*(.*?)\s*```$", re.DOTALL)


def _strict_value(text: str) -> Any:
    """The whole reply as a JSON value or Python literal (one enclosing code fence allowed)."""
    t = text.strip()
    m = _FENCED.match(t)
    body = m.group(1) if m else t
    try:
        return json.loads(body)
    except json.JSONDecodeError:
        try:
            return ast.literal_eval(body)
        except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError) as exc:
            raise ValueError("not a JSON value (the whole reply must be one)") from exc


def _strict_letters(text: str, options: dict[str, str], many: bool) -> Parsed:
    t = text.strip()
    if t[:1] in "{[`" and t:
        try:
            raw = _strict_value(t)
        except ValueError as exc:
            return Parsed(None, str(exc))
        if isinstance(raw, dict) and len(raw) == 1:
            raw = next(iter(raw.values()))
        items = [raw] if isinstance(raw, str) else raw
        if not isinstance(items, list) or not items or not all(isinstance(x, str) for x in items):
            return Parsed(None, "not an option letter" + ("s" if many else ""))
        letters = [x.strip() for x in items]
    else:
        m = _STRICT_LETTERS.match(t)
        if m is None:
            return Parsed(None, "not option letters only" if many else "not an option letter only")
        letters = re.split(r"[\s,;]+", m.group(1))
    if not many and len(letters) != 1:
        return Parsed(None, "more than one letter")
    bad = sorted({x for x in letters if x not in options})
    if bad:
        return Parsed(None, f"{', '.join(bad)} not among the options")
    return Parsed(tuple(sorted(set(letters))) if many else letters[0])


class _StrictExpression(BaseModel):
    model_config = ConfigDict(extra="forbid")

    Tissue: list[str] | str
    Category: str


def _strict_json(question_type: str, text: str) -> Parsed:
    try:
        raw = _strict_value(text)
    except ValueError as exc:
        return Parsed(None, str(exc))
    if question_type == "go_annotation":
        return _go_items(raw)
    if not isinstance(raw, dict):
        return Parsed(None, "not a JSON object")
    try:
        e = _StrictExpression.model_validate(raw)
        category = _Expression.model_validate({"tissue": e.Tissue, "category": e.Category}).category
    except ValidationError as exc:
        return Parsed(None, f"expression: {exc.errors()[0]['msg']}")
    tissues = [e.Tissue] if isinstance(e.Tissue, str) else e.Tissue
    return Parsed({"category": category, "tissue_list": tuple(t.strip() for t in tissues if t.strip())})


def _lenient(question_type: str, text: str, options: dict[str, str]) -> Parsed:
    if question_type == "single_choice":
        return _single(text, options)
    if question_type == "multiple_choice":
        return _multiple(text, options)
    if question_type == "expression":
        return _expression(text)
    return _go(text)


def _strict(question_type: str, text: str, options: dict[str, str]) -> Parsed:
    if question_type in ("single_choice", "multiple_choice"):
        return _strict_letters(text, options, question_type == "multiple_choice")
    return _strict_json(question_type, text)


def parse_reply(
    question_type: str,
    text: str,
    options: dict[str, str] | None = None,
    *,
    lenient: bool = False,
    truncated: bool = False,
) -> Parsed:
    """Validate ``text`` as a reply to a question of ``question_type`` (see the module docstring).

    Args:
        question_type: The question's type.
        text: The reply.
        options: The options as shown (choice types).
        lenient: Use the lenient rule instead of the strict one.
        truncated: The backend stopped the reply at the token limit: a reply that fails validation
            then gets the error ``"truncated: …"``.
    """
    strict, lenient_parsed = parse_both(question_type, text, options, truncated=truncated)
    return lenient_parsed if lenient else strict


def parse_both(
    question_type: str, text: str, options: dict[str, str] | None = None, *, truncated: bool = False
) -> tuple[Parsed, Parsed]:
    """The reply under the strict and under the lenient rule (one parse when the strict rule passes).

    The lenient rule accepts everything the strict one does, with the same value, and more.
    """
    if question_type == "summary":
        t = text.strip()
        p = Parsed(t) if t else Parsed(None, "empty summary")
        return p, p
    strict = _strict(question_type, text, options or {})
    if strict.ok:
        return strict, strict
    lenient = _lenient(question_type, text, options or {})
    if truncated:
        strict = Parsed(None, f"{TRUNCATED}: stopped at the token limit ({strict.error})")
        if not lenient.ok:
            lenient = Parsed(None, f"{TRUNCATED}: stopped at the token limit ({lenient.error})")
    return strict, lenient
