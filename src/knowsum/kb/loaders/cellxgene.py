"""Uberon and MONDO from the zstd-compressed JSON files of ``cellxgene-ontology-guide``.

Each file maps ``ID → {label, synonyms, description, deprecated, ancestors: {ID: distance},
replaced_by, consider}``. The files carry ancestor *distances*, not typed edges: distance-1
ancestors become parents under the relation ``parent`` (is_a or part_of in the source ontology),
which is also the ontology's taxonomy relation (roots, categories, ``is_a`` tests).
"""

from __future__ import annotations

import json
from typing import Any

from knowsum.errors import SourceError
from knowsum.kb._store import OntologyData, TermRecord
from knowsum.kb._term import PARENT

__all__ = ["load_cellxgene_json"]


def load_cellxgene_json(raw: bytes, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from one ``<ONTOLOGY>-ontology-<version>.json.zst`` file's bytes."""
    import zstandard

    try:
        text = zstandard.ZstdDecompressor().decompressobj().decompress(raw)
        items: Any = json.loads(text)
    except (zstandard.ZstdError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise SourceError(
            f"{where}: corrupt or truncated zstd JSON ({exc}); delete it and reinstall"
        ) from exc
    if not isinstance(items, dict) or not items:
        raise SourceError(f"{where}: expected a JSON object of terms")
    data.meta["taxonomy"] = PARENT
    for tid, item in items.items():
        rec = data.add(TermRecord(tid, item.get("label", ""), "", bool(item.get("deprecated"))))
        rec.definition = item.get("description") or ""
        rec.synonyms = [(s, "") for s in item.get("synonyms", ())]
        rec.relations = [(PARENT, a) for a, dist in item.get("ancestors", {}).items() if dist == 1]
        rec.props = [(k, v) for k in ("replaced_by", "consider") for v in _as_list(item.get(k))]
    return data


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)]
