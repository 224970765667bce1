"""Score prediction-invariance answers made elsewhere (paper §6; the authors' ``Prompt_invariance/``).

The layout is the one of the authors' release (``1_same_prompt_output.txt``,
``2_different_temperatures_output.txt``, ``3_different_languages_output.txt``): plain UTF-8 text,
one answer per line, ``M`` consecutive lines per concept, the concepts in the order of the concepts
file (``ID;label;…`` rows, ``K`` per popularity bucket in bucket order, so concept ``i`` (0-based)
is in bucket ``i // K + 1``). ``M`` is the number of lines divided by the number of concepts.

Each file is read two ways (:data:`READINGS`), both with ``PI = 1 − (U − 1)/(M − 1)`` per concept
(§6.1, eq. PI), ``AvPI`` the mean PI of a bucket (§6.1, eq. AvPI), the bucket accuracy the fraction
of its ``M·K`` answers that are correct, and Spearman ρ(AvPI, accuracy) over buckets with a
permutation p-value (§6.3):

- ``paper`` — the authors' rule (``compute_accuracy_per_bucket.py``): ``U`` counts the distinct
  answers *as written* (``GO: 0033954`` is not ``GO:0033954``, every distinct sentence is an
  answer of its own), and an answer is correct only when it *is* the gold ID;
- ``knowsum`` — the rule of a knowsum run (:func:`~knowsum.recall._invariance.summarize_invariance`):
  the ID is extracted and normalized (:class:`~knowsum.recall.IdExtractor`), ``U`` counts distinct
  extracted IDs with every no-ID answer the same answer, and an answer is correct when its ID is
  the gold ID.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Required, TypedDict, Unpack, get_args

from knowsum.errors import ConfigError, InputFileError
from knowsum.recall._config import PI2_TEMPERATURES, InvarianceMethod
from knowsum.recall._extract import IdExtractor
from knowsum.recall._invariance import summary_from_counts
from knowsum.recall.record import InvarianceSummary, Reading

__all__ = [
    "INVARIANCE_METHODS",
    "READINGS",
    "InvarianceOptions",
    "InvarianceReadings",
    "check_invariance_options",
    "parse_invariance_spec",
    "read_invariance_file",
    "score_invariance_answers",
    "score_invariance_file",
]

READINGS: tuple[Reading, ...] = get_args(Reading)
"""The two readings of an answers file, in the order they are reported."""

INVARIANCE_METHODS: tuple[InvarianceMethod, ...] = get_args(InvarianceMethod)
"""``pi1`` (same prompt M times), ``pi2`` (M temperatures), ``pi3`` (M prompt languages)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")  # the breaks Python's text mode (the authors' readlines) sees
_SPEC_HINT = "use METHOD=FILE, e.g. pi2=2_different_temperatures_output.txt"


def parse_invariance_spec(spec: str) -> tuple[InvarianceMethod, Path]:
    """Split a ``METHOD=FILE`` option value (``--invariance-file pi2=answers.txt``).

    Args:
        spec: ``pi1=FILE``, ``pi2=FILE`` or ``pi3=FILE`` (method case-insensitive).

    Returns:
        The method and the file path (not checked here; :func:`read_invariance_file` does).

    Raises:
        ConfigError: no ``=``, an empty file part, or an unknown method.

    Example:
        >>> parse_invariance_spec("PI2=out/temps.txt")
        ('pi2', PosixPath('out/temps.txt'))
    """
    name, sep, file = spec.partition("=")
    if not sep:
        raise ConfigError(f"--invariance-file: expected METHOD=FILE, got {spec!r}; {_SPEC_HINT}")
    method = name.strip().lower()
    for known in INVARIANCE_METHODS:
        if method == known:
            if not file.strip():
                raise ConfigError(f"--invariance-file: no file after '{known}='; {_SPEC_HINT}")
            return known, Path(file.strip())
    raise ConfigError(f"--invariance-file: unknown method {name.strip()!r}; use pi1, pi2 or pi3")


