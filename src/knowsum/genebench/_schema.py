"""The question record of SciHorizon-GENE and its JSONL file (one question per line).

The fields are the benchmark's released layout (Huang et al., §3.2 and App. C Fig. 10; the authors'
``questions_sample_5`` file), so official question files run unchanged and files built here can be
shared:

=================  =====================================================================================
``question_index`` sha256 hex; built here: of the question content (type, knowledge, question, options,
                   context); in the release the with- and without-abstracts forms of a summary share it
``question_type``  ``single_choice`` | ``multiple_choice`` | ``expression`` | ``go_annotation`` | ``summary``
``knowledge``      ``full name`` | ``synonyms`` | ``chromosome`` | ``gene_type`` | ``designation`` |
                   ``expression`` | ``go_annotation`` | ``summary``
``question``       the question text (Fig. 10 wording)
``options``        letter → option text (choice types only)
``answer``         a letter; a list of letters; a list of ``{"go": "<qualifier> <term name>",
                   "evidence": CODE}``; ``{"tissue_list": [...], "category": ...}``; a text
``context``        literature context of Q7/Q8 (``""`` without abstracts)
``batch_id``       int or null
``perspective``    ``study_bias`` | ``hallucination`` | ``completeness`` | ``literature_utilize``
``flag``           ``loc`` | ``non-loc`` | ``no_ref`` | ``with_ref``
=================  =====================================================================================

Beyond the release (optional, written by ``genebench build``): ``task`` (``Q1`` … ``Q8``, ``Q2-A`` …),
``gene``, ``gene_id`` and ``pubmed_count`` (the research-attention signal).

**Identity.** A question is identified by ``(question_index, flag)`` (:attr:`Question.key`, written
``INDEX`` or ``INDEX/with_ref``): the release gives the with- and without-abstracts forms of a question
one ``question_index`` and tells them apart by ``flag``; a prediction names the same pair.

**Low expression.** The release writes a low-expression gene as ``tissue_list: []``; the Fig. 11 prompt
asks for ``['Low expression']``. Both mean the same (:func:`expression_tissues`), on the gold and the
reply side alike.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from knowsum._util import atomic_write, read_text_file
from knowsum.errors import InputFileError

__all__ = [
    "EXPRESSION_CATEGORIES",
    "KNOWLEDGE",
    "NO_RIGHT_ANSWER",
    "QUESTION_TYPES",
    "TASKS",
    "ExpressionAnswer",
    "GoAnswer",
    "Knowledge",
    "Perspective",
    "Question",
    "QuestionType",
    "content_hash",
    "expression_tissues",
    "json_objects",
    "question_key",
    "read_questions",
    "write_questions",
]

QuestionType = Literal["single_choice", "multiple_choice", "expression", "go_annotation", "summary"]
Knowledge = Literal[
    "full name",
    "synonyms",
    "chromosome",
    "gene_type",
    "designation",
    "expression",
    "go_annotation",
    "summary",
]
Perspective = Literal["study_bias", "hallucination", "completeness", "literature_utilize"]
Flag = Literal["loc", "non-loc", "no_ref", "with_ref"]

QUESTION_TYPES: tuple[str, ...] = get_args(QuestionType)
#: The eight knowledge types of Table 2, in the paper's column order.
KNOWLEDGE: tuple[str, ...] = get_args(Knowledge)
#: The option text of a question whose gold is "no recorded value" (§3.2, |a| = 0).
NO_RIGHT_ANSWER = "No right answer"
#: The expression categories of the Fig. 11 expression prompt (Human Protein Atlas tissue categories).
EXPRESSION_CATEGORIES: tuple[str, ...] = (
    "Low expression",
    "Broad expression",
    "Biased expression",
    "Restricted expression",
    "Ubiquitous expression",
)
_CHOICE = ("single_choice", "multiple_choice")

#: Task → (question_type, knowledge, perspective): the question families of Fig. 10 (§3.2, §3.4).
TASKS: dict[str, tuple[str, str, str]] = {
    "Q1": ("single_choice", "full name", "study_bias"),
    "Q2-A": ("single_choice", "synonyms", "hallucination"),
    "Q2-B": ("multiple_choice", "synonyms", "completeness"),
    "Q3-A": ("single_choice", "chromosome", "study_bias"),
    "Q3-B": ("single_choice", "chromosome", "hallucination"),
    "Q4": ("single_choice", "gene_type", "study_bias"),
    "Q5": ("multiple_choice", "designation", "completeness"),
    "Q6": ("expression", "expression", "completeness"),
    "Q7": ("go_annotation", "go_annotation", "literature_utilize"),
    "Q8": ("summary", "summary", "literature_utilize"),
}
#: The flags of each task: the research-attention strata (LOC or named gene) of the gene questions,
#: without / with abstracts for the literature questions (Q7, Q8), as released.
_FLAGS = {task: ("no_ref", "with_ref") if task in ("Q7", "Q8") else ("loc", "non-loc") for task in TASKS}


def _family(question_type: str, knowledge: str, perspective: str, flag: str, task: str | None) -> str | None:
    """Why ``(question_type, knowledge, flag, task)`` fits no question family (``None``: it fits).

    Each family of Fig. 10 has one answer format and knowledge type, and its strata are flags (LOC or
    named gene; without or with abstracts). A question outside them would be counted, then left out of
    every cell of Tables 5–6, so it is refused where it is read. The perspective only tells Q3-A from
    Q3-B (``hallucination``), as :func:`knowsum.genebench._score.task_of` reads it.
    """
    kinds = {k for t, k, _ in TASKS.values() if t == question_type}
    if knowledge not in kinds:
        return f"knowledge {knowledge!r} is not asked as {question_type} (only {', '.join(sorted(kinds))})"
    families = [f for f, (t, k, _) in TASKS.items() if (t, k) == (question_type, knowledge)]
    if task is not None and task not in families:
        return (
            f"task {task!r} does not match a {question_type} {knowledge} question ({' or '.join(families)})"
        )
    family = task or next((f for f in families if TASKS[f][2] == perspective), families[0])
    if flag not in _FLAGS[family]:
        return f"flag {flag} is not valid for a {family} question ({' or '.join(_FLAGS[family])})"
    return None


class GoAnswer(BaseModel):
    """One gold GO annotation: ``"<qualifier> <term name>"`` and its evidence code."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    go: str = Field(min_length=1, description="Qualifier and term name, e.g. 'enables calcium ion binding'.")
    evidence: str = Field(description="GO evidence code (IDA, IEA, …).")


