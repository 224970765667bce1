"""OBO 1.2/1.4 flat-file loader (go-basic.obo, doid.obo, hp.obo, uberon.obo, mondo.obo…).

Reads ``[Term]`` stanzas: ``id``, ``name``, ``namespace``, ``def``, ``synonym`` (with scope),
``alt_id``, ``is_a``, ``relationship``, ``intersection_of`` is ignored, ``is_obsolete``, ``xref``,
``replaced_by``/``consider`` (kept as properties). ``[Typedef]`` and other stanzas are skipped.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from pathlib import Path

from knowsum.errors import InputFileError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["load_obo", "parse_obo"]

_SYNONYM = re.compile(r'^"((?:[^"\\]|\\.)*)"\s*(EXACT|NARROW|BROAD|RELATED)?')
_QUOTED = re.compile(r'^"((?:[^"\\]|\\.)*)"')


def _unescape(s: str) -> str:
    return s.replace('\\"', '"').replace("\\n", " ").replace("\\\\", "\\")


def _strip_comment(value: str) -> str:
    # "GO:0008150 ! biological_process" and trailing {qualifiers}
    value = value.split(" ! ", 1)[0]
    return re.sub(r"\s*\{[^}]*\}\s*$", "", value).strip()


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

    Raises:
        InputFileError: a ``[Term]`` stanza without ``id`` or ``name``, or no term at all.
    """
    rec: TermRecord | None = None
    in_term = False
    default_ns = ""
    start = 0
    for no, raw in enumerate(lines, 1):
        line = raw.rstrip("\n").rstrip("\r")
        if line.startswith("["):
            _finish(rec, data, path, start)
            in_term = line.strip() == "[Term]"
            rec = TermRecord("", "", default_ns) if in_term else None
            start = no
            continue
        if not line.strip() or line.startswith("!") or ":" not in line:
            continue
        tag, value = line.split(":", 1)
        value = value.strip()
        if rec is None:
            if not in_term and start == 0:
                if tag == "data-version":
                    data.release = value
                elif tag == "default-namespace":
                    default_ns = value
            continue
        if tag == "id":
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
        raise InputFileError(path, "[Term] stanza without id or name (truncated file?)", line_no)
    data.add(rec)


def load_obo(path: Path, name: str, source: str | None = None) -> OntologyData:
    """Load an OBO file (optionally gzip-compressed) as KB ``name``."""
    data = OntologyData(name=name, release="", source=source or str(path))
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            parse_obo(fh, data, str(path))
    except UnicodeDecodeError as exc:  # binary data, or another encoding: the one file-error wording
        raise InputFileError(
            path, f"not UTF-8 text ({exc.reason} at byte {exc.start}); give the OBO file as UTF-8 text"
        ) from exc
    except FileNotFoundError as exc:
        raise InputFileError(path, "no such file; check the path") from exc
    except (OSError, EOFError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise InputFileError(path, f"cannot read OBO file ({why})") from exc
    if not data.release:
        data.release = "unknown (from file)"
    return data
