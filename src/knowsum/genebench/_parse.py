"""Validate model replies per question type (App. B: "validated using Pydantic schemas").

A reply that fails validation is scored as wrong and counted in the format-error rate. What passes:

- single choice: one option letter — alone (``B``, ``B.``, ``(B)``, ``**B**``, ``B: cyclin B1``), after
  "answer is"/"Answer:", or the exact text of one option. A letter that is not an option fails.
- multiple choice: option letters separated by commas, spaces, ``and`` or ``;`` (``A, C``), optionally
  after "Answer:". Anything else in the reply fails (the instruction forbids explanations).
- expression: a JSON object (in a code fence or not; single-quoted Python literals accepted) with a
  tissue list (``Tissue`` / ``tissue_list``) and a ``Category`` among the five categories.
- GO annotation: a JSON array of ``{"go": str, "evidence": CODE}`` objects; CODE must be a GO
  evidence code (the prompt's list or any other code the gold data uses).
- summary: any non-empty text.
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

__all__ = ["GoItem", "Parsed", "parse_reply"]

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


def _go(text: str) -> Parsed:
    try:
        raw = _json_value(text, "[")
    except ValueError as exc:
        return Parsed(None, str(exc))
    if not isinstance(raw, list):
        return Parsed(None, "not a JSON array")
    try:
        items = [GoItem.model_validate(x) for x in raw]
    except ValidationError as exc:
        return Parsed(None, f"GO item: {exc.errors()[0]['msg']}")
    return Parsed(tuple((i.go.strip(), i.evidence) for i in items))


def parse_reply(question_type: str, text: str, options: dict[str, str] | None = None) -> Parsed:
    """Validate ``text`` as a reply to a question of ``question_type`` (see the module docstring)."""
    if question_type == "single_choice":
        return _single(text, options or {})
    if question_type == "multiple_choice":
        return _multiple(text, options or {})
    if question_type == "expression":
        return _expression(text)
    if question_type == "go_annotation":
        return _go(text)
    t = text.strip()
    return Parsed(t) if t else Parsed(None, "empty summary")
