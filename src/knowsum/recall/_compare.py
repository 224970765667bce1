"""Models side by side, in the layout of the paper's Tables 1–3 (rows: ontologies, columns: models).

With ``published=True`` the paper's own Tables 1 and 3 (:mod:`knowsum.recall._published`) join as
columns marked the one way every published value is (``GPT-4 · Bombieri et al. Table 1``,
:func:`knowsum.records.published_label`), and the paper's four datasets as rows, so a run can be
read against them. Tables 2–3 of runs show the paper's comparability rules (``scores.paper``), the
rules behind the published values; then knowsum's ontology-aware Table 3. When a run has prediction
invariance (or with ``published=True``), a last table gives ρ(AvPI, accuracy) per dataset, method
and reading of the answers next to §6.3's values (``GPT-3.5 · Bombieri et al. §6.3``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from knowsum.recall._paper import SUBSET
from knowsum.recall._published import (
    PAPER,
    PUBLISHED,
    PUBLISHED_INVARIANCE,
    PUBLISHED_INVARIANCE_MODELS,
    PUBLISHED_MODELS,
    percent,
)
from knowsum.recall.record import INVARIANCE_TITLES, READING_NOTES, RecallRecord, RecallScores
from knowsum.records import by_model, published_label
from knowsum.report import marked

__all__ = ["INVARIANCE_TABLE", "compare_tables"]

Table = tuple[str, list[str], list[list[object]]]


def _column(result: RecallRecord) -> str:
    """Column name: the model, marked when it was probed with completion prompts (base models), and
    with the record's caveats but the paper-rule one, which :func:`_subset_note` gives the tables it
    concerns."""
    name = f"{result.model} (completion)" if result.api == "completions" else result.model
    return marked(name, [c for c in result.caveats if c.kind != SUBSET])


def _subset_note(results: Sequence[RecallRecord]) -> str:
    """What a paper-rule table's title adds for the runs scored on a subset of the concepts."""
    on = [_column(r) for r in results if any(c.kind == SUBSET for c in r.caveats)]
    if not on:
        return ""
    return (
        f" — paper rule on a subset for {', '.join(on)}: an answer outside the file's concepts counts "
        "as invented (see its caveat)"
    )


@dataclass(frozen=True, slots=True)
class _Col:
    """A column: a run's model, or a model of the paper's published tables."""

    model: str
    published: bool = False

    def header(self, table: str) -> str:
        """The column header in ``table`` (a published column names the paper's table)."""
        return published_label(self.model, PAPER, table) if self.published else self.model


_TABLES = by_model(PUBLISHED)
"""Model → ``{dataset}/{measure}`` → value of the paper's tables."""


def _printed(measure: str, value: float | None) -> object:
    """A published value of ``{dataset}/{measure}`` as the paper printed it: Unq a count, %Inv and
    Table 3b percentages, accuracy a fraction, Table 4(a)'s ρ as it is."""
    if value is None or measure in ("accuracy", "popularity_rho"):
        return value
    return int(value) if measure == "unique_answers" else percent(value)


def _paper(attr: str) -> Callable[[RecallScores], object]:
    return lambda s: None if s.paper is None else getattr(s.paper, attr)


def _knowsum(attr: str) -> Callable[[RecallScores], object]:
    return lambda s: getattr(s, attr)


