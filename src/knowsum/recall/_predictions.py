"""Read predictions made elsewhere and score them (``knowsum recall score``), with no model call.

Accepted formats (detected from the content):

- the paper's public release: ``;``-separated, no header,
  ``ID;label;n_annotations;n_web_occurrences;prediction`` (the 4th column is the popularity);
- CSV (``,``, ``;`` or tab) with a header naming at least ``id`` and ``prediction`` (optional
  ``label``, ``popularity``);
- JSONL, one object per line with ``id`` and ``prediction`` (optional ``label``, ``popularity``).

The prediction may be a bare ID or a whole chatty answer: the ID is extracted as in a run. Files
are read as they are: a gold ID that is not a well-formed ID of the KB (the released Uberon files
hold ``UBERON:60005380``) is kept and compared as a string (exact match), and the result carries
one warning naming it. Only rows that cannot be read (wrong column count, a popularity that is not
a number…) raise :class:`~knowsum.errors.InputFileError` naming the file, the first bad line and
how many more there are.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowsum._util import read_text_file
from knowsum.errors import InputFileError
from knowsum.kb import load_ontology
from knowsum.recall._concepts import Concept, LabelIndex
from knowsum.recall._config import InvarianceMethod, polysemy_default
from knowsum.recall._extract import IdExtractor
from knowsum.recall._invariance_files import check_invariance_options, score_invariance_file
from knowsum.recall._outputs import RecallRun, default_out, write_run
from knowsum.recall._paper import Study
from knowsum.recall._popularity import Buckets, load_popularity_source
from knowsum.recall._score import Judge, Scoring, score
from knowsum.recall.record import InvarianceSummary, PredictionRecord, RecallRecord
from knowsum.records import claim_run_dir

__all__ = ["PredictionRow", "read_predictions", "score_predictions"]


@dataclass(frozen=True, slots=True)
class PredictionRow:
    """One row of a predictions file."""

    line: int
    id: str
    prediction: str
    label: str | None = None
    popularity: float | None = None


class _BadRowError(ValueError):
    pass


def _number(value: Any, what: str, where: str = "") -> float | None:
    """A popularity value (``None`` when empty); else the error naming the field (``what``, and
    ``where`` it is), the value and the fix."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        kind = "not a number"
    else:
        if math.isfinite(x) and x >= 0:
            return x
        kind = "negative" if x < 0 else "not finite"
    raise _BadRowError(
        f"field {what} {value!r}{where} is {kind}: the popularity must be a number >= 0; correct it, "
        "or leave it empty"
    )


_RELEASE_SHAPE = "ID;label;n_annotations;n_web_occurrences;prediction"


def _release_rows(lines: list[str]) -> Iterator[tuple[int, str, PredictionRow | str]]:
    """``(line number, line, row or what is wrong with it)`` of each non-blank line."""
    for no, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cols = line.split(";")
        if len(cols) < 5:
            yield no, line, f"expected {_RELEASE_SHAPE}"
            continue
        try:
            pop = _number(cols[-2].strip(), "n_web_occurrences", " (column 4)")
        except _BadRowError as exc:
            yield no, line, str(exc)
            continue
        label = ";".join(cols[1:-3])
        yield no, line, PredictionRow(no, cols[0].strip(), cols[-1].strip(), label or None, pop)


def _dict_row(no: int, obj: Any) -> PredictionRow:
    if not isinstance(obj, dict):
        raise _BadRowError("expected a JSON object")
    keys = {str(k).strip().lower(): v for k, v in obj.items()}
    gid, pred = keys.get("id"), keys.get("prediction")
    if not isinstance(gid, str) or not gid.strip():
        raise _BadRowError("missing or empty 'id'")
    if pred is not None and not isinstance(pred, str):
        raise _BadRowError(f"'prediction' must be text, got {pred!r}")
    label = keys.get("label")
    return PredictionRow(
        no,
        gid.strip(),
        pred or "",
        str(label) if label else None,
        _number(keys.get("popularity"), "popularity"),
    )


