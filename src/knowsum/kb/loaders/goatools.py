"""NCBI Gene "other designations" from goatools' export of human ``gene_info`` (PyPI ``goatools``).

``goatools/test_data/genes_NCBI_9606_All.py`` (goatools 1.6.7) is NCBI Gene for *Homo sapiens*
downloaded 2016-01-05 and written as Python source: a header, then ``GENEID2NT = {`` with one
``GeneID : NtData(tax_id=9606, …, GeneID=…, …, other_designations='a|b|c', …),`` entry per line
(59,542 genes, 26,781 of them with at least one designation), then ``}``.

The file is never imported or executed. Each entry is parsed on its own with :func:`ast.parse` and
only the literal values of the ``GeneID`` and ``other_designations`` keywords are read
(:func:`ast.literal_eval` on those nodes). Parsing entry by entry takes ~5 s and ~10 MB; parsing
the 30 MB file as one tree takes ~25 s and ~2 GB, and :mod:`tokenize` ~20 s.
"""

from __future__ import annotations

import ast

from knowsum.errors import InputFileError

__all__ = ["load_goatools_designations", "split_designations"]

_OPEN = "GENEID2NT = {"
_MAX_ENTRY_LINES = 50  # an entry longer than this is not an entry: a broken file


def split_designations(value: str) -> tuple[str, ...]:
    """The ``|``-separated designations of one NCBI field, without blanks, ``-`` and repeats."""
    parts = (p.strip() for p in value.split("|"))
    return tuple(dict.fromkeys(p for p in parts if p and p != "-"))


def _entry(node: ast.expr, key: ast.expr | None, where: str, no: int, line: str) -> tuple[int, str]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "NtData"):
        raise InputFileError(where, "expected `GeneID : NtData(…)` entries", no, line)
    fields = {k.arg: k.value for k in node.keywords if k.arg in ("GeneID", "other_designations")}
    try:
        gene_id = ast.literal_eval(fields["GeneID"])
        text = ast.literal_eval(fields["other_designations"])
        dict_key = ast.literal_eval(key) if key is not None else None
    except (KeyError, ValueError, TypeError, SyntaxError) as exc:
        raise InputFileError(
            where, f"NtData entry without literal GeneID and other_designations ({exc})", no, line
        ) from exc
    if not isinstance(gene_id, int) or not isinstance(text, str) or dict_key != gene_id:
        problem = "GeneID must be an integer equal to its key, other_designations a string"
        raise InputFileError(where, problem, no, line)
    return gene_id, text


def load_goatools_designations(text: str, where: str) -> dict[int, tuple[str, ...]]:
    """Designations per Entrez Gene ID from goatools' ``genes_NCBI_*_All.py`` (read, not run).

    Args:
        text: The file's text.
        where: Its name for error messages (file or ``wheel!member``).

    Returns:
        Every gene of the file, in file order, with its designations (``()`` if it has none).

    Raises:
        InputFileError: no ``GENEID2NT = {`` dict, or an entry that is not a literal ``NtData`` call
            (names the file and line).
    """
    lines = text.splitlines()
    start = next((i for i, ln in enumerate(lines) if ln.startswith(_OPEN)), None)
    if start is None:
        raise InputFileError(where, f"not a goatools NCBI gene file (no line {_OPEN!r})")
    out: dict[int, tuple[str, ...]] = {}
    buf: list[str] = []
    first = 0
    for no, line in enumerate(lines[start + 1 :], start + 2):
        if not buf:
            if line.strip() == "}":
                break
            first = no
        buf.append(line)
        try:
            expr = ast.parse("{" + "\n".join(buf) + "\n}", mode="eval").body
        except SyntaxError:
            if len(buf) >= _MAX_ENTRY_LINES:
                raise InputFileError(where, "not a Python dict entry", first, buf[0]) from None
            continue  # an entry spanning several lines
        buf = []
        if not isinstance(expr, ast.Dict):
            raise InputFileError(where, "expected `GeneID : NtData(…)` entries", first, line)
        for key, value in zip(expr.keys, expr.values, strict=True):
            gene_id, designations = _entry(value, key, where, first, line)
            out[gene_id] = split_designations(designations)
    else:
        if buf:
            raise InputFileError(where, "not a Python dict entry", first, buf[0])
        raise InputFileError(where, "the GENEID2NT dict is not closed (truncated file?)", len(lines))
    if not out:
        raise InputFileError(where, "no NtData entries")
    return out