def expression_tissues(tissues: Iterable[str]) -> frozenset[str]:
    """Normalized tissue set of an expression answer: lower case, spaces collapsed; ``[]`` → {low expression}.

    The release writes a low-expression gene as ``tissue_list: []`` and its scorer reads an empty gold
    list as ``{'low expression'}``; the Fig. 11 prompt tells the model to answer ``['Low expression']``.
    Applied to gold and reply alike, so either spelling scores the same.
    """
    out = frozenset(" ".join(t.lower().split()) for t in tissues if t.strip())
    return out or frozenset({"low expression"})


class ExpressionAnswer(BaseModel):
    """Gold expression pattern: a category and the tissues (``[]`` or ``['Low expression']`` if low)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    tissue_list: tuple[str, ...] = Field(description="Tissues where the gene is expressed.")
    category: str = Field(description="One of the five expression categories.")

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        if value not in EXPRESSION_CATEGORIES:
            raise ValueError(f"category {value!r} is not one of {', '.join(EXPRESSION_CATEGORIES)}")
        return value


Answer = str | list[str] | list[GoAnswer] | ExpressionAnswer


def content_hash(
    question_type: str, knowledge: str, question: str, options: dict[str, str] | None, context: str | None
) -> str:
    """``question_index`` of a built question: sha256 hex of its content.

    The hashed text is type, knowledge, question, context and the ``letter␞text`` options joined by
    the unit separator ␟ (U+001F), so two questions share an index only if all of them are equal.
    """
    parts = [question_type, knowledge, question, context or ""]
    if options:
        parts += [f"{k}\x1e{v}" for k, v in options.items()]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()


class Question(BaseModel):
    """One benchmark question, as one line of the released JSONL layout (see the module docstring)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    question_index: str = Field(min_length=1, description="Unique ID: sha256 hex of the question content.")
    question_type: QuestionType = Field(description="How the answer is given and scored.")
    knowledge: Knowledge = Field(description="Gene attribute asked (Table 2 column).")
    question: str = Field(min_length=1, description="Question text (Fig. 10 wording).")
    options: dict[str, str] | None = Field(None, description="Letter → option text (choice types).")
    answer: Answer = Field(description="Gold answer; its shape depends on question_type.")
    context: str | None = Field(None, description="Literature context (Q7/Q8); '' without abstracts.")
    batch_id: int | None = Field(None, description="Batch of the release (null here).")
    perspective: Perspective = Field(description="Evaluation perspective (§3.4).")
    flag: Flag = Field(description="loc / non-loc (research attention) or no_ref / with_ref (literature).")
    task: str | None = Field(None, description="Question family of Fig. 10 (Q1 … Q8, Q2-A …); not released.")
    gene: str | None = Field(None, description="Gene symbol asked about; not in the release.")
    gene_id: int | None = Field(None, description="Entrez Gene ID; not in the release.")
    pubmed_count: int | None = Field(
        None, ge=0, description="Linked PubMed articles (attention); not released."
    )

    @model_validator(mode="before")
    @classmethod
    def _answer_shape(cls, data: Any) -> Any:
        """Parse ``answer`` by ``question_type`` (a union would guess)."""
        if not isinstance(data, dict):
            return data
        qtype, answer = data.get("question_type"), data.get("answer")
        if qtype == "go_annotation" and isinstance(answer, list):
            data = {**data, "answer": [GoAnswer.model_validate(a) for a in answer]}
        elif qtype == "expression" and isinstance(answer, dict):
            data = {**data, "answer": ExpressionAnswer.model_validate(answer)}
        return data

    @model_validator(mode="after")
    def _consistent(self) -> Question:
        qtype, ans = self.question_type, self.answer
        misfit = _family(qtype, self.knowledge, self.perspective, self.flag, self.task)
        if misfit is not None:
            raise ValueError(misfit)
        if qtype in _CHOICE:
            opts = self.options
            if not opts or len(opts) < 2:
                raise ValueError(f"a {qtype} question needs at least two options")
            letters = list(opts)
            if letters != [chr(ord("A") + i) for i in range(len(letters))]:
                raise ValueError(f"options must be lettered A, B, C… in order, got {', '.join(letters)}")
            gold = [ans] if isinstance(ans, str) else ans
            if qtype == "single_choice" and not isinstance(ans, str):
                raise ValueError("a single_choice answer is one letter")
            if qtype == "multiple_choice" and (not isinstance(ans, list) or not ans):
                raise ValueError("a multiple_choice answer is a non-empty list of letters")
            bad = [a for a in gold if not isinstance(a, str) or a not in opts]
            if bad:
                raise ValueError(f"answer letter(s) {bad} not among the options {', '.join(letters)}")
            if isinstance(ans, list) and len(set(ans)) != len(ans):
                raise ValueError("answer letters repeat")
        elif self.options:
            raise ValueError(f"a {qtype} question has no options")
        elif qtype == "expression" and not isinstance(ans, ExpressionAnswer):
            raise ValueError("an expression answer is {'tissue_list': [...], 'category': ...}")
        elif qtype == "go_annotation" and not (
            isinstance(ans, list) and all(isinstance(a, GoAnswer) for a in ans)
        ):
            raise ValueError("a go_annotation answer is a list of {'go': ..., 'evidence': ...}")
        elif qtype == "summary" and not (isinstance(ans, str) and ans.strip()):
            raise ValueError("a summary answer is a non-empty text")
        return self

    @property
    def key(self) -> str:
        """The question's identity: ``question_index``, plus ``/with_ref`` for the with-abstracts form."""
        return question_key(self.question_index, self.flag)

    @property
    def gold_letters(self) -> tuple[str, ...]:
        """The gold option letters of a choice question (``()`` for other types)."""
        if self.question_type not in _CHOICE:
            return ()
        return (self.answer,) if isinstance(self.answer, str) else tuple(str(a) for a in self.answer)

    @property
    def no_answer(self) -> bool:
        """Whether the gold is the "No right answer" option (|a| = 0, §3.2)."""
        opts = self.options or {}
        return self.question_type == "single_choice" and opts.get(str(self.answer)) == NO_RIGHT_ANSWER

    @property
    def is_loc(self) -> bool | None:
        """Whether the gene is a low-attention ``LOC…`` locus (``None`` if the gene is not recorded)."""
        if self.flag in ("loc", "non-loc"):
            return self.flag == "loc"
        if self.gene is None:
            return None
        return self.gene.startswith("LOC") and self.gene[3:].isdigit()


