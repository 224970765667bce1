"""User-supplied gene data that no package registry ships: expression patterns, summaries, abstracts.

Q6 (expression), Q8 (functional summary) and the "with abstracts" context of Q7/Q8 need data that is
not in any registry package (Human Protein Atlas tissue categories, NCBI RefSeq summaries, PubMed
abstract texts). Users bring them as files; each is either tab-separated (an optional header line
is recognized by its first column name) or JSONL:

``--expression``  ``GENE<TAB>CATEGORY<TAB>TISSUES`` (tissues separated by ``|`` or ``,``; ``Low
                  expression`` or nothing for the low category) or ``{"gene": …, "category": …,
                  "tissue_list": [...]}`` (``[]`` for a low-expression gene, as in the release)
``--summaries``   ``GENE<TAB>SUMMARY`` or ``{"gene": …, "summary": …}``
``--abstracts``   ``PMID<TAB>ABSTRACT`` or ``{"pmid": …, "abstract": …}``

``GENE`` is an official symbol or an Entrez Gene ID. Every bad row stops the load with one message
naming the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from knowsum._util import read_text_file
from knowsum.errors import InputFileError
from knowsum.genebench._schema import EXPRESSION_CATEGORIES

__all__ = ["Expression", "read_abstracts", "read_expression", "read_summaries"]

_HEADERS = {"gene", "symbol", "geneid", "gene_id", "pmid", "pubmed_id"}
_LOW = "Low expression"


@dataclass(frozen=True, slots=True)
class Expression:
    """Expression pattern of one gene: category and tissue list (``("Low expression",)`` if low)."""

    category: str
    tissues: tuple[str, ...]


def _rows(path: Path, keys: tuple[str, ...]) -> Iterator[tuple[int, str, list[str]]]:
    """``(line number, raw line, values in the order of keys)`` for each data row of a TSV/JSONL file."""
    text = read_text_file(path, "data file")
    seen_data = False
    for no, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.lstrip().startswith("{"):
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputFileError(path, f"invalid JSON ({exc.msg})", no, line) from exc
            missing = [k for k in keys if k not in obj and not (k == "gene" and "gene_id" in obj)]
            if missing:
                raise InputFileError(path, f"missing key(s) {', '.join(missing)}", no, line)
            vals = [obj.get(k, obj.get("gene_id")) if k == "gene" else obj[k] for k in keys]
            out: list[str] = []
            for k, v in zip(keys, vals, strict=True):
                if isinstance(v, list):
                    if not all(isinstance(x, str) for x in v):
                        raise InputFileError(path, f"{k} must be a list of strings", no, line)
                    out.append("|".join(v))
                elif isinstance(v, str | int) and not isinstance(v, bool):
                    out.append(str(v))
                else:
                    raise InputFileError(path, f"{k} must be a string", no, line)
            seen_data = True
            yield no, line, out
            continue
        cols = line.rstrip("\n").split("\t")
        if not seen_data and cols[0].strip().lower() in _HEADERS:
            continue
        if len(cols) != len(keys):
            raise InputFileError(
                path,
                f"expected {len(keys)} tab-separated columns ({', '.join(keys)}), got {len(cols)}",
                no,
                line,
            )
        seen_data = True
        yield no, line, [c.strip() for c in cols]


def _check_empty(path: Path, table: dict[str, object]) -> None:
    if not table:
        raise InputFileError(path, "no data rows")


def read_expression(path: Path) -> dict[str, Expression]:
    """Gene (symbol or Entrez ID, as written) → expression pattern.

    Raises:
        InputFileError: unreadable file, wrong column count, unknown category, an empty tissue list
            outside the low category, a low-expression row with tissues, or a gene given twice.
    """
    out: dict[str, Expression] = {}
    for no, line, (gene, category, tissues) in _rows(path, ("gene", "category", "tissue_list")):
        cat = next((c for c in EXPRESSION_CATEGORIES if c.lower() == category.strip().lower()), None)
        if cat is None:
            raise InputFileError(
                path,
                f"unknown category {category!r}; use one of {', '.join(EXPRESSION_CATEGORIES)}",
                no,
                line,
            )
        items = tuple(t.strip() for t in tissues.replace(",", "|").split("|") if t.strip())
        if not items and cat == _LOW:
            items = (_LOW,)  # the release writes a low-expression gene as tissue_list: []
        if not items:
            raise InputFileError(
                path,
                f"empty tissue list for a {cat!r} gene (only a 'Low expression' gene has none)",
                no,
                line,
            )
        if cat == _LOW and items != (_LOW,):
            raise InputFileError(
                path, "a 'Low expression' gene has the tissue list 'Low expression'", no, line
            )
        if not gene:
            raise InputFileError(path, "empty gene", no, line)
        if gene in out:
            raise InputFileError(path, f"gene {gene!r} appears twice", no, line)
        out[gene] = Expression(cat, items)
    _check_empty(path, dict(out))
    return out


def _text_table(path: Path, keys: tuple[str, str], numeric_key: bool) -> dict[str, str]:
    out: dict[str, str] = {}
    for no, line, (key, text) in _rows(path, keys):
        if not key or (numeric_key and not key.isdigit()):
            raise InputFileError(
                path, f"{keys[0]} must be {'a PubMed ID (digits)' if numeric_key else 'given'}", no, line
            )
        if not text.strip():
            raise InputFileError(path, f"empty {keys[1]}", no, line)
        if key in out:
            raise InputFileError(path, f"{keys[0]} {key!r} appears twice", no, line)
        out[key] = text.strip()
    _check_empty(path, dict(out))
    return out


def read_summaries(path: Path) -> dict[str, str]:
    """Gene (symbol or Entrez ID) → functional summary (the Q8 reference text)."""
    return _text_table(path, ("gene", "summary"), numeric_key=False)


def read_abstracts(path: Path) -> dict[int, str]:
    """PubMed ID → abstract text (the Q7/Q8 literature context)."""
    return {int(k): v for k, v in _text_table(path, ("pmid", "abstract"), numeric_key=True).items()}