def _detect(path: Path, text: str) -> tuple[str, str]:
    """Format name and, for CSV, the delimiter (``,``, ``;`` or tab) of the header naming the columns."""
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson") or text.lstrip().startswith("{"):
        return "jsonl", ""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    for delimiter in (",", ";", "\t"):
        header = {h.strip().lower() for h in next(csv.reader([first], delimiter=delimiter), [])}
        if {"id", "prediction"} <= header:
            return "csv", delimiter
    return "release", ""


def read_predictions(path: Path) -> tuple[str, list[PredictionRow]]:
    """Detect the format and read every row.

    Returns:
        The format name (``release``, ``csv`` or ``jsonl``) and the rows.

    Raises:
        InputFileError: unreadable file, no rows, or bad rows (first one named, others counted).
    """
    try:
        text = read_text_file(path, "predictions file")
    except InputFileError as exc:  # the shared wording, after what could not be read
        problem = str(exc).removeprefix(f"{path}: ")
        raise InputFileError(path, f"cannot read predictions: {problem}") from exc
    fmt, delimiter = _detect(path, text)
    rows: list[PredictionRow] = []
    bad: list[tuple[int, str, str]] = []
    if fmt == "release":
        for no, line, row in _release_rows(text.splitlines()):
            if isinstance(row, str):
                bad.append((no, line, row))
            else:
                rows.append(row)
    elif fmt == "csv":
        reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
        for rec in reader:
            no = reader.line_num
            try:
                if None in rec:
                    raise _BadRowError("more fields than the header")
                rows.append(_dict_row(no, rec))
            except _BadRowError as exc:
                bad.append((no, ",".join(str(v) for v in rec.values() if v is not None), str(exc)))
    else:
        for no, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(_dict_row(no, json.loads(line)))
            except (json.JSONDecodeError, _BadRowError) as exc:
                bad.append(
                    (no, line, str(exc) if isinstance(exc, _BadRowError) else f"invalid JSON ({exc.msg})")
                )
    if bad:
        no, line, problem = bad[0]
        others = ", ".join(str(b[0]) for b in bad[1:6]) + ("…" if len(bad) > 6 else "")
        more = (
            f" ({len(bad) - 1} more bad row{'s' if len(bad) > 2 else ''}: "
            f"line{'s' if len(bad) > 2 else ''} {others})"
            if len(bad) > 1
            else ""
        )
        raise InputFileError(path, f"{fmt} format: {problem}{more}", no, line)
    if not rows:
        raise InputFileError(path, "no prediction rows")
    return fmt, rows


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
            buckets are positional, row ``i`` in bucket ``i // K + 1``, never re-made from popularity).
        overwrite: Empty ``out`` first when it holds another run (else such a run is refused before
            anything is written: :func:`knowsum.records.claim_run_dir`).

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set (checked once the
            files are read, before anything is written).
        InputFileError: rows or an answers file that cannot be read, or gold IDs none of which has
            the KB's ID syntax (the wrong --kb); nothing is written.
        ConfigError: ``invariance_files`` without ``per_bucket`` (or the reverse), a method given
            twice, or a K that does not divide the rows.
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
    timings["read"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    ontology = load_ontology(kb)
    timings["load_kb"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    source = f"{fmt} file"
    if popularity is not None:
        pop = load_popularity_source(kb, popularity, set(gold))
        source = popularity
    else:
        pop = {g: r.popularity for g, r in zip(gold, rows, strict=True) if r.popularity is not None}
    known = {g: pop[g] for g in gold if pop is not None and g in pop}
    buckets = Buckets.build(known, n_buckets) if known else None
    use_polysemy = polysemy_default(kb) if polysemy is None else polysemy
    index = LabelIndex.of(ontology) if use_polysemy else None
    judge = Judge(ontology)
    prefix = extractor.syntax.prefix
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
        predicted = answer if answer == gid and gid not in ontology else extractor.extract(answer, prefix)
        records.append(judge(concept, r.prediction, predicted, accepted[-1]))
    timings["judge"] = time.perf_counter() - t0
    invariance: list[InvarianceSummary] = []
    for method, file in invariance_files:
        t0 = time.perf_counter()
        # chat answers: a bare digit string is no ID (completion_prefix ""), as in a chat run
        read = score_invariance_file(
            method,
            file,
            [r.id for r in rows],
            per_bucket=per_bucket or 0,
            kb=extractor,
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
    release = ontology.meta.get("release", "")
    identity = RecallRecord.identity_of(
        str(path.resolve()),
        path.name,
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
        invariance={m: str(f.resolve()) for m, f in invariance_files},
    )
    out_dir = claim_run_dir(out or default_out(f"score-{path.stem}"), "recall", identity, overwrite=overwrite)
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
        notes=[_malformed_warning(path, kb, malformed)] if malformed else [],
        identity=identity,
    )
    return write_run(out_dir, result, records)


def _malformed_warning(path: Path, kb: str, rows: list[PredictionRow]) -> str:
    """One line naming the gold IDs kept as given because they are not well-formed ``kb`` IDs."""
    shown = ", ".join(f"{r.id!r} (line {r.line})" for r in rows[:5]) + (" …" if len(rows) > 5 else "")
    n = len(rows)
    return (
        f"{path}: {n} gold ID{'s' if n > 1 else ''} not well-formed {kb} ID{'s' if n > 1 else ''}, "
        f"kept as given and compared exactly: {shown}"
    )
