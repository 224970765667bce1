"""Score predictions made elsewhere (``knowsum recall score``), with no model call: every metric of a
run, on the rows :mod:`knowsum.recall._prediction_file` reads (its docstring lists the formats).

The prediction may be a bare ID or a whole chatty answer: the ID is extracted as in a chat run, and
the answers of ``--invariance-file`` files are read the same one way (:data:`ANSWERS_PREFIX`). A gold ID
that is not a well-formed ID of the KB (the released Uberon files hold ``UBERON:60005380``) is kept
and compared as a string (exact match), and one note names it; so does one for well-formed gold IDs
the installed KB lacks. A concept on two rows is refused (:class:`~knowsum.errors.InputFileError`
naming both lines), before anything is scored or written.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from knowsum.errors import InputError, InputFileError
from knowsum.kb import load_ontology
from knowsum.recall._concepts import Concept, LabelIndex, universe
from knowsum.recall._config import InvarianceMethod, polysemy_default
from knowsum.recall._extract import IdExtractor
from knowsum.recall._invariance import bucketing_caveats
from knowsum.recall._invariance_files import check_invariance_options, score_invariance_file
from knowsum.recall._outputs import RecallRun, default_out, write_run
from knowsum.recall._paper import Study, subset_caveats
from knowsum.recall._popularity import Buckets, coverage_note, known_popularity, load_popularity_source
from knowsum.recall._prediction_file import PredictionRow, read_predictions
from knowsum.recall._score import Judge, Scoring, score
from knowsum.recall.record import InvarianceSummary, PredictionRecord, RecallRecord
from knowsum.records import RESULT_NAME, claim_run_dir, text_hash

__all__ = ["ANSWERS_PREFIX", "PredictionRow", "read_predictions", "score_predictions"]

ANSWERS_PREFIX = ""
"""The completion prefix every answer made elsewhere is read with — a predictions file's and an
``--invariance-file``'s alike, one reading per command: none, as a chat answer, so a bare digit
string (``0001822``) is no ID. The prompt behind such an answer is unknown (the paper asked chat
models in chat form and Pythia-12B with a completion prompt ending in ``GO:``, §4.2); the authors'
released predictions all carry the prefix, and the 7 bare digit strings of their PI-2 answers are
no ID in the values docs/recall.md reports."""


def score_predictions(
    kb: str,
    path: Path,
    *,
    popularity: str | None = None,
    n_buckets: int = 50,
    top_k: int = 500,
    n_perm: int = 10_000,
    seed: int = 0,
    polysemy: bool | None = None,
    out: Path | None = None,
    invariance_files: Sequence[tuple[InvarianceMethod, Path]] = (),
    per_bucket: int | None = None,
    overwrite: bool = False,
) -> RecallRun:
    """Score a predictions file against the installed ``kb`` (every metric of a run, no model) and
    write its run directory, as a run does.

    Args:
        kb: Installed KB the IDs belong to.
        path: Predictions file (see module docstring).
        popularity: Popularity source overriding the file's column (``web``, a file, a proxy);
            ``None`` uses the file's popularity values if any.
        n_buckets: As in :class:`~knowsum.recall.RecallConfig`.
        top_k: As in :class:`~knowsum.recall.RecallConfig`.
        n_perm: As in :class:`~knowsum.recall.RecallConfig`.
        seed: As in :class:`~knowsum.recall.RecallConfig`.
        polysemy: As in :class:`~knowsum.recall.RecallConfig` (``None``: on for Wikidata only, the
            paper's rule).
        out: Run directory (default ``recall-runs/score-<file stem>`` under the current directory).
        invariance_files: ``(method, answers file)`` pairs of prediction-invariance answers made
            elsewhere (the authors' ``Prompt_invariance/`` layout, :func:`score_invariance_file`):
            the file's rows are the concepts, ``per_bucket`` per bucket in bucket order. Each is
            scored under the paper's and knowsum's readings (``result.invariance``, paper first).
        per_bucket: K, concepts per bucket of the rows (required with ``invariance_files``; the
            buckets are positional, row ``i`` in bucket ``i // K + 1``, never re-made from popularity;
            where the popularity analysis buckets the rows otherwise, the record carries the caveat of
            :func:`~knowsum.recall._invariance.bucketing_caveats`).
        overwrite: Empty ``out`` first when it holds another run (else such a run is refused before
            anything is written: :func:`knowsum.records.claim_run_dir`). Another run is other
            settings or other content: the scored file and the answers files are named by a hash of
            their bytes, so a copy under another name is the same run and other rows under the
            same name another.

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set (checked once the
            files are read, before anything is written), or a scored file recorded by its path by an
            earlier knowsum (whether it held the same rows cannot be told).
        InputFileError: rows or an answers file that cannot be read, or gold IDs none of which has
            the KB's ID syntax (the wrong --kb); nothing is written.
        ConfigError: ``invariance_files`` without ``per_bucket`` (or the reverse), a method given
            twice, a K that does not divide the rows, or a ``popularity`` source with a value for
            none of the rows (as ``recall run`` refuses it; one covering some of them gets a note).
    """
    check_invariance_options(invariance_files, per_bucket)
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    extractor = IdExtractor(kb)
    fmt, rows = read_predictions(path)
    gold: list[str] = []
    malformed: list[PredictionRow] = []
    for r in rows:
        gid = extractor.normalize(r.id)
        if gid is None:
            malformed.append(r)
        gold.append(r.id if gid is None else gid)
    if malformed and len(malformed) == len(rows):
        first = malformed[0]
        raise InputFileError(
            path,
            f"none of the {len(rows)} gold IDs is a well-formed {kb} ID (the first: {first.id!r}, line "
            f"{first.line}): give the --kb the IDs belong to",
        )
    _refuse_repeats(path, gold, rows)
    timings["read"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ontology = load_ontology(kb)
    timings["load_kb"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    source = f"{fmt} file"
    known: dict[str, float] = {}
    if popularity is not None:
        pop = load_popularity_source(kb, popularity, set(gold))
        source = popularity
        if pop is not None:  # None: --popularity none, no popularity analysis as asked
            known = known_popularity(kb, source, pop, gold)  # refused when it has none of the rows
    else:
        known = {g: r.popularity for g, r in zip(gold, rows, strict=True) if r.popularity is not None}
    buckets = Buckets.build(known, n_buckets) if known else None
    use_polysemy = polysemy_default(kb) if polysemy is None else polysemy
    index = LabelIndex.of(ontology) if use_polysemy else None
    judge = Judge(ontology)
    timings["buckets_and_labels"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    records: list[PredictionRecord] = []
    labels: dict[str, str] = {}
    accepted: list[frozenset[str]] = []
    for gid, r in zip(gold, rows, strict=True):
        label = r.label if r.label is not None else (ontology[gid].name if gid in ontology else "")
        labels.setdefault(gid, label)
        concept = Concept(gid, label, known.get(gid), buckets.of.get(gid) if buckets is not None else None)
        accepted.append(index.ids(label) if index is not None else frozenset())
        answer = r.prediction.strip()
        # a malformed gold ID is compared as a string: the exact answer is that ID
        predicted = (
            answer if answer == gid and gid not in ontology else extractor.extract(answer, ANSWERS_PREFIX)
        )
        records.append(judge(concept, r.prediction, predicted, accepted[-1]))
    timings["judge"] = time.perf_counter() - t0
    kept_as_given = {r.line for r in malformed}
    unknown = [
        r for g, r in zip(gold, rows, strict=True) if g not in ontology and r.line not in kept_as_given
    ]
    notes = [_malformed_warning(path, kb, malformed)] if malformed else []
    notes += [_unknown_warning(path, kb, release_of(ontology), unknown)] if unknown else []
    covered = coverage_note(source, len(known), len(gold)) if known else None
    notes += [covered] if covered else []
    invariance: list[InvarianceSummary] = []
    for method, file in invariance_files:
        t0 = time.perf_counter()
        read = score_invariance_file(
            method,
            file,
            [r.id for r in rows],
            per_bucket=per_bucket or 0,
            kb=extractor,
            completion_prefix=ANSWERS_PREFIX,  # read as the predictions are
            accepted=accepted if use_polysemy else None,
            n_perm=n_perm,
            seed=seed,
        )
        invariance += [read.paper, read.knowsum]
        records = [
            rec.model_copy(update={"answers": {**rec.answers, method: read.answers[i]}})
            for i, rec in enumerate(records)
        ]
        timings[method] = time.perf_counter() - t0
    t0 = time.perf_counter()
    # the authors' layout holds their answers after their own ID regex: compared verbatim (rule 1)
    study = Study.of(kb, judge.names, labels, verbatim=fmt == "release")
    scores = score(records, buckets, study, Scoring(source, top_k, n_perm, seed, ontology.resolve))
    timings["statistics"] = time.perf_counter() - t0
    config: dict[str, Any] = {
        "kb": kb,
        "predictions": str(path),
        "format": fmt,
        "popularity": popularity,
        "n_buckets": n_buckets,
        "top_k": top_k,
        "n_perm": n_perm,
        "seed": seed,
        "polysemy": use_polysemy,
    }
    if invariance_files:
        config["per_bucket"] = per_bucket
        config["invariance_files"] = {m: str(f) for m, f in invariance_files}
    release = release_of(ontology)
    identity = RecallRecord.identity_of(
        f"predictions {_content(path)}",
        _SCORED_MODEL,
        kb=kb,
        api="file",
        template=None,
        temperature=None,
        max_tokens=None,
        selection=f"{per_bucket} per bucket" if invariance_files else "all",
        seed=seed,
        popularity=popularity,
        n_buckets=n_buckets,
        polysemy=use_polysemy,
        invariance={m: _content(f) for m, f in invariance_files},
    )
    where = out or default_out(f"score-{path.stem}")
    if not overwrite:
        _refuse_named_by_path(where)
    out_dir = claim_run_dir(where, "recall", identity, overwrite=overwrite)
    result = RecallRecord(
        kb=kb,
        kb_release=release,
        kb_releases={kb: release},
        model=path.name,
        backend="file",
        api="file",
        config=config,
        scores=scores,
        invariance=invariance,
        timings=timings,
        notes=notes,
        identity=identity,
        caveats=[
            *subset_caveats(kb, scores.paper, len(universe(kb, ontology))),
            *(
                bucketing_caveats([r.bucket for r in records], per_bucket, source, buckets.n)
                if per_bucket and buckets is not None
                else ()
            ),
        ],
    )
    return write_run(out_dir, result, records)


_SCORED_MODEL = "predictions file"
"""The model of a scored file's identity: what answered is the file, named by its content in ``what``
(the record's ``model`` is the file's name, as tables show it)."""

_WHAT = "predictions #"
"""How the identity of a scored file starts its ``what``: its content's hash follows."""


def _content(path: Path) -> str:
    """``#`` and the first 12 hex digits of the SHA-256 of the file's bytes: a scored file (and an
    answers file) is named by its content, so another file under the same name is another run and a
    copy elsewhere the same run."""
    return text_hash(path.read_bytes())


def _refuse_named_by_path(out: Path) -> None:
    """Refuse a folder holding a scored file recorded while scored files were named by their path
    (or by their name only, before identities): what that file held is not in its record, so
    whether this file is the same cannot be told. Nothing is refused when ``out`` holds no such
    record (:func:`knowsum.records.claim_run_dir` judges the rest).

    Raises:
        InputError: such a record, naming the folder, the file it scored and the way out.
    """
    try:
        data = json.loads((out / RESULT_NAME).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return
    if not isinstance(data, dict) or data.get("kind") != "recall" or data.get("api") != "file":
        return
    ident = data.get("identity")
    what = ident.get("what") if isinstance(ident, dict) else None
    if isinstance(what, str) and what.startswith(_WHAT):
        return
    raise InputError(
        f"{out} holds a recall score of {what or data.get('model') or '?'} written by an earlier knowsum, "
        "which named a scored file by its path, not its content, so whether this file holds the same "
        "rows cannot be told: give another --out or --overwrite to replace it"
    )


def release_of(ontology: Any) -> str:
    """The installed release of ``ontology`` (``""`` when unknown)."""
    return str(ontology.meta.get("release", ""))


def _refuse_repeats(path: Path, gold: Sequence[str], rows: Sequence[PredictionRow]) -> None:
    """Each concept is scored once: a gold ID on two rows (as written or once normalized) is refused,
    naming both lines, before anything is scored or written.

    Raises:
        InputFileError: the first repeated gold ID.
    """
    first: dict[str, PredictionRow] = {}
    for gid, row in zip(gold, rows, strict=True):
        seen = first.setdefault(gid, row)
        if seen is not row:
            raise InputFileError(
                path,
                f"gold ID {gid!r} is on line {seen.line} and again here: each concept is scored once; "
                "keep one of the two rows",
                row.line,
            )


def _unknown_warning(path: Path, kb: str, release: str, rows: list[PredictionRow]) -> str:
    """One line naming the well-formed gold IDs that the installed ``kb`` does not hold."""
    shown = ", ".join(f"{r.id!r} (line {r.line})" for r in rows[:5]) + (" …" if len(rows) > 5 else "")
    n = len(rows)
    return (
        f"{path}: {n} gold ID{'s' if n > 1 else ''} not in {kb} {release or '(release unknown)'}, scored "
        f"as given (label from the file, or none: Jaccard 0): {shown}"
    )


def _malformed_warning(path: Path, kb: str, rows: list[PredictionRow]) -> str:
    """One line naming the gold IDs kept as given because they are not well-formed ``kb`` IDs."""
    shown = ", ".join(f"{r.id!r} (line {r.line})" for r in rows[:5]) + (" …" if len(rows) > 5 else "")
    n = len(rows)
    return (
        f"{path}: {n} gold ID{'s' if n > 1 else ''} not well-formed {kb} ID{'s' if n > 1 else ''}, "
        f"kept as given and compared exactly: {shown}"
    )
