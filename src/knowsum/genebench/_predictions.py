"""Score answers produced elsewhere: a question file plus a prediction file (no model call).

Prediction file: JSONL, one reply per line::

    {"question_index": "…", "permutation": 2, "response": "B"}

``permutation`` (the cyclic rotation the options were shown in, see ``_prompts.rotate``) is optional
and defaults to 0 (the options as written in the question file); it is ignored for questions without
options. Every bad line stops with one message naming the file and line.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from knowsum.errors import InputFileError
from knowsum.genebench._aggregate import summarize
from knowsum.genebench._result import GenebenchResult, InstanceRecord
from knowsum.genebench._run import _go_mapper, _methods, _sha, _summary_scorer, score_records
from knowsum.genebench._schema import Question, read_questions

__all__ = ["read_predictions", "score_predictions"]


def read_predictions(
    path: Path, questions: dict[str, Question]
) -> tuple[list[tuple[Question, int | None]], list[str]]:
    """``(question, rotation)`` pairs and replies of a prediction file.

    Raises:
        InputFileError: unreadable file; a line that is not a JSON object; a missing or non-string
            ``response``; an unknown ``question_index``; a rotation out of range; a repeated
            (question, rotation) pair; or no prediction at all.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"cannot read the prediction file ({exc})") from exc
    pairs: list[tuple[Question, int | None]] = []
    replies: list[str] = []
    seen: dict[tuple[str, int | None], int] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFileError(path, f"not a JSON object ({exc.msg})", no, line) from exc
        if not isinstance(row, dict):
            raise InputFileError(path, "not a JSON object", no, line)
        qi = row.get("question_index")
        if not isinstance(qi, str) or qi not in questions:
            raise InputFileError(path, f"unknown question_index {qi!r} (not in the question file)", no, line)
        reply = row.get("response")
        if not isinstance(reply, str):
            raise InputFileError(path, "'response' must be a string", no, line)
        q = questions[qi]
        perm = row.get("permutation", 0)
        rot: int | None = None
        if q.options:
            if isinstance(perm, bool) or not isinstance(perm, int) or not 0 <= perm < len(q.options):
                raise InputFileError(
                    path,
                    f"permutation {perm!r} out of range 0..{len(q.options) - 1} for this question",
                    no,
                    line,
                )
            rot = perm
        key = (qi, rot)
        if key in seen:
            raise InputFileError(path, f"repeats the prediction of line {seen[key]}", no, line)
        seen[key] = no
        pairs.append((q, rot))
        replies.append(reply)
    if not pairs:
        raise InputFileError(path, "no predictions in the file")
    return pairs, replies


def score_predictions(
    questions_path: Path, predictions_path: Path, *, n_buckets: int = 10, n_perm: int = 10_000, seed: int = 0
) -> tuple[GenebenchResult, list[InstanceRecord], list[Question]]:
    """Score a prediction file against a question file: the same result record as a run."""
    questions = read_questions(questions_path)
    pairs, replies = read_predictions(predictions_path, {q.question_index: q for q in questions})
    asked = list({q.question_index: q for q, _ in pairs}.values())
    go, summary = _go_mapper(asked), _summary_scorer(asked)
    records = score_records(pairs, replies, go=go, summary=summary)
    permutations = "cyclic" if any(r not in (None, 0) for _, r in pairs) else "none"
    scores = summarize(
        records, methods=_methods(go, summary, permutations), n_buckets=n_buckets, n_perm=n_perm, seed=seed
    )
    result = GenebenchResult(
        model="predictions file",
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        questions_file=str(questions_path),
        questions_sha256=_sha(questions),
        n_questions=len(asked),
        n_instances=len(pairs),
        config={"predictions": str(predictions_path)},
        scores=scores,
    )
    return result, records, asked
