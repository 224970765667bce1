"""Write and read the files of a recall run: ``result.json``, ``predictions.jsonl``, plots, ``report.html``.

Every file is written to a temporary name in the run directory and renamed into place, so an
interrupted write never leaves a half-written artifact.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from knowsum._util import atomic_write
from knowsum.errors import InputFileError
from knowsum.recall._result import RESULT_VERSION, PredictionRecord, RecallResult

__all__ = ["load_result", "write_outputs"]


def _atomic(path: Path, data: bytes) -> None:
    with atomic_write(path, "wb") as fh:
        fh.write(data)


def write_outputs(
    out_dir: Path, result: RecallResult, records: Sequence[PredictionRecord], report: bool = True
) -> list[Path]:
    """Write the artifacts of a run or a scored file into ``out_dir`` (created) and return their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    lines = "".join(r.model_dump_json() + "\n" for r in records)
    written = []
    pred = out_dir / "predictions.jsonl"
    _atomic(pred, lines.encode())
    written.append(pred)
    if report:
        from knowsum.report.recall import write_recall_report

        written.extend(
            write_recall_report(
                out_dir, result.model_dump(mode="json"), [r.model_dump(mode="json") for r in records]
            )
        )
    res = out_dir / "result.json"
    _atomic(res, (result.model_dump_json(indent=2) + "\n").encode())
    written.append(res)
    return written


def load_result(path: Path) -> RecallResult:
    """Read ``result.json`` (or the directory holding it) of a recall run.

    Raises:
        InputFileError: missing, unreadable, not a recall record, or a newer schema version.
    """
    file = path / "result.json" if path.is_dir() else path
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(
            file, f"cannot read a recall result ({exc}); pass a run directory or its result.json"
        ) from exc
    if not isinstance(data, dict) or data.get("kind") != "recall":
        raise InputFileError(file, "not a recall result.json (kind != 'recall'); pass a recall run directory")
    if int(data.get("version", 0)) > RESULT_VERSION:
        raise InputFileError(file, f"result version {data.get('version')} is newer than this knowsum reads")
    try:
        return RecallResult.model_validate(data)
    except ValidationError as exc:
        raise InputFileError(file, f"invalid recall result: {exc.errors()[0]['msg']}") from exc