def compare_tables(results: Sequence[RecallRecord], published: bool = False) -> list[Table]:
    """Tables 1 (accuracy), 2 (Levenshtein / Jaccard of errors), 3 (unique answers, % invented,
    % of wrong predictions due to invented IDs) and 4(a) (popularity ρ, where a run or the paper has
    one) for a set of runs, optionally with the paper's;
    then §6.3's invariance ρ (:data:`INVARIANCE_TABLE`) when a run has invariance or ``published``.

    Returns:
        ``(title, headers, rows)`` per table; a missing (KB, model) pair is ``None``. A model probed
        with completion prompts gets its own column; for a repeated (KB, model) the last run wins.
    """
    runs = [_Col(m) for m in dict.fromkeys(_column(r) for r in results)]
    kbs = list(dict.fromkeys(r.kb for r in results))
    pub = [_Col(m, published=True) for m in PUBLISHED_MODELS] if published else []
    if published:
        kbs += [k for k in dict.fromkeys(r.measure.split("/")[0] for r in PUBLISHED) if k not in kbs]
    cell = {(r.kb, _column(r)): r.scores for r in results}

    def get(kb: str, col: _Col, value: Callable[[RecallScores], object], measure: str = "") -> object:
        if col.published:
            return _printed(measure, _TABLES[col.model].get(f"{kb}/{measure}")) if measure else None
        s = cell.get((kb, col.model))
        return None if s is None else value(s)

    everyone = runs + pub
    subset = _subset_note(results)
    t1 = [[kb, *(get(kb, c, _knowsum("accuracy"), "accuracy") for c in everyone)] for kb in kbs]
    t2: list[list[object]] = []
    for kb in kbs:
        t2.append([f"Levenshtein d. ({kb})", *(get(kb, c, _paper("mean_levenshtein")) for c in runs)])
        t2.append([f"Jaccard s. ({kb})", *(get(kb, c, _paper("mean_jaccard")) for c in runs)])

    def t3(columns: list[_Col], rules: Callable[[str], Callable[[RecallScores], object]]) -> Table:
        headers = ["Dataset"] + [
            f"{c.header('Table 3')} {h}" for c in columns for h in ("Unq", "%Inv", "%WrongInv")
        ]
        keys = (  # (paper rules, knowsum rules, published measure)
            ("unique_answers", "n_unique_predicted", "unique_answers"),
            ("invented_pct", "invented_unique_pct", "invented"),
            ("wrong_due_to_invented_pct", "wrong_due_to_invented_pct", "wrong_due_to_invented"),
        )
        paper_rules = rules is _paper
        rows = [
            [kb]
            + [
                get(kb, c, rules(paper_key if paper_rules else own_key), measure)
                for c in columns
                for paper_key, own_key, measure in keys
            ]
            for kb in kbs
        ]
        which = "paper rules" if paper_rules else "knowsum rules"
        return (
            f"Table 3 ({which}). Unique answers, % invented, % of wrong predictions due to invented IDs"
            + (subset if paper_rules else ""),
            headers,
            rows,
        )

    tables = [("Table 1. Accuracy", ["Dataset", *(c.header("Table 1") for c in everyone)], t1)]
    if runs:
        tables.append(
            (
                "Table 2 (paper rules). Mean similarity of wrong predictions" + subset,
                ["Measure", *(c.model for c in runs)],
                t2,
            )
        )
    tables.append(t3(everyone, _paper))
    if runs:
        tables.append(t3(runs, _knowsum))
    t4 = [[kb, *(get(kb, c, _bucket_rho, "popularity_rho") for c in everyone)] for kb in kbs]
    if any(v is not None for row in t4 for v in row[1:]):
        tables.append((TABLE4_TITLE, ["Dataset", *(c.header("Table 4(a)") for c in everyone)], t4))
    invariance = _invariance_table(results, published)
    if invariance is not None:
        tables.append(invariance)
    return tables


TABLE4_TITLE = "Table 4(a). Spearman ρ of Web popularity vs accuracy over the popularity buckets"


def _bucket_rho(s: RecallScores) -> object:
    return None if s.popularity is None else s.popularity.bucket_spearman


INVARIANCE_TABLE = (
    "§6.3. Spearman ρ of AvPI vs accuracy over buckets (prediction invariance); reading paper: "
    "answers as written, knowsum: extracted IDs; n.s.: the paper reports no statistical correlation"
)


def _invariance_table(results: Sequence[RecallRecord], published: bool) -> Table | None:
    """Rows (dataset, method, reading), columns: the runs with invariance, then §6.3's models
    (their values are the paper's reading). ``None`` when there is nothing to show."""
    cell = {(r.kb, _column(r)): r.invariance_readings() for r in results if r.invariance}
    runs = list(dict.fromkeys(model for _, model in cell))
    pub = [_Col(m, published=True) for m in PUBLISHED_INVARIANCE_MODELS] if published else []
    kbs = list(dict.fromkeys(kb for kb, _ in cell))
    if published:
        kbs += [k for k in PUBLISHED_INVARIANCE if k not in kbs]
    rows: list[list[object]] = []
    for kb in kbs:
        for method, title in INVARIANCE_TITLES.items():
            for reading in READING_NOTES:
                own = [cell.get((kb, m), {}).get(method, {}).get(reading) for m in runs]
                paper = [
                    PUBLISHED_INVARIANCE.get(kb, {}).get(c.model, {}).get(method)
                    if reading == "paper"
                    else None
                    for c in pub
                ]
                if any(s is not None for s in own) or any(v is not None for v in paper):
                    rows.append(
                        [kb, title, reading, *(None if s is None else s.spearman for s in own), *paper]
                    )
    if not rows:
        return None
    headers = ["Dataset", "Method", "Reading", *runs, *(c.header("§6.3") for c in pub)]
    return INVARIANCE_TABLE, headers, rows