def check_invariance_options(files: Sequence[tuple[InvarianceMethod, Path]], per_bucket: int | None) -> None:
    """Check ``--invariance-file`` / ``--per-bucket`` together, before anything is read.

    Raises:
        ConfigError: answers files without K, K without answers files, or a method given twice.
    """
    if files and per_bucket is None:
        raise ConfigError(
            "--invariance-file needs --per-bucket K: the predictions file's rows are the concepts, "
            "K per bucket in bucket order (the paper's §6.2 sample: --per-bucket 20)"
        )
    if per_bucket is not None and not files:
        raise ConfigError(
            "--per-bucket K applies to --invariance-file answers only; add --invariance-file "
            "METHOD=FILE or drop --per-bucket"
        )
    seen: set[str] = set()
    for method, _ in files:
        if method in seen:
            raise ConfigError(f"--invariance-file: {method} given twice; give each method one file")
        seen.add(method)


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(path, "no such file; give the path of an existing answers file") from None
    except IsADirectoryError:
        raise InputFileError(path, "is a directory; give a text file with one answer per line") from None
    except OSError as exc:
        raise InputFileError(path, f"cannot read ({exc.strerror}); check the file's permissions") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        raise InputFileError(
            path,
            f"binary file (NUL byte at offset {nul}); save the answers as UTF-8 text, one answer per line",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(
            path,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x}); "
            "save the answers as UTF-8 text, one answer per line",
            line_no=data.count(b"\n", 0, exc.start) + 1,
        ) from None


def read_invariance_file(path: Path | str, n_concepts: int) -> list[list[str]]:
    """Read an answers file: ``n_concepts`` groups of ``M`` consecutive lines (paper §6.2 layout).

    Lines end with ``\\n``, ``\\r\\n`` or ``\\r`` (as Python's text mode reads them); one final line
    break is optional. A blank line is an answer (an empty one), as in the authors' scripts.

    Args:
        path: The answers file.
        n_concepts: Number of concepts (rows of the concepts file), in the same order.

    Returns:
        Per concept, its ``M`` answers as written (line breaks removed, nothing else changed).

    Raises:
        ConfigError: ``n_concepts < 1``.
        InputFileError: a missing, unreadable, binary, non-UTF-8 or empty file; a line count that is
            not a multiple of ``n_concepts``; ``M = 1`` (PI needs ``M >= 2``).
    """
    if n_concepts < 1:
        raise ConfigError(f"invariance file {path}: no concepts to read it against (got {n_concepts})")
    path = Path(path)
    text = _read_text(path)
    if not text.strip():
        raise InputFileError(
            path, f"empty file; expected one answer per line, M lines for each of the {n_concepts:,} concepts"
        )
    lines = _LINE_BREAK.split(text)
    if lines[-1] == "":  # the final line break
        lines.pop()
    n = len(lines)
    if n % n_concepts:
        blank = [i for i, line in enumerate(lines, 1) if not line.strip()]
        hint = (
            f"; it holds {len(blank):,} blank line(s), the first at line {blank[0]}: remove separators"
            if blank
            else ""
        )
        raise InputFileError(
            path,
            f"{n:,} lines is not a multiple of the {n_concepts:,} concepts; expected {n_concepts:,} × M "
            f"lines (one answer per line, M consecutive lines per concept, in the concepts' order){hint}",
        )
    m = n // n_concepts
    if m < 2:
        raise InputFileError(
            path,
            f"{n:,} lines for {n_concepts:,} concepts is M = 1 answer per concept; "
            "prediction invariance needs M >= 2 answers per concept (§6.1)",
        )
    return [lines[i * m : (i + 1) * m] for i in range(n_concepts)]