def question_key(question_index: str, flag: str | None) -> str:
    """:attr:`Question.key` from its parts (``INDEX`` or ``INDEX/with_ref``)."""
    return f"{question_index}/with_ref" if flag == "with_ref" else question_index


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    msg = str(err["msg"]).removeprefix("Value error, ")  # our own validators' sentences, as written
    return f"{where + ': ' if where else ''}{msg}"


def json_objects(path: Path, what: str) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """``(line number, line, object)`` for each non-blank line of a JSONL file (a question or a
    prediction file).

    Raises:
        InputFileError: the file is missing, binary, not UTF-8 or unreadable
            (:func:`knowsum._util.read_text_file`), or a line is not a JSON object — naming the file
            and line.
    """
    text = read_text_file(path, what)
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFileError(path, f"not a JSON object ({exc.msg})", no, line) from exc
        if not isinstance(data, dict):
            raise InputFileError(path, "not a JSON object", no, line)
        yield no, line, data


def read_questions(path: Path) -> list[Question]:
    """Read a question file (JSONL, one question per line; blank lines skipped).

    Raises:
        InputFileError: unreadable file, a line that is not a JSON object, a question that fails
            validation (unknown type/knowledge, answer letter not in the options…) or a repeated
            question (same ``question_index`` and, for a with/without-abstracts pair, same ``flag``)
            — naming the file and line.
    """
    out: list[Question] = []
    seen: dict[str, int] = {}
    for no, line, data in json_objects(path, "question file"):
        try:
            q = Question.model_validate(data)
        except ValidationError as exc:
            raise InputFileError(path, f"invalid question: {_first_error(exc)}", no, line) from exc
        if q.key in seen:
            raise InputFileError(
                path,
                f"question_index {q.question_index!r} (flag {q.flag}) repeats line {seen[q.key]}",
                no,
                line,
            )
        seen[q.key] = no
        out.append(q)
    if not out:
        raise InputFileError(path, "no questions in the file")
    return out


_RELEASE_KEYS = (
    "question_index",
    "question_type",
    "knowledge",
    "question",
    "options",
    "answer",
    "context",
    "batch_id",
    "perspective",
    "flag",
)
_EXTENSION_KEYS = ("task", "gene", "gene_id", "pubmed_count")


def dump_question(q: Question) -> str:
    """One JSONL line of a question: the release fields in their order, then our non-null extensions."""
    data = q.model_dump(mode="json")
    out = {k: data[k] for k in _RELEASE_KEYS if not (k == "options" and q.question_type not in _CHOICE)}
    out.update({k: data[k] for k in _EXTENSION_KEYS if data[k] is not None})
    return json.dumps(out, ensure_ascii=False)


def write_questions(path: Path, questions: Iterable[Question]) -> int:
    """Write questions as JSONL atomically (nothing half-written); returns how many were written."""
    n = 0
    with atomic_write(path, "w") as fh:
        for q in questions:
            fh.write(dump_question(q) + "\n")
            n += 1
    return n
