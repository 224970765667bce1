"""Bring your own items: the estimation half of a census on per-query item lists.

Some censuses need data no registry has — the KnowSum paper's retrieval-coverage application
(App. 2, §4.2; App. B.3.2) counts the MeSH keywords of the PubMed documents an LLM retrieves for
BioASQ questions. Whoever has built such per-query lists only needs steps 3-5 of Algorithm 1:
optional verification and clustering against an installed KB, prevalence, unseen estimation,
report. :func:`score_items` does exactly that and writes the same run directory as
:func:`knowsum.census.run_census` (so ``knowsum census compare`` ranks such runs too).

Input (UTF-8; blank lines and lines starting with ``#`` are skipped):

- JSON lines ``{"query": "Q1", "items": ["Humans", "COVID-19"]}`` — an object per query, or per
  part of one (a query on several lines with different items, e.g. one line per retrieved
  document, gets its items joined, and the run's notes say how many queries were joined, naming
  the first: a file whose every line names the same prompt is one query, not many); a line that
  repeats an earlier one (the same query and the same items, in the same order) is an error naming
  both lines, since joining it would count its items twice; a query with ``"items": []`` still
  counts as a query asked (it recovered nothing);
- ``QUERY<TAB>ITEM`` lines — one item per line, grouped by the query column.

A blank item is an error in both formats (the message names the file, line and item).

Queries keep the order of their first appearance.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Literal

from knowsum._util import is_query_item_header, read_text_file
from knowsum.census._analyse import analyse
from knowsum.census._config import CensusConfig
from knowsum.census._decode import DecodedItem
from knowsum.census._run import CensusRun, census_identity, run_name, write_run
from knowsum.census._tasks import resolve_task
from knowsum.census._verify import make_verifier
from knowsum.errors import InputFileError
from knowsum.records import claim_run_dir

__all__ = ["ItemsFile", "read_items", "score_items"]

ItemsFormat = Literal["jsonl", "tsv"]
ItemsFile = tuple[ItemsFormat, list[tuple[str, list[str]]]]


def _lines(path: Path) -> list[tuple[int, str]]:
    if path.is_dir():
        raise InputFileError(path, "is a directory, not an items file")
    text = read_text_file(path, "items file")  # one wording for missing, binary and non-UTF-8 files
    lines = [(no, raw) for no, raw in enumerate(text.splitlines(), 1)]
    kept = [(no, raw) for no, raw in lines if raw.strip() and not raw.lstrip().startswith("#")]
    if not kept:
        raise InputFileError(
            path, 'empty: give JSON lines {"query": …, "items": […]} or QUERY<TAB>ITEM lines'
        )
    return kept


def _json_query(path: Path, no: int, raw: str) -> tuple[str | int, list[str]]:
    try:
        obj = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputFileError(path, f"not a JSON object ({exc.msg})", no, raw) from None
    if not isinstance(obj, dict) or "query" not in obj or not isinstance(obj.get("items"), list):
        raise InputFileError(path, 'expected {"query": …, "items": […]}', no, raw)
    query, items = obj["query"], obj["items"]
    if not isinstance(query, str | int) or isinstance(query, bool) or str(query).strip() == "":
        raise InputFileError(path, "query must be a non-empty string or an integer", no, raw)
    if not all(isinstance(x, str) for x in items):
        raise InputFileError(path, "items must be strings", no, raw)
    blank = next((i for i, x in enumerate(items, 1) if not x.strip()), None)
    if blank is not None:  # as a TSV line with an empty item is rejected
        raise InputFileError(path, f"item {blank} is blank: remove it or give the item's text", no, raw)
    return query, list(items)


def _tsv_query(path: Path, no: int, raw: str) -> tuple[str, list[str]]:
    fields = raw.split("\t")
    if len(fields) != 2:
        raise InputFileError(
            path, f"expected QUERY<TAB>ITEM, got {len(fields)} tab-separated fields", no, raw
        )
    if not fields[0].strip():
        raise InputFileError(path, "the query (before the tab) is blank: give a query id", no, raw)
    if not fields[1].strip():
        raise InputFileError(
            path, "the item (after the tab) is blank: remove the line or give the item", no, raw
        )
    return fields[0].strip(), [fields[1]]


def read_items(path: str | Path) -> ItemsFile:
    """Read a per-query items file (format detected: a first line starting with ``{`` is JSONL).

    Returns:
        ``(format, [(query, items), …])`` in order of first appearance.

    Raises:
        InputFileError: missing/unreadable/empty file, a malformed line (names file and line), a
            query given as a number on one line and as a text on another (``1`` and ``"1"``), or a
            JSON line repeating an earlier one (the same query and items: names both lines).
    """
    fmt, queries, _, _ = _read_items(Path(path))
    return fmt, queries


def _joined_note(path: Path, lines_of: dict[str, list[int]]) -> list[str]:
    """The note of JSON-lines queries given on more than one line (their items joined)."""
    joined = [(q, at) for q, at in lines_of.items() if len(at) > 1]
    if not joined:
        return []
    (query, at), more = joined[0], len(joined) - 1
    also = f" and {more} other quer{'y' if more == 1 else 'ies'}" if more else ""
    return [
        f"{path.name}: query {query!r} stands on lines {', '.join(map(str, at[:5]))}"
        f"{', …' if len(at) > 5 else ''}{also}: each query's lines were joined into one query; if each "
        "line is a response of its own, give each line its own query id"
    ]


def _refuse_repeat(path: Path, no: int, raw: str, first: int, query: str | int) -> None:
    """Refuse JSON line ``no`` when it repeats line ``first`` (the same query and items): a copied
    row would be joined into its query and count every item twice.

    Raises:
        InputFileError: ``first`` is an earlier line.
    """
    if first == no:
        return
    raise InputFileError(
        path,
        f"repeats line {first} (query {query!r} with the same items): joined, its items would count "
        f"twice; remove one of lines {first} and {no} (a query split over lines joins lines with "
        "different items: parts that hold the same items go on one line)",
        no,
        raw,
    )


def _read_items(
    path: Path,
) -> tuple[ItemsFormat, list[tuple[str, list[str]]], dict[str, list[int]], int | None]:
    """:func:`read_items`, with the lines each query stands on and the line of a ``query<TAB>item``
    header (``None``: none)."""
    lines = _lines(path)
    fmt: ItemsFormat = "jsonl" if lines[0][1].lstrip().startswith("{") else "tsv"
    header = lines[0][0] if fmt == "tsv" and is_query_item_header(lines[0][1].split("\t")) else None
    if header is not None:
        lines = lines[1:]
        if not lines:
            raise InputFileError(path, "holds its header line alone: give QUERY<TAB>ITEM lines below it")
    grouped: dict[str, list[str]] = {}
    spelled: dict[str, tuple[str | int, int]] = {}  # each query's first spelling and its line
    lines_of: dict[str, list[int]] = {}
    rows: dict[tuple[str, tuple[str, ...]], int] = {}  # each JSON line's query and items → its line
    for no, raw in lines:
        given, items = (_json_query if fmt == "jsonl" else _tsv_query)(path, no, raw)
        query = str(given)
        first, at = spelled.setdefault(query, (given, no))
        if type(first) is not type(given):  # 1 and "1" are two queries to whoever wrote them
            raise InputFileError(
                path,
                f"query {given!r} is {first!r} on line {at}: a number and a text would be merged into "
                "one query; spell each query one way",
                no,
                raw,
            )
        texts = [x.strip() for x in items]
        if fmt == "jsonl":
            _refuse_repeat(path, no, raw, rows.setdefault((query, tuple(texts)), no), given)
        grouped.setdefault(query, []).extend(texts)
        lines_of.setdefault(query, []).append(no)
    return fmt, list(grouped.items()), lines_of, header


def score_items(
    items: str | Path,
    config: CensusConfig,
    *,
    model: str = "items",
    name: str | None = None,
    out: Path | None = None,
    overwrite: bool = False,
) -> CensusRun:
    """Verify (against ``config.kb``, if set), cluster and estimate a per-query items file, and
    write a census run directory (``result.json``, ``items.jsonl``, plots, ``report.html``).

    Args:
        items: The items file (see the module docstring).
        config: Estimation and verification settings (``kb``, ``criterion``, ``cutoff``, ``t``,
            ``k``, ``n_bootstrap``, ``interval``, ``count``, ``seed``); ``task`` is ignored.
        model: The model name recorded in the result (what produced the items).
        name: The task name recorded (default ``score:<file stem>``).
        out: The run directory (default ``census-runs/score-<file stem>``, or the ``name``, followed
            by a criterion and counting other than the defaults: ``score-items-strict-incidence``).
        overwrite: Empty ``out`` first when it holds another run (else such a folder is refused).
            Another run is another model, other settings, or other items: the recorded prompt
            names the file and a hash of the queries and items read from it.

    Raises:
        InputError: ``out`` holds another run and ``overwrite`` is not set.
        InputFileError: a malformed items file. UnknownNameError: an unknown KB.
        KBNotInstalledError: the KB is not installed (says the install command).
    """
    path = Path(items)
    fmt, queries, lines_of, header = _read_items(path)
    label = name or f"score:{path.stem}"
    # the prompt names the items' content, so another file of the same name is another run
    digest = hashlib.sha256(json.dumps(queries, ensure_ascii=False).encode()).hexdigest()[:12]
    read_from = f"(items read from {path.name}, {fmt}, sha256 {digest})"
    base = config.model_copy(update={"task": "custom", "prompt": read_from})
    task = replace(resolve_task(base), name=label)
    verifier = make_verifier(task, config.criterion, config.cutoff)
    decoded = [
        DecodedItem(qi, pos, text) for qi, (_, texts) in enumerate(queries) for pos, text in enumerate(texts)
    ]
    responses = [(qi, f"{query}\t" + " | ".join(texts)) for qi, (query, texts) in enumerate(queries)]
    identity = census_identity(base, task, model)
    where = out or Path("census-runs") / run_name(config, label.replace(":", "-"))
    out_dir = claim_run_dir(where, "census", identity, overwrite=overwrite)
    analysis = analyse(base, task, verifier, responses, model=model, backend="items", decoded=decoded)
    if fmt == "jsonl":  # (grouping by the query column is the TSV format itself)
        analysis.result.notes.extend(_joined_note(path, lines_of))
    if header is not None:
        analysis.result.notes.append(f"{path.name}: line {header} (query, item) read as the column header")
    return write_run(analysis, out_dir, identity)
