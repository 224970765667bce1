"""Write and read the files of a genebench run: questions, predictions, result, plots, report.

Every file is written under a temporary name and renamed into place; ``result.json`` is written last,
so a run directory with a ``result.json`` is complete.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from knowsum._util import atomic_write
from knowsum.errors import InputFileError
from knowsum.genebench._result import RESULT_VERSION, GenebenchResult, InstanceRecord
from knowsum.genebench._schema import Question, write_questions

__all__ = ["load_result", "write_outputs"]


def write_outputs(
    out_dir: Path,
    result: GenebenchResult,
    records: Sequence[InstanceRecord],
    questions: Sequence[Question],
    report: bool = True,
) -> list[Path]:
    """Write ``questions.jsonl``, ``predictions.jsonl``, plots, ``report.html`` and ``result.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    qpath = out_dir / "questions.jsonl"
    write_questions(qpath, questions)
    written.append(qpath)
    pred = out_dir / "predictions.jsonl"
    with atomic_write(pred, "w") as fh:
        for r in records:
            fh.write(r.to_json() + "\n")
    written.append(pred)
    if report:
        from knowsum.report.genebench import write_genebench_report

        written.extend(
            write_genebench_report(
                out_dir, result.model_dump(mode="json"), [r.as_dict(drop_none=False) for r in records]
            )
        )
    res = out_dir / "result.json"
    with atomic_write(res, "w") as fh:
        fh.write(result.model_dump_json(indent=2) + "\n")
    written.append(res)
    return written


def load_result(path: Path) -> GenebenchResult:
    """Read ``result.json`` (or the run directory holding it).

    Raises:
        InputFileError: missing, unreadable, not a genebench record, or a newer schema version.
    """
    file = path / "result.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(file, f"cannot read a genebench result ({exc}); pass a run directory") from exc
    if not isinstance(data, dict) or data.get("kind") != "genebench":
        raise InputFileError(file, "not a genebench result.json (kind != 'genebench'); pass a genebench run")
    if int(data.get("version", 0)) > RESULT_VERSION:
        raise InputFileError(file, f"result version {data.get('version')} is newer than this knowsum reads")
    try:
        return GenebenchResult.model_validate(data)
    except ValidationError as exc:
        raise InputFileError(file, f"invalid genebench result: {exc.errors()[0]['msg']}") from exc
