"""Read a user's text file, or say in one line what is wrong with it and what to do.

Every command that reads a file it was given (observations, items, predictions, questions, batch
results, prompts) words the same problems the same way, as :class:`~knowsum.errors.InputFileError`
naming the file::

    FILE: no such file; check the path
    FILE: is a directory, not a prediction file
    FILE: not a text file (binary data: a NUL byte at byte 3); give the prediction file as UTF-8 text
    FILE: not UTF-8 text (invalid start byte at byte 50); re-save it as UTF-8 (byte 50 is on line 2)
    FILE: cannot be read (Permission denied)

No Python exception text (``[Errno 2]``, codec names) reaches the user. A byte-order mark is dropped.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path

from knowsum.errors import InputFileError

__all__ = ["check_file", "is_query_item_header", "not_utf8", "read_text_file"]

_MISSING = "no such file; check the path"
_LINE_BREAK = re.compile(rb"\r\n|\r|\n")  # the line ends Python's text mode reads


def _line_of(data: bytes, offset: int) -> int:
    """The 1-based line holding byte ``offset`` of ``data`` (``\\n``, ``\\r\\n`` and ``\\r`` end a line)."""
    return len(_LINE_BREAK.findall(data, 0, offset)) + 1


def read_text_file(path: str | Path, what: str = "file") -> str:
    """The UTF-8 text of ``path`` (a leading byte-order mark dropped).

    Args:
        path: The file.
        what: What the file is, for the messages ("prediction file", "batch results file" …).

    Raises:
        InputFileError: missing, a directory, binary (holds a NUL byte), not UTF-8 (the first bad
            byte and its line named), or unreadable.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise InputFileError(path, _MISSING) from exc
    except IsADirectoryError as exc:
        raise InputFileError(path, f"is a directory, not a {what}") from exc
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror or type(exc).__name__})") from exc
    nul = data.find(b"\0")
    if nul >= 0:
        raise InputFileError(
            path, f"not a text file (binary data: a NUL byte at byte {nul}); give the {what} as UTF-8 text"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, not_utf8(data, "re-save it as UTF-8")) from exc


def not_utf8(data: bytes, fix: str) -> str:
    """The one sentence of a file whose bytes ``data`` are not UTF-8: the reason, the first bad byte
    (counted in the file, a byte-order mark included) and its line, then ``fix``:
    ``not UTF-8 text (invalid start byte at byte 50); FIX (byte 50 is on line 2)``. A reader that
    streams its file (and so meets the bad byte inside a chunk) gives the whole file's bytes here.
    """
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        at = exc.start + (len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)  # in the file
        line = _line_of(data, at)
        return f"not UTF-8 text ({exc.reason} at byte {at}); {fix} (byte {at} is on line {line})"
    return f"not UTF-8 text; {fix}"


def check_file(path: str | Path, what: str = "file") -> Path:
    """``path`` if it names an existing file (checked before any work starts; read it later with
    :func:`read_text_file`).

    Raises:
        InputFileError: missing, or a directory (the same words as :func:`read_text_file`).
    """
    path = Path(path)
    if not path.exists():
        raise InputFileError(path, _MISSING)
    if path.is_dir():
        raise InputFileError(path, f"is a directory, not a {what}")
    return path


def is_query_item_header(fields: list[str]) -> bool:
    """Whether ``fields`` (the first line of a ``QUERY<TAB>ITEM`` file, split on the tab) name its
    columns, ``query`` and ``item`` (or ``items``) in any case: a header line, read as such by every
    reader of the format rather than as a query named "query"."""
    return (
        len(fields) == 2
        and fields[0].strip().lower() == "query"
        and fields[1].strip().lower() in ("item", "items")
    )
