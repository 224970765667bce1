"""Run genebench end to end: questions → prompts (every rotation) → model (store) → validate → score.

Data flow::

    config ─► questions (file, or built from the gene KB + GO + user files)
           ─► instances (cyclic rotations of choice options, §4.2) ─► Fig. 11 messages
           ─► models.sample_sync (temperature 0, token budgets sized from the gold answers, store:
               resumable; finish reasons kept) ─► parse/validate (App. B; strict or --lenient)
           ─► score (App. D) ─► summarize (Tables 1, 2, 5, 6) ─► GenebenchRecord + InstanceRecords
           ─► run directory (questions, predictions, plots, report.html, result.json last)
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from knowsum._util import read_text_file
from knowsum.errors import BackendError
from knowsum.genebench._aggregate import partial_caveats, summarize, summary_caveats
from knowsum.genebench._budget import token_budgets
from knowsum.genebench._build import BuildInputs, BuildReport, build_questions
from knowsum.genebench._caveats import result_caveats
from knowsum.genebench._config import GenebenchConfig
from knowsum.genebench._goeval import GoMapper
from knowsum.genebench._outputs import GenebenchRun, default_out, write_run
from knowsum.genebench._prompts import messages, rotations
from knowsum.genebench._schema import QUESTION_TYPES, Question, dump_question, read_questions
from knowsum.genebench._score import Instance, SummaryScorerLike, score_instances
from knowsum.genebench._userdata import read_abstracts, read_expression, read_summaries
from knowsum.genebench.record import KNOWLEDGE_TITLES, PERSPECTIVES, GenebenchRecord, InstanceRecord
from knowsum.kb import installed, load_genes, load_ontology
from knowsum.models import Backend, GenerationParams, Request, ResponseStore, UsageMeter, sample_sync
from knowsum.records import RESULT_NAME, claim_run_dir, text_hash

__all__ = [
    "asked",
    "build_from_kb",
    "genebench_requests",
    "go_release",
    "instances_of",
    "missing_reasons",
    "named_result",
    "run_genebench",
    "run_identity",
    "score_records",
]

_TYPE_KNOWLEDGE = {"Q6": "expression", "Q8": "summary", "Q5": "designation", "Q7": "go_annotation"}


def build_from_kb(
    config: GenebenchConfig, progress: Callable[[str], None] | None = None
) -> tuple[list[Question], BuildReport]:
    """Build questions from the installed gene KB (+ GO when installed) and the user files of ``config``.

    Raises:
        KBNotInstalledError: the genes KB is not installed.
        InputFileError: a bad row in a user file.
    """
    store = load_genes()
    try:
        go = load_ontology("go") if installed("go") and "Q7" in config.tasks else None
        inputs = BuildInputs(
            genes=store.records(),
            go=go,
            expression=read_expression(config.expression) if config.expression else None,
            summaries=read_summaries(config.summaries) if config.summaries else None,
            abstracts=read_abstracts(config.abstracts) if config.abstracts else None,
            max_abstracts=config.max_abstracts,
        )
        questions, report = build_questions(
            inputs,
            config.tasks,
            per_type=None if config.paper_size else config.per_type,
            paper_size=config.paper_size,
            genes=config.genes,
            seed=config.seed,
            pubmed=store.pubmed_ids,
            progress=progress,
        )
    finally:
        store.close()
    report.kb_releases["genes"] = store.meta.get("release", "")
    if go is not None:
        report.kb_releases["go"] = go.meta.get("release", "")
    return questions, report


def missing_reasons(report: BuildReport) -> dict[str, str]:
    """Knowledge type → why it was not asked, from a build report."""
    return {
        _TYPE_KNOWLEDGE.get(task, task): why
        for task, why in report.skipped.items()
        if task in _TYPE_KNOWLEDGE
    }


def instances_of(questions: Sequence[Question], permutations: str) -> list[tuple[Question, int | None]]:
    """``(question, rotation)`` pairs: every rotation of a choice question (or rotation 0 only)."""
    out: list[tuple[Question, int | None]] = []
    for q in questions:
        if q.options:
            rots = rotations(q) if permutations == "cyclic" else (0,)
            out += [(q, r) for r in rots]
        else:
            out.append((q, None))
    return out


def _sha(questions: Sequence[Question]) -> str:
    h = hashlib.sha256()
    for q in questions:
        h.update(dump_question(q).encode() + b"\n")
    return h.hexdigest()


def _summary_scorer(questions: Sequence[Question]) -> SummaryScorerLike | None:
    if not any(q.question_type == "summary" for q in questions):
        return None
    from knowsum.genebench._textscore import SummaryScorer

    scorer: SummaryScorerLike = SummaryScorer()
    return scorer


def _go_mapper(questions: Sequence[Question]) -> GoMapper | None:
    if not any(q.question_type == "go_annotation" for q in questions):
        return None
    return GoMapper(load_ontology("go"))


def go_release(go: GoMapper | None) -> dict[str, str]:
    """``{"go": release}`` of the GO the GO answers were mapped with (empty without GO questions)."""
    return {} if go is None else {"go": go.go.meta.get("release", "")}


def named_result(records: Sequence[InstanceRecord], **fields: Any) -> GenebenchRecord:
    """A :class:`GenebenchRecord` of the scored ``records`` carrying the instrument's Table 2 titles and
    perspectives and the caveats of its figures (:func:`summary_caveats`, :func:`partial_caveats`,
    :func:`~knowsum.genebench._caveats.result_caveats`)."""
    titles = {"knowledge_titles": dict(KNOWLEDGE_TITLES), "perspectives": dict(PERSPECTIVES)}
    scores = fields["scores"]
    caveats = [
        *summary_caveats(records),
        *partial_caveats(scores, KNOWLEDGE_TITLES),
        *result_caveats(records, scores, fields.get("kb_releases", {}).get("go", "")),
    ]
    return GenebenchRecord(**titles, caveats=caveats, **fields)


def score_records(
    pairs: Sequence[tuple[Question, int | None]],
    texts: Sequence[str],
    *,
    go: GoMapper | None = None,
    summary: SummaryScorerLike | None = None,
    truncated: Sequence[bool] | None = None,
    lenient: bool = False,
) -> list[InstanceRecord]:
    """Score replies ``texts`` to the instances ``pairs`` (same order).

    ``truncated[i]``: reply ``i`` was stopped at the token limit; ``lenient``: the reply rule.
    """
    cut = truncated if truncated is not None else [False] * len(texts)
    insts = [Instance(q, r, t, c) for (q, r), t, c in zip(pairs, texts, cut, strict=True)]
    return score_instances(insts, go, summary, lenient=lenient)


def _sample(
    backend: Backend, requests: Sequence[Request], store: ResponseStore | None, progress: bool | None
) -> tuple[list[str], list[bool]]:
    """Replies and "stopped at the token limit" flags (``finish_reason == 'length'``), request order.

    Raises:
        BackendError: some requests failed for good (every success is stored; a rerun retries).
    """
    responses = sample_sync(backend, requests, store=store, progress=progress, description="genebench")
    by_key = {r.key: r for r in responses}
    got = [by_key.get(backend.key(req)) for req in requests]
    failed = sum(1 for r in got if r is None or not r.ok)
    if failed:
        raise BackendError(
            f"{failed} of {len(requests)} requests failed; rerun the same command to retry them"
        )
    return [r.text for r in got if r], [r.finish_reason == "length" for r in got if r]


def _methods(
    go: GoMapper | None, summary: SummaryScorerLike | None, permutations: str, lenient: bool = False
) -> dict[str, str]:
    out = {
        "reply checking": "lenient: letters found in a sentence or as option text, JSON inside text"
        if lenient
        else "strict (App. B): the reply is the letter(s) (punctuation or a JSON wrapper allowed) or "
        "one JSON value that validates; a reply cut at the token limit that fails is 'truncated'",
        "single choice": "accuracy (eq. 1), mean ± population std over cyclic rotations"
        if permutations == "cyclic"
        else "accuracy (eq. 1), options in the given order",
        "multiple choice": "macro precision/recall/F1 over option letters (eq. 2–3)",
        "expression": "0.5·category match + 0.5·tissue F1 (eq. 4)",
        "overall": "equal mean of the knowledge types asked (Table 2); a type = mean of its cells",
    }
    if go is not None:
        out["go_annotation"] = (
            "CAFA-style: descriptions → GO IDs by normalized names + synonyms; unmappable = hallucinated; "
            "closure over is_a + part_of without the aspect roots; "
            f"GO release {go.go.meta.get('release') or '?'}"
        )
    if summary is not None:
        out.update(summary.methods())
    return out


def run_genebench(
    config: GenebenchConfig,
    backend: Backend,
    *,
    store: ResponseStore | None,
    out: Path | None = None,
    progress: bool | None = None,
    questions: Sequence[Question] | None = None,
    build_progress: Callable[[str], None] | None = None,
    overwrite: bool = False,
) -> GenebenchRun:
    """Ask ``backend`` every instance of the benchmark, score it and write the run directory.

    Args:
        config: The run configuration.
        backend: The model (the caller opens and closes it).
        store: Response store; a rerun asks only what is missing (``None``: nothing is kept).
        out: Run directory (default ``genebench-runs/<model>`` under the current directory).
        progress: Progress bars on stderr (``None``: when stderr is a terminal).
        questions: Questions to ask (overrides ``config.questions`` and building).
        build_progress: Called with a line per built task.
        overwrite: Empty ``out`` first when it holds another run (else such a run is refused
            before anything is built or asked: :func:`knowsum.records.claim_run_dir`).

    Returns:
        The result, the run directory (questions.jsonl, predictions.jsonl, plots/, report.html,
        result.json) and its page.

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set.
        BackendError: requests that failed for good (rerun to retry them).
    """
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    source = "given"
    if questions is None and config.questions is not None:
        questions = read_questions(config.questions)  # read first: the run is named by their content
        source = str(config.questions)
    identity = run_identity(config, backend.model_id, questions=questions)
    sha = None if questions is None else _sha(questions)
    out_dir = _claim(out or default_out(backend.model_id), identity, sha, overwrite)
    meter = UsageMeter(backend, store)
    build: dict[str, Any] = {}
    missing: dict[str, str] = {}
    releases: dict[str, str] = {}
    if questions is None:
        questions, report = build_from_kb(config, build_progress)
        build = {
            "counts": report.counts,
            "skipped": report.skipped,
            "unknown_genes": report.unknown_genes,
        }
        missing = missing_reasons(report)
        releases.update(report.kb_releases)
        source = "built"
    questions = list(questions)
    timings["questions"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    pairs, budgets, requests = asked(config, questions)
    texts, truncated = _sample(meter.backend, requests, store, progress)
    timings["generate"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    go, summary = _go_mapper(questions), _summary_scorer(questions)
    records = score_records(pairs, texts, go=go, summary=summary, truncated=truncated, lenient=config.lenient)
    scores = summarize(
        records,
        missing=missing,
        methods=_methods(go, summary, config.permutations, config.lenient),
        n_buckets=config.n_buckets,
        n_perm=config.n_perm,
        seed=config.seed,
        lenient=config.lenient,
    )
    timings["score"] = time.perf_counter() - t0
    result = named_result(
        records,
        model=backend.model_id,
        backend=backend.kind,
        kb_releases={**releases, **go_release(go)},
        questions_file=source,
        questions_sha256=_sha(questions),
        n_questions=len(questions),
        n_instances=len(pairs),
        config=config.model_dump(mode="json"),
        max_tokens=budgets,
        build=build,
        scores=scores,
        timings=timings,
        usage=meter.usage(),
        identity=identity,
    )
    return write_run(out_dir, result, records, questions)


def asked(
    config: GenebenchConfig, questions: Sequence[Question]
) -> tuple[list[tuple[Question, int | None]], dict[str, int], list[Request]]:
    """What a run of ``questions`` asks: each (question, rotation) instance, the token budget per
    question type, and one chat request per instance — what :func:`run_genebench` sends and what a
    profile's plan counts (:func:`genebench_requests`)."""
    pairs = instances_of(questions, config.permutations)
    budgets = {t: config.tokens(t, token_budgets(questions)) for t in QUESTION_TYPES}
    requests = [
        Request(
            messages=messages(q, r or 0),
            params=GenerationParams(
                temperature=config.temperature,
                top_p=1.0,
                max_tokens=budgets[q.question_type],
                seed=config.seed,
            ),
        )
        for q, r in pairs
    ]
    return pairs, budgets, requests


