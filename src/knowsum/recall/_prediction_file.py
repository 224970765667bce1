"""Read a predictions file made elsewhere (``knowsum recall score``): detect its format, read its rows.

Accepted formats (detected from the content):

- the paper's public release: ``;``-separated, no header,
  ``ID;label;n_annotations;n_web_occurrences;prediction`` (the 4th column is the popularity);
- CSV (``,``, ``;`` or tab) with a header naming at least ``id`` and ``prediction`` (optional
  ``label``, ``popularity``);
- JSONL, one object per line with ``id`` and ``prediction`` (optional ``label``, ``popularity``).

Rows that cannot be read (wrong column count, no prediction, a popularity that is not a number…)
raise :class:`~knowsum.errors.InputFileError` naming the file, the first bad line and how many more
there are.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowsum._util import read_text_file
from knowsum.errors import InputFileError

__all__ = ["PredictionRow", "read_predictions"]


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


def _dict_row(no: int, obj: Any, *, null: bool = True) -> PredictionRow:
    """The row of a JSON object or a CSV record (``null=False``: a ``None`` prediction is a short
    row, since CSV cannot say null); a missing ``prediction`` is refused, an empty or JSON ``null``
    one is no answer."""
    if not isinstance(obj, dict):
        raise _BadRowError("expected a JSON object")
    keys = {str(k).strip().lower(): v for k, v in obj.items()}
    gid, pred = keys.get("id"), keys.get("prediction")
    if not isinstance(gid, str) or not gid.strip():
        raise _BadRowError("missing or empty 'id'")
    if "prediction" not in keys or (pred is None and not null):
        raise _BadRowError("missing 'prediction' (give the answer; an empty one is no answer)")
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


def _not_csv(fmt: str, text: str) -> str:
    """Why a file read in the release layout was not read as a CSV, when its first line looks like a
    CSV header (fields separated by commas or tabs, no ``;``): the header did not name both columns."""
    first = next((ln for ln in text.splitlines() if ln.strip()), "")
    if fmt != "release" or ";" in first or not ("," in first or "\t" in first):
        return ""
    return (
        "; read in the release layout because the first line names no 'id' and 'prediction' "
        "columns: a CSV file needs a header line naming both (id,prediction[,label,popularity])"
    )


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
                rows.append(_dict_row(no, rec, null=False))
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
        raise InputFileError(path, f"{fmt} format: {problem}{more}{_not_csv(fmt, text)}", no, line)
    if not rows:
        raise InputFileError(path, "no prediction rows")
    return fmt, rows
