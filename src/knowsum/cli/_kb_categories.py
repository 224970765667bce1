"""``knowsum kb categories NAME``: an ontology's terms per top-level category (KnowSum Fig. 10 right)."""

from __future__ import annotations

import json
from typing import Any

import click

from knowsum.cliutil.options import json_option
from knowsum.kb import (
    CATEGORY_RULES,
    PAPER_FIG10,
    STRICT_RULE,
    assign_categories,
    category_counts,
    load_ontology,
)
from knowsum.report import text_table

__all__ = ["categories"]

_PAPER_ID = "DOID:7"


def _distribution(onto: Any, rule: Any) -> dict[str, Any]:
    counts, total = category_counts(assign_categories(onto, rule))
    names = {c: (onto[c].name if c in onto else c) for c in counts}
    return {"categories": {names[c]: n for c, n in counts.items()}, "total": total, "rule": rule}


def _pct(n: int, total: int) -> str:
    return f"{n:,} ({100 * n / total:.1f} %)" if total else "-"


@click.command("categories")
@click.argument("name")
@click.option(
    "--rule",
    type=click.Choice([*CATEGORY_RULES, "all"]),
    default=STRICT_RULE,
    show_default=True,
    help="How a term with several is_a paths gets its category; 'all' compares every rule.",
)
@json_option(help_text='Print {"categories": {NAME: COUNT}, "total": N}.')
def categories(name: str, rule: str, as_json: bool) -> None:
    """Terms of ontology NAME per top-level category (children of its root), one category per term.

    For doid this is the distribution behind the strict disease criterion (KnowSum §4.1, App. B.4,
    Fig. 10 right: anatomical disease 6,036 of 11,872 = 51 %); the strict criterion uses the
    default rule. Under any-path a term counts once per category it reaches (shares exceed 100 %).

    \b
    Examples:
      knowsum kb categories doid
      knowsum kb categories doid --rule all
      knowsum kb categories doid --json
    """
    onto = load_ontology(name)
    rules = list(CATEGORY_RULES) if rule == "all" else [rule]
    found = {r: _distribution(onto, r) for r in rules}
    paper = None
    if onto.name == "doid" and _PAPER_ID in onto:
        paper = {onto[_PAPER_ID].name: PAPER_FIG10[_PAPER_ID], "total": PAPER_FIG10["total"]}
    if as_json:
        record: dict[str, Any] = dict(found[rules[0]]) if len(rules) == 1 else {"rules": found}
        record["kb"] = onto.name
        record["paper"] = paper
        click.echo(json.dumps(record, ensure_ascii=False))
        return
    names = list(dict.fromkeys(n for d in found.values() for n in d["categories"]))
    headers = ["category", *(f"{r} rule" for r in rules)]
    rows: list[list[Any]] = [
        [n, *(_pct(d["categories"].get(n, 0), d["total"]) for d in found.values())] for n in names
    ]
    rows.append(["terms", *(f"{d['total']:,}" for d in found.values())])
    if paper is not None:
        headers.append("paper (Fig. 10)")
        for row in rows[:-1]:
            row.append(_pct(paper[row[0]], paper["total"]) if row[0] in paper else "not in the text")
        rows[-1].append(f"{paper['total']:,}")
    # the strict disease criterion counts the DO's categories only
    note = f" (strict criterion: {STRICT_RULE} rule)" if onto.name == "doid" else ""
    click.echo(f"{onto.name}: terms per top-level category{note}")
    click.echo(text_table(headers, rows))
