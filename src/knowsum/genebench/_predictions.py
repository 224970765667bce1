"""Score answers produced elsewhere: a question file plus a prediction file (no model call).

Prediction file: JSONL, one reply per line::

    {"question_index": "…", "permutation": 2, "response": "B"}
    {"question_index": "…", "flag": "with_ref", "response": "…", "finish_reason": "length"}

A question is identified by ``question_index`` and, where the question file gives one index to a
with- and a without-abstracts pair (as the release does for summaries), ``flag`` (``no_ref`` /
``with_ref``) — required then, optional otherwise. ``permutation`` (the cyclic rotation the options
were shown in, see ``_prompts.rotate``) is optional and defaults to 0 (the options as written in the
question file); it is ignored for questions without options. ``finish_reason`` is optional:
``"length"`` (or ``"truncated": true``, as a run's ``predictions.jsonl`` writes it) marks a reply cut
at the token limit (a ``truncated`` format error if it fails). Every bad line stops with one message
naming the file and line.

Coverage: the instances to answer are every question of the question file — in every rotation of its
options when the file gives any rotation other than 0, else in the order written. A prediction file
that leaves some unanswered is refused, naming how many and the first one, unless ``allow_missing``
(``--allow-missing``): then each unanswered instance is scored as a wrong answer (its record says
``unanswered``), the result counts the whole question set (``n_questions``, ``n_instances``) and records
how many were answered (``config["answered"]``), and format-error rates are over the replies given.
"""

from __future__ import annotations

from pathlib import Path

from knowsum.errors import InputFileError
from knowsum.genebench._aggregate import summarize
from knowsum.genebench._outputs import GenebenchRun, default_out, write_run
from knowsum.genebench._run import (
    _go_mapper,
    _methods,
    _sha,
    _summary_scorer,
    go_release,
    instances_of,
    named_result,
    score_records,
)
from knowsum.genebench._schema import Question, json_objects, question_key, read_questions
from knowsum.genebench._score import score_unanswered
from knowsum.genebench.record import GenebenchRecord
from knowsum.records import claim_run_dir, text_hash

__all__ = ["read_predictions", "score_predictions"]


def _question(
    path: Path, no: int, line: str, row: dict[str, object], by_key: dict[str, Question]
) -> Question:
    """The question a prediction row names (``question_index`` + ``flag`` where needed)."""
    qi, flag = row.get("question_index"), row.get("flag")
    if not isinstance(qi, str) or not (qi in by_key or question_key(qi, "with_ref") in by_key):
        raise InputFileError(path, f"unknown question_index {qi!r} (not in the question file)", no, line)
    if flag is None:
        if qi in by_key and question_key(qi, "with_ref") in by_key:
            raise InputFileError(
                path,
                f'question_index {qi!r} is a with/without-abstracts pair: add "flag": "no_ref" or "with_ref"',
                no,
                line,
            )
        return by_key[qi] if qi in by_key else by_key[question_key(qi, "with_ref")]
    q = by_key.get(question_key(qi, str(flag)))
    if q is None or q.flag != flag:
        raise InputFileError(path, f"no question {qi!r} with flag {flag!r} in the question file", no, line)
    return q


def read_predictions(
    path: Path, questions: dict[str, Question]
) -> tuple[list[tuple[Question, int | None]], list[str], list[bool]]:
    """``(question, rotation)`` pairs, replies and "cut at the token limit" flags of a prediction file.

    Args:
        path: The prediction file.
        questions: :attr:`Question.key` → question.

    Raises:
        InputFileError: unreadable file; a line that is not a JSON object; a missing or non-string
            ``response``; an unknown question; a pair's index without ``flag``; a rotation out of
            range; a repeated (question, rotation) pair; or no prediction at all.
    """
    pairs: list[tuple[Question, int | None]] = []
    replies: list[str] = []
    cut: list[bool] = []
    seen: dict[tuple[str, int | None], int] = {}
    for no, line, row in json_objects(path, "prediction file"):
        q = _question(path, no, line, row, questions)
        reply = row.get("response")
        if not isinstance(reply, str):
            raise InputFileError(path, "'response' must be a string", no, line)
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
        key = (q.key, rot)
        if key in seen:
            raise InputFileError(path, f"repeats the prediction of line {seen[key]}", no, line)
        seen[key] = no
        pairs.append((q, rot))
        replies.append(reply)
        cut.append(row.get("finish_reason") == "length" or row.get("truncated") is True)
    if not pairs:
        raise InputFileError(path, "no predictions in the file")
    return pairs, replies, cut