def genebench_requests(config: GenebenchConfig, questions: Sequence[Question]) -> list[Request]:
    """The requests a run of ``questions`` sends (:func:`asked`)."""
    return asked(config, questions)[2]


def _questions_what(sha256: str) -> str:
    """The ``what`` of a run of a question set known before it starts (a file, or questions given in
    code): ``questions #`` and the first 12 hex digits of its ``questions_sha256``. The content, not
    the file's name, so another set under the same name is another run and a copy the same run."""
    return f"questions #{sha256[:12]}"


def run_identity(
    config: GenebenchConfig, model_id: str, *, questions: Sequence[Question] | None = None
) -> dict[str, str]:
    """What makes a genebench run another run (``GenebenchRecord.IDENTITY``): the questions (by their
    content: ``questions``, else those of ``config.questions``; or the settings they are built with,
    each user file by its content), how they are asked and checked.

    Raises:
        InputFileError: the question file or a user file cannot be read.
    """
    if questions is None and config.questions is not None:
        questions = read_questions(config.questions)
    if questions is not None:
        return GenebenchRecord.identity_from(_questions_what(_sha(questions)), model_id, config, build="")
    given = (config.expression, config.summaries, config.abstracts)
    files = [None if f is None else text_hash(read_text_file(f, "data file")) for f in given]
    build = (
        f"tasks {','.join(config.tasks)}; per type {config.per_type}; genes {config.genes}; "
        f"paper size {config.paper_size}; expression {files[0]}; summaries {files[1]}; "
        f"abstracts {files[2]} (at most {config.max_abstracts})"
    )
    return GenebenchRecord.identity_from("built questions", model_id, config, build=build)


def _claim(out: Path, identity: dict[str, str], sha: str | None, overwrite: bool) -> Path:
    """:func:`claim_run_dir` for ``identity``, also reading a run folder written while questions were
    named by their file's path (``what``: the file as given, or ``given questions`` for questions
    given in code; the record holds their ``questions_sha256``): when that record's questions are the
    ones asked (``sha``), its ``what`` stands for them, so a rerun continues into the folder and
    another setting is named; other questions are refused as another run."""
    try:
        old = json.loads((out / RESULT_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        old = None
    if isinstance(old, dict) and old.get("kind") == "genebench" and isinstance(old.get("identity"), dict):
        what = old["identity"].get("what")
        by_name = what == "given questions" or (what is not None and what == old.get("questions_file"))
        if by_name and sha is not None and old.get("questions_sha256") == sha:
            identity = {**identity, "what": str(what)}
    return claim_run_dir(out, "genebench", identity, overwrite=overwrite)
