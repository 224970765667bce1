"""Models side by side, in the layout of the paper's Tables 1–3 (rows: ontologies, columns: models).

With ``published=True`` the paper's own Tables 1 and 3 (:mod:`knowsum.recall._published`) join as
columns marked the one way every published value is (``GPT-4 · Bombieri et al. Table 1``,
:func:`knowsum.records.published_label`), and the paper's four datasets as rows, so a run can be
read against them. Tables 2–3 of runs show the paper's comparability rules (``scores.paper``), the
rules behind the published values; a last table shows knowsum's ontology-aware Table 3.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowsum.recall._published import PAPER, PUBLISHED, PUBLISHED_MODELS
from knowsum.records import published_label
from knowsum.records.recall import RecallResult, RecallScores

__all__ = ["compare_tables"]

Table = tuple[str, list[str], list[list[object]]]


def _column(result: RecallResult) -> str:
    """Column name: the model, marked when it was probed with completion prompts (base models)."""
    return f"{result.model} (completion)" if result.api == "completions" else result.model


@dataclass(frozen=True, slots=True)
class _Col:
    """A column: a run's model, or a model of the paper's published tables."""

    model: str
    published: bool = False

    def header(self, table: str) -> str:
        """The column header in ``table`` (a published column names the paper's table)."""
        return published_label(self.model, PAPER, table) if self.published else self.model


def _paper(attr: str) -> Callable[[RecallScores], object]:
    return lambda s: None if s.paper is None else getattr(s.paper, attr)


def _knowsum(attr: str) -> Callable[[RecallScores], object]:
    return lambda s: getattr(s, attr)


def compare_tables(results: Sequence[RecallResult], published: bool = False) -> list[Table]:
    """Tables 1 (accuracy), 2 (Levenshtein / Jaccard of errors) and 3 (unique answers, % invented,
    % of wrong predictions due to invented IDs) for a set of runs, optionally with the paper's.

    Returns:
        ``(title, headers, rows)`` per table; a missing (KB, model) pair is ``None``. A model probed
        with completion prompts gets its own column; for a repeated (KB, model) the last run wins.
    """
    runs = [_Col(m) for m in dict.fromkeys(_column(r) for r in results)]
    kbs = list(dict.fromkeys(r.kb for r in results))
    pub = [_Col(m, published=True) for m in PUBLISHED_MODELS] if published else []
    if published:
        kbs += [k for k in PUBLISHED if k not in kbs]
    cell = {(r.kb, _column(r)): r.scores for r in results}

    def get(kb: str, col: _Col, value: Callable[[RecallScores], object], pub_key: str = "") -> object:
        if col.published:
            row = PUBLISHED.get(kb, {}).get(col.model)
            return None if row is None or not pub_key else getattr(row, pub_key)
        s = cell.get((kb, col.model))
        return None if s is None else value(s)

    everyone = runs + pub
    t1 = [[kb, *(get(kb, c, _knowsum("accuracy"), "accuracy") for c in everyone)] for kb in kbs]
    t2: list[list[object]] = []
    for kb in kbs:
        t2.append([f"Levenshtein d. ({kb})", *(get(kb, c, _paper("mean_levenshtein")) for c in runs)])
        t2.append([f"Jaccard s. ({kb})", *(get(kb, c, _paper("mean_jaccard")) for c in runs)])

    def t3(columns: list[_Col], rules: Callable[[str], Callable[[RecallScores], object]]) -> Table:
        headers = ["Dataset"] + [
            f"{c.header('Table 3')} {h}" for c in columns for h in ("Unq", "%Inv", "%WrongInv")
        ]
        keys = (
            ("unique_answers", "n_unique_predicted"),
            ("invented_pct", "invented_unique_pct"),
            ("wrong_due_to_invented_pct", "wrong_due_to_invented_pct"),
        )
        paper_rules = rules is _paper
        rows = [
            [kb]
            + [
                get(kb, c, rules(paper_key if paper_rules else own_key), paper_key)
                for c in columns
                for paper_key, own_key in keys
            ]
            for kb in kbs
        ]
        which = "paper rules" if paper_rules else "knowsum rules"
        return (
            f"Table 3 ({which}). Unique answers, % invented, % of wrong predictions due to invented IDs",
            headers,
            rows,
        )

    tables = [("Table 1. Accuracy", ["Dataset", *(c.header("Table 1") for c in everyone)], t1)]
    if runs:
        tables.append(
            (
                "Table 2 (paper rules). Mean similarity of wrong predictions",
                ["Measure", *(c.model for c in runs)],
                t2,
            )
        )
    tables.append(t3(everyone, _paper))
    if runs:
        tables.append(t3(runs, _knowsum))
    return tables