def _describe(q: Question, rotation: int | None) -> str:
    """One instance, as a prediction line names it."""
    flag = f", flag {q.flag!r}" if q.flag in ("no_ref", "with_ref") else ""
    rot = f", permutation {rotation}" if rotation is not None else ""
    return f"question_index {q.question_index!r}{flag}{rot}"


def _unanswered(
    path: Path,
    questions: list[Question],
    pairs: list[tuple[Question, int | None]],
    allow_missing: bool,
) -> tuple[str, list[tuple[Question, int | None]], list[tuple[Question, int | None]]]:
    """``(permutations, every instance to answer, the unanswered ones)``; refused unless ``allow_missing``."""
    permutations = "cyclic" if any(r not in (None, 0) for _, r in pairs) else "none"
    expected = instances_of(questions, permutations)
    answered = {(q.key, r) for q, r in pairs}
    missing = [(q, r) for q, r in expected if (q.key, r) not in answered]
    if missing and not allow_missing:
        raise InputFileError(
            path,
            f"answers {len(pairs)} of {len(expected)} instances ({len(missing)} unanswered, the first: "
            f"{_describe(*missing[0])}); give a prediction for every instance, or pass --allow-missing "
            "to score the unanswered as wrong",
        )
    return permutations, expected, missing


def score_predictions(
    questions_path: Path,
    predictions_path: Path,
    *,
    out: Path | None = None,
    n_buckets: int = 10,
    n_perm: int = 10_000,
    seed: int = 0,
    lenient: bool = False,
    allow_missing: bool = False,
    overwrite: bool = False,
) -> GenebenchRun:
    """Score a prediction file against a question file and write the run directory, as a run does.

    Args:
        questions_path: The question file (JSONL).
        predictions_path: The prediction file (module docstring).
        out: Run directory (default ``genebench-runs/score-<predictions file stem>``).
        n_buckets: PubMed-count buckets of the attention curve.
        n_perm: Permutations of the attention Spearman test.
        seed: Seed of the permutation test.
        lenient: Lenient reply checking instead of the paper's strict rule.
        allow_missing: Score the instances no prediction answers as wrong (module docstring) instead
            of refusing the file.
        overwrite: Empty ``out`` first when it holds another run (else such a run is refused
            before anything is written: :func:`knowsum.records.claim_run_dir`).

    Raises:
        InputFileError: a bad question or prediction file, or one that leaves instances unanswered
            without ``allow_missing`` (nothing is written then).
        InputError: ``out`` holds another run and ``overwrite`` is not set (checked once the files
            are read, before anything is written).
    """
    questions = read_questions(questions_path)
    pairs, replies, cut = read_predictions(predictions_path, {q.key: q for q in questions})
    permutations, expected, missing = _unanswered(predictions_path, questions, pairs, allow_missing)
    identity = GenebenchRecord.identity_of(  # the files by content: a copy is the same run, another file not
        f"predictions {text_hash(predictions_path.read_bytes())}",
        "predictions file",
        build=f"questions {text_hash(questions_path.read_bytes())}",
        permutations=permutations,
        temperature=None,
        max_tokens=None,
        lenient=lenient,
        seed=seed,
    )
    default = default_out(f"score-{predictions_path.stem}")
    out_dir = claim_run_dir(out or default, "genebench", identity, overwrite=overwrite)
    asked = list({q.key: q for q, _ in pairs}.values())
    go, summary = _go_mapper(asked), _summary_scorer(asked)
    scored = score_records(pairs, replies, go=go, summary=summary, truncated=cut, lenient=lenient)
    by_instance = {(q.key, r): rec for (q, r), rec in zip(pairs, scored, strict=True)}
    by_instance.update({(q.key, r): score_unanswered(q, r) for q, r in missing})
    records = [by_instance[(q.key, r)] for q, r in expected]
    scores = summarize(
        records,
        methods=_methods(go, summary, permutations, lenient),
        n_buckets=n_buckets,
        n_perm=n_perm,
        seed=seed,
        lenient=lenient,
    )
    result = named_result(
        records,
        model="predictions file",
        backend="file",
        kb_releases=go_release(go),
        questions_file=str(questions_path),
        questions_sha256=_sha(questions),
        n_questions=len(questions),
        n_instances=len(expected),
        config={
            "predictions": str(predictions_path),
            "lenient": lenient,
            "n_perm": n_perm,
            "seed": seed,
            "allow_missing": allow_missing,
            "answered": len(pairs),
        },
        scores=scores,
    )
    return write_run(out_dir, result.model_copy(update={"identity": identity}), records, questions)