@dataclass(frozen=True, slots=True)
class InvarianceReadings:
    """One invariance file scored under both readings (see the module docstring).

    Attributes:
        method: ``pi1``, ``pi2`` or ``pi3``.
        source: Where the answers came from (the file path, or ``""``).
        per_bucket: K, concepts per bucket (bucket ``b`` holds rows ``(b−1)·K … b·K − 1``).
        paper: The authors' reading: answers as written, correct only if the answer is the gold ID.
        knowsum: knowsum's reading: extracted IDs, every no-ID answer the same answer.
        answers: Per concept, the ``M`` extracted IDs of the knowsum reading (``None``: no ID).
    """

    method: InvarianceMethod
    source: str
    per_bucket: int
    paper: InvarianceSummary
    knowsum: InvarianceSummary
    answers: list[list[str | None]]

    def reading(self, name: Reading) -> InvarianceSummary:
        """The summary of one reading, by name."""
        return self.paper if name == "paper" else self.knowsum

    @property
    def differ(self) -> bool:
        """Whether the two readings give different numbers."""
        return self.paper.model_copy(update={"reading": "knowsum"}) != self.knowsum


def _check_buckets(n: int, per_bucket: int) -> None:
    if per_bucket < 1 or n % per_bucket:
        raise ConfigError(
            f"--per-bucket {per_bucket}: {n:,} concepts are not K = {per_bucket} per bucket; give the K "
            "the concepts file was drawn with (K concepts per bucket, buckets in order; the paper: 20)"
        )


