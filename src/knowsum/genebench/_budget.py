"""Token budgets that never cut a complete answer: sized from the longest gold answer asked.

The paper does not state its generation limit. A fixed cap below the length of a complete answer
scores the most complete GO answers 0 (a cut JSON array fails validation), so the budget of each
open question type is sized from the question set itself:

    budget(type) = max(floor(type), ⌈MARGIN · longest gold answer of that type in tokens⌉)

where a gold answer is written the way the Fig. 11 instruction asks for it (GO: a JSON array of
``{"go", "evidence"}`` objects; expression: ``{"Tissue": [...], "Category": ...}``; summary: the
text) and its token count is estimated as ``⌈characters / CHARS_PER_TOKEN⌉``. On the 20,728 GO gold
answers of the full build the SmolLM2 and Qwen2.5 tokenizers reach 2.45–3.4 characters per token
(minimum–median; docs/genebench.md), so with MARGIN a gold answer fits whenever its tokens average
at least 2.5 / 1.5 ≈ 1.67 characters. Choice replies are a letter or two and keep their small fixed
budgets. A reply the backend still stops at the limit is a ``truncated`` format error (:mod:`._parse`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable

from knowsum.genebench._schema import ExpressionAnswer, GoAnswer, Question

__all__ = ["CHARS_PER_TOKEN", "DEFAULT_MAX_TOKENS", "MARGIN", "gold_text", "gold_tokens", "token_budgets"]

#: Floor of the generated tokens per reply by question type (choice types: the whole budget).
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "single_choice": 16,
    "multiple_choice": 24,
    "expression": 160,
    "go_annotation": 320,
    "summary": 256,
}
#: Characters per token assumed for a gold answer (near the low end of what tokenizers reach on them).
CHARS_PER_TOKEN = 2.5
#: Head room over the longest gold answer.
MARGIN = 1.5


def gold_text(question: Question) -> str:
    """The gold answer of an open question as the Fig. 11 instruction asks the model to write it."""
    ans = question.answer
    if isinstance(ans, ExpressionAnswer):
        return json.dumps({"Tissue": list(ans.tissue_list) or ["Low expression"], "Category": ans.category})
    if isinstance(ans, list) and all(isinstance(a, GoAnswer) for a in ans):
        return json.dumps([{"go": a.go, "evidence": a.evidence} for a in ans if isinstance(a, GoAnswer)])
    return str(ans)


def gold_tokens(question: Question) -> int:
    """Estimated tokens of :func:`gold_text` (``⌈chars / CHARS_PER_TOKEN⌉``)."""
    return math.ceil(len(gold_text(question)) / CHARS_PER_TOKEN)


def token_budgets(questions: Iterable[Question]) -> dict[str, int]:
    """Question type → generated-token budget for this question set (see the module docstring)."""
    out = dict(DEFAULT_MAX_TOKENS)
    for q in questions:
        if q.question_type in ("expression", "go_annotation", "summary"):
            need = math.ceil(MARGIN * gold_tokens(q))
            if need > out[q.question_type]:
                out[q.question_type] = need
    return out
