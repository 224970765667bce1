"""Read observation files for ``knowsum estimate`` into a :class:`~knowsum.stats.Prevalence`.

Three tab-separated formats (blank lines and lines starting with ``#`` are skipped):

``items``       one observation per line: ``ITEM``, or ``QUERY<TAB>ITEM`` to group by query.
``counts``      ``ITEM<TAB>COUNT`` (one line per distinct item; a header line is allowed).
``prevalence``  ``S<TAB>N_S``: N_S distinct items seen exactly S times (a header line is allowed).

:func:`read_observations` auto-detects the format when none is given and says why it chose it.
Every problem raises :class:`~knowsum.errors.InputFileError` naming the file, the line number and
the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowsum._util import is_query_item_header, not_utf8
from knowsum.errors import InputFileError
from knowsum.stats import Prevalence, StatsError

__all__ = ["FORMATS", "Format", "Observations", "read_observations"]

Format = Literal["items", "counts", "prevalence"]
FORMATS: tuple[Format, ...] = ("items", "counts", "prevalence")

_INT = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|[+-]?(inf|nan)", re.IGNORECASE)
_PREVALENCE_HEADERS = {"s", "n_s", "ns", "f", "f_s", "frequency", "times", "prevalence"}
_COUNT_HEADERS = {"item", "items", "label", "species", "name", "id", "count", "counts", "abundance"}
_COUNT_COLUMNS = {"count", "counts", "abundance"}
_MISSING = {"inf", "+inf", "-inf", "infinity", "nan", "na", "n/a", "none", "null", "-", "?"}
"""Spellings of a number or of a missing value: never a column name."""
_N_S_COLUMNS = {"n_s", "ns", "f_s"}
Line = tuple[int, str, list[str]]  # (1-based number, raw text, tab-separated fields)

MAX_COUNT = 10_000_000
"""The largest count, S or N_S a file may hold: the frequency-of-frequencies table keeps one entry
per count up to the largest (a count of 10^12 would need 7 TiB), and the bootstrap draws every
observation; the census caps its queries at the same 10^7."""


@dataclass(frozen=True, slots=True)
class Observations:
    """A parsed observation file.

    Attributes:
        prevalence: The sample.
        format: The format read.
        detected: Whether the format was auto-detected (not given).
        reason: Why that format was chosen (for the user).
        n_records: Number of data lines read.
    """

    prevalence: Prevalence
    format: Format
    detected: bool
    reason: str
    n_records: int


def _read_lines(path: Path) -> list[Line]:
    if not path.exists():
        raise InputFileError(path, "no such file; check the path")
    if path.is_dir():
        raise InputFileError(path, "is a directory, not an observation file")
    try:
        data = path.read_bytes()
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputFileError(path, not_utf8(data, "re-save it as UTF-8")) from exc
    except OSError as exc:
        raise InputFileError(path, f"cannot be read ({exc.strerror})") from exc
    lines = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw.strip() and not raw.lstrip().startswith("#"):
            lines.append((number, raw, [field.strip() for field in raw.split("\t")]))
    if not lines:
        raise InputFileError(
            path, "empty input: no observations (see `knowsum estimate --help` for the formats)"
        )
    return lines


def _reads_as_header(value: str) -> bool:
    """Whether a first line's value column reads as a column name (``count``, ``abundance``, ``n_s``):
    non-empty, without a digit, and not a number's or a missing value's spelling (``inf``, ``nan``,
    ``NA``, ``-``). A mistyped count (``3O``), an empty or a missing one is not a name: read as a
    header, that data line would be dropped without a word, so it is parsed (and refused) as data."""
    word = value.strip().lower()
    return bool(word) and word not in _MISSING and not any(c.isdigit() for c in word)


def _split_header(lines: list[Line]) -> tuple[Line | None, list[Line]]:
    """A first line whose second field :func:`_reads_as_header`, followed by lines whose second fields
    are mostly (the 80 % of :func:`_detect`) numbers, is a header: one mistyped count below it is then
    reported on its own line by the parser rather than turning the whole file into QUERY<TAB>ITEM
    observations."""
    first = lines[0]
    if len(lines) < 2 or len(first[2]) != 2 or not _reads_as_header(first[2][1]):
        return None, lines
    body = lines[1:]
    numeric = sum(1 for _, _, f in body if len(f) == 2 and _NUMBER.fullmatch(f[1]))
    return (first, body) if numeric >= 0.8 * len(body) else (None, lines)


def _parse_header(lines: list[Line], value_columns: tuple[int, ...]) -> tuple[Line | None, list[Line]]:
    """The header and data lines once the format is known: a first line of two fields each of whose
    ``value_columns`` :func:`_reads_as_header` is a header, whatever the later lines hold (so a bad
    data row is reported on its own line, not taken as a sign that the header is data)."""
    first = lines[0]
    fields = first[2]
    if len(lines) > 1 and len(fields) == 2 and all(_reads_as_header(fields[i]) for i in value_columns):
        return first, lines[1:]
    return None, lines


def _detect(lines: list[Line]) -> tuple[Format, str]:
    """Choose a format from the shape of the lines (a malformed minority is left to the parser)."""
    singles = sum(1 for _, _, fields in lines if len(fields) == 1)
    if singles == len(lines) or singles > len(lines) / 2:
        return "items", "one field per line: one observation (item) per line"
    named = _named_table(lines)
    if named is not None:
        return named
    header, body = _split_header(lines)
    pairs = [f for _, _, f in body if len(f) == 2]
    numeric = sum(1 for f in pairs if _NUMBER.fullmatch(f[1]))
    if numeric < 0.8 * len(pairs):
        return "items", "two fields whose second is not a count: QUERY<TAB>ITEM observations"
    if header is not None:
        names = {header[2][0].lower(), header[2][1].lower()}
        if names & _PREVALENCE_HEADERS:
            return "prevalence", f"header '{' / '.join(header[2])}' names a prevalence table S<TAB>N_S"
        if names & _COUNT_HEADERS:
            return "counts", f"header '{' / '.join(header[2])}' names an ITEM<TAB>COUNT table"
    firsts = [f[0] for f in pairs]
    if all(_INT.fullmatch(x) and int(x) >= 1 for x in firsts) and len(set(map(int, firsts))) == len(firsts):
        return (
            "prevalence",
            "two integer columns with distinct first values: S<TAB>N_S (use --format counts if not)",
        )
    return "counts", "second column is a count: ITEM<TAB>COUNT"


def _named_table(lines: list[Line]) -> tuple[Format, str] | None:
    """The format a header line names by its value column (``item<TAB>count``, ``S<TAB>N_S``) when at
    least half the lines below hold a number there: a bad row under it is then reported on its own
    line by the parser, rather than outvoting the header and turning the file (header included) into
    QUERY<TAB>ITEM. Below half, the lines are QUERY<TAB>ITEM pairs whose first item is the word."""
    fields = lines[0][2]
    if len(lines) < 2 or len(fields) != 2 or not _reads_as_header(fields[1]):
        return None
    body = [f for _, _, f in lines[1:] if len(f) == 2]
    if sum(1 for f in body if _NUMBER.fullmatch(f[1])) * 2 < len(body):  # mostly words: QUERY<TAB>ITEM
        return None  # whose first item happens to be named "count"
    shown = " / ".join(fields)
    if fields[1].lower() in _COUNT_COLUMNS:
        return "counts", f"header '{shown}' names an ITEM<TAB>COUNT table"
    if fields[1].lower() in _N_S_COLUMNS:
        return "prevalence", f"header '{shown}' names a prevalence table S<TAB>N_S"
    return None


def _integer(path: Path, line: Line, value: str, what: str, minimum: int) -> int:
    """``value`` as a whole number in ``[minimum, MAX_COUNT]``, else the error naming the line."""
    if not _INT.fullmatch(value):
        kind = "a number" if _NUMBER.fullmatch(value) else "not a number"
        raise InputFileError(
            path, f"{what} must be a whole number >= {minimum}, got {value!r} ({kind})", *line[:2]
        )
    number = int(value)
    if number < minimum:
        raise InputFileError(path, f"{what} must be a whole number >= {minimum}, got {number}", *line[:2])
    if number > MAX_COUNT:
        raise InputFileError(
            path,
            f"{what} {number:,} is too large: above {MAX_COUNT:,}, the largest knowsum estimates from (the "
            "frequency table holds one entry per count); scale the counts down or sample the source",
            *line[:2],
        )
    return number


def _two_fields(path: Path, line: Line, expected: str) -> tuple[str, str]:
    fields = line[2]
    if len(fields) != 2 or not fields[0]:
        raise InputFileError(
            path, f"expected {expected} ({len(fields)} tab-separated fields found)", *line[:2]
        )
    return fields[0], fields[1]


def _parse_items(path: Path, lines: list[Line]) -> Prevalence:
    width = len(lines[0][2])
    items: list[Hashable] = []
    queries: list[Hashable] = []
    for line in lines:
        fields = line[2]
        if len(fields) != width or width > 2 or not all(fields):
            shape = "ITEM" if width == 1 else "QUERY<TAB>ITEM"
            raise InputFileError(path, f"expected {shape} like the first data line", *line[:2])
        items.append(fields[-1])
        if width == 2:
            queries.append(fields[0])
    return Prevalence.from_items(items, queries if width == 2 else None)


def _parse_counts(path: Path, lines: list[Line]) -> Prevalence:
    _, body = _parse_header(lines, (1,))
    counts: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for line in body:
        item, raw = _two_fields(path, line, "ITEM<TAB>COUNT")
        if item in counts:
            raise InputFileError(
                path, f"item {item!r} is listed twice (first on line {first_seen[item]})", *line[:2]
            )
        counts[item], first_seen[item] = _integer(path, line, raw, "count", 0), line[0]
    return Prevalence.from_counts(counts)


def _parse_prevalence(path: Path, lines: list[Line]) -> Prevalence:
    _, body = _parse_header(lines, (0, 1))
    table: dict[int, int] = {}
    for line in body:
        s_raw, n_raw = _two_fields(path, line, "S<TAB>N_S")
        s = _integer(path, line, s_raw, "S", 1)
        if s in table:
            raise InputFileError(path, f"S = {s} appears twice in the prevalence table", *line[:2])
        table[s] = _integer(path, line, n_raw, "N_S", 0)
    return Prevalence.from_table(table)


def _only_header(path: Path, lines: list[Line], fmt: Format | None) -> None:
    """Refuse a file whose one line is a header (``item<TAB>count``, ``S<TAB>N_S``): it holds no
    observation (read as data it would be one observation, or one bad count)."""
    fields = [f.lower() for f in lines[0][2]]
    if len(lines) != 1 or len(fields) != 2 or fmt == "items" or not _reads_as_header(fields[1]):
        return
    if fmt is not None or set(fields) & (_COUNT_HEADERS | _PREVALENCE_HEADERS):
        raise InputFileError(
            path,
            "only a header line, no observations: add the data lines below it "
            "(see `knowsum estimate --help` for the formats)",
            *lines[0][:2],
        )


_OTHER_SEPARATOR = re.compile(r"\s*([^\t,;]+?)\s*(,|;|\s)\s*[+-]?\d+\s*")


def _other_separator(path: Path, lines: list[Line], chosen: Format) -> None:
    """Refuse, when the format was detected as ``items``, a file whose every data line (a header
    aside) is ``NAME,NUMBER``, ``NAME;NUMBER`` or ``NAME NUMBER``: a counts or prevalence table
    written with another separator, which read as items would make each line (header included) one
    observation of a made-up item."""
    if chosen != "items" or any(len(f) != 1 for _, _, f in lines):
        return
    body = lines[1:] if len(lines) > 1 and not _OTHER_SEPARATOR.fullmatch(lines[0][1]) else lines
    matched = [_OTHER_SEPARATOR.fullmatch(raw) for _, raw, _ in body]
    if not body or not all(matched):
        return
    sep = {",": "commas", ";": "semicolons"}.get(matched[0].group(2), "spaces") if matched[0] else ""
    number, raw, _ = body[0]
    raise InputFileError(
        path,
        f"every line is a name and a number separated by {sep}: a table, but knowsum's columns are "
        "separated by tabs; replace the separators with tabs, or pass --format items if each line "
        "really is one item",
        number,
        raw,
    )


def _mixed_columns(path: Path, lines: list[Line], chosen: Format) -> None:
    """Refuse, when the format was detected as ``items``, two-field lines of which half or more end in
    a count: neither a QUERY<TAB>ITEM file (whose items are rarely numbers) nor an ITEM<TAB>COUNT
    table with a stray line, but a guess either way (``apple<TAB>3`` beside ``fig<TAB>``): one
    misread would count items that are not there, or queries that were never asked."""
    if chosen != "items":
        return
    _, body = _split_header(lines)
    pairs = [(no, raw, f) for no, raw, f in body if len(f) == 2]
    counts = [x for x in pairs if _NUMBER.fullmatch(x[2][1])]
    if not counts or 2 * len(counts) < len(pairs):
        return
    number, raw, _ = next(x for x in pairs if not _NUMBER.fullmatch(x[2][1]))
    raise InputFileError(
        path,
        f"mixes ITEM<TAB>COUNT lines (line {counts[0][0]}: {counts[0][1]!r}) with a line whose second "
        "field is not a count: fix that line, or pass --format counts or --format items",
        number,
        raw,
    )


def _json_lines(path: Path, lines: list[Line], chosen: Format) -> None:
    """Refuse, when the format was detected as ``items``, a file whose every line is a JSON object
    (``{"query": …, "items": […]}``, the items-per-query file of ``census score``): read as items,
    each whole line would be one made-up item, all of them singletons."""
    if chosen != "items" or not all(raw.lstrip().startswith("{") for _, raw, _ in lines):
        return
    number, raw, _ = lines[0]
    try:
        first = json.loads(raw)
    except ValueError:
        return
    if isinstance(first, dict):
        raise InputFileError(
            path,
            "every line is a JSON object: JSON lines, which `knowsum estimate` does not read (its formats "
            'are tab-separated); a file of {"query": …, "items": […]} lines is estimated by '
            "`knowsum census score FILE`, or pass --format items if each line really is one item",
            number,
            raw,
        )


def read_observations(path: str | Path, fmt: Format | None = None) -> Observations:
    """Parse ``path`` in format ``fmt`` (auto-detected when ``None``).

    Raises:
        InputFileError: Missing/unreadable file, empty input or a header line alone, malformed
            line, negative or non-integer count, or (detected) a table separated by commas,
            semicolons or spaces instead of tabs, JSON lines, or count and non-count lines mixed.
    """
    path = Path(path)
    lines = _read_lines(path)
    _only_header(path, lines, fmt)
    detected = fmt is None
    chosen, reason = _detect(lines) if fmt is None else (fmt, "given with --format")
    if detected:
        _other_separator(path, lines, chosen)
        _json_lines(path, lines, chosen)
        _mixed_columns(path, lines, chosen)
    if chosen == "items" and is_query_item_header(list(lines[0][2])):
        if len(lines) == 1:
            raise InputFileError(path, "holds its header line alone: give QUERY<TAB>ITEM lines below it")
        reason += f"; line {lines[0][0]} (query, item) is the column header"
        lines = lines[1:]
    parsers = {"items": _parse_items, "counts": _parse_counts, "prevalence": _parse_prevalence}
    try:
        prevalence = parsers[chosen](path, lines)
    except StatsError as exc:  # e.g. every count is zero
        raise InputFileError(path, f"{exc}") from exc
    return Observations(prevalence, chosen, detected, reason, len(lines))