def _positional(n: int, per_bucket: int) -> dict[int, list[int]]:
    return {b + 1: list(range(b * per_bucket, (b + 1) * per_bucket)) for b in range(n // per_bucket)}


def _variants(method: InvarianceMethod, m: int) -> list[str]:
    if method == "pi1":
        return [f"repeat {i + 1}" for i in range(m)]
    if method == "pi2" and m == len(PI2_TEMPERATURES):
        return [f"T={t:g}" for t in PI2_TEMPERATURES]
    return [f"answer {i + 1}" for i in range(m)]  # PI-3: the file does not say which language is which


def score_invariance_answers(
    method: InvarianceMethod,
    answers: Sequence[Sequence[str]],
    gold: Sequence[str],
    *,
    per_bucket: int,
    kb: str | IdExtractor,
    completion_prefix: str = "",
    accepted: Sequence[Collection[str]] | None = None,
    n_perm: int = 10_000,
    seed: int = 0,
    source: str = "",
) -> InvarianceReadings:
    """PI per concept, AvPI and accuracy per bucket, ρ(AvPI, accuracy), under both readings (§6.1).

    ``PI = 1 − (U − 1)/(M − 1)`` with ``U`` the distinct answers of a concept; ``AvPI(B) =
    (1/K) Σ PI`` over the ``K`` concepts of bucket ``B``; Spearman ρ with a permutation p-value
    (:func:`~knowsum.recall._score.spearman_or_none`; ``None`` below 3 buckets or for a constant
    series).

    Args:
        method: ``pi1``, ``pi2`` or ``pi3`` (names the summaries and the variants).
        answers: Per concept, its ``M`` raw answers (the same ``M`` for all, ``M >= 2``).
        gold: Per concept, the gold ID, in the order of ``answers``.
        per_bucket: K: concept ``i`` (0-based) is in bucket ``i // K + 1``.
        kb: The KB name whose ID syntax the knowsum reading extracts, or a ready extractor.
        completion_prefix: The ID prefix a completion prompt ended with (``"GO:"``), if any.
        accepted: Per concept, other IDs that also count as correct (polysemy, §4.1), if any.
        n_perm: Permutations of the Spearman test.
        seed: Its seed.
        source: Where the answers came from (recorded in the result).

    Raises:
        ConfigError: ``per_bucket < 1``, a concept count that is not a multiple of it, lengths that
            differ, or ``M`` that differs between concepts or is below 2.
    """
    n = len(gold)
    if len(answers) != n:
        raise ConfigError(f"invariance answers: {len(answers)} concepts of answers for {n} gold IDs")
    if accepted is not None and len(accepted) != n:
        raise ConfigError(f"invariance answers: {len(accepted)} accepted-ID sets for {n} gold IDs")
    _check_buckets(n, per_bucket)
    m = len(answers[0]) if answers else 0
    if m < 2 or any(len(a) != m for a in answers):
        raise ConfigError("invariance answers: every concept needs the same number M >= 2 of answers")
    extractor = kb if isinstance(kb, IdExtractor) else IdExtractor(kb)
    ok = [frozenset(accepted[i]) if accepted is not None else frozenset() for i in range(n)]
    variants = _variants(method, m)
    written = [[a.strip() for a in row] for row in answers]
    gold_written = [g.strip() for g in gold]
    extracted = [[extractor.extract(a, completion_prefix) for a in row] for row in answers]
    gold_ids = [extractor.normalize(g) or g for g in gold_written]
    groups = _positional(n, per_bucket)

    def summary(reading: Reading, unique: list[int], hits: list[int]) -> InvarianceSummary:
        return summary_from_counts(
            method,
            variants,
            unique,
            hits,
            groups,
            n_perm=n_perm,
            seed=seed,
            reading=reading,
            source=source,
            per_bucket=per_bucket,
        )

    paper = summary(
        "paper",
        [len(set(row)) for row in written],
        [sum(a == g or a in x for a in row) for row, g, x in zip(written, gold_written, ok, strict=True)],
    )
    knowsum = summary(
        "knowsum",
        [len(set(row)) for row in extracted],  # every None ("no ID") is the same answer
        [
            sum(a is not None and (a == g or a in x) for a in row)
            for row, g, x in zip(extracted, gold_ids, ok, strict=True)
        ],
    )
    return InvarianceReadings(method, source, per_bucket, paper, knowsum, extracted)


class InvarianceOptions(TypedDict, total=False):
    """The scoring options :func:`score_invariance_file` passes on to :func:`score_invariance_answers`."""

    per_bucket: Required[int]
    kb: Required[str | IdExtractor]
    completion_prefix: str
    accepted: Sequence[Collection[str]] | None
    n_perm: int
    seed: int


def score_invariance_file(
    method: InvarianceMethod,
    path: Path | str,
    gold: Sequence[str],
    **options: Unpack[InvarianceOptions],
) -> InvarianceReadings:
    """Read an answers file (:func:`read_invariance_file`) and score it (:func:`score_invariance_answers`).

    Args:
        method: ``pi1``, ``pi2`` or ``pi3``.
        path: The answers file: ``len(gold) × M`` lines, ``M`` consecutive lines per concept.
        gold: The gold IDs of the concepts, in file order (e.g. the first column of the concepts
            file read with :func:`~knowsum.recall.read_predictions`).
        **options: :class:`InvarianceOptions`, as in :func:`score_invariance_answers`:
            ``per_bucket`` (K concepts per bucket, buckets in order; the paper's §6.2 sample: 20)
            and ``kb`` are required.

    Raises:
        InputFileError: the file cannot be read or does not have the layout.
        ConfigError: a bad ``per_bucket`` (see :func:`score_invariance_answers`).

    Example (the authors' GPT-3.5 GO release, ``Prompt_invariance/``)::

        _, rows = read_predictions(Path("extracted_labels.csv"))
        r = score_invariance_file("pi2", "2_different_temperatures_output.txt",
                                  [row.id for row in rows], per_bucket=20, kb="go")
        r.paper.spearman, r.knowsum.spearman   # 0.9507…, 0.9508…
    """
    _check_buckets(len(gold), options["per_bucket"])  # a bad option fails before the file is read
    answers = read_invariance_file(path, len(gold))
    return score_invariance_answers(method, answers, gold, source=str(path), **options)
