"""Models side by side, in the layout of the paper's Tables 1–3 (rows: ontologies, columns: models).

With ``published=True`` the paper's own Tables 1 and 3 (:mod:`knowsum.recall._published`) join as
columns marked the one way every published value is (``GPT-4 · Bombieri et al. Table 1``,
:func:`knowsum.records.published_label`), and the paper's four datasets as rows, so a run can be
read against them. Tables 2–3 of runs show the paper's comparability rules (``scores.paper``), the
rules behind the published values; then knowsum's ontology-aware Table 3. Table 4(a) gives each run's
popularity ρ beside what it was measured over (source, buckets), and says so where that is not the
paper's measure (Web occurrences, 50 buckets). When a run has prediction invariance (or with
``published=True``), a last table gives ρ(AvPI, accuracy) per dataset, method and reading of the
answers next to §6.3's values (``GPT-3.5 · Bombieri et al. §6.3``).

Every run keeps its column: runs of one KB whose model names are the same (two runs of one model,
two scored files of one name) are told apart by their run folders. A caveat that concerns some
tables only (the paper rule on a subset, two bucketings) is said in those tables' titles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePath

from knowsum.recall._invariance import TWO_BUCKETINGS
from knowsum.recall._paper import SUBSET
from knowsum.recall._published import (
    PAPER,
    PUBLISHED,
    PUBLISHED_INVARIANCE,
    PUBLISHED_INVARIANCE_MODELS,
    PUBLISHED_MODELS,
    TABLE4A_BUCKETS,
    TABLE4A_KBS,
    percent,
    popularity_setting,
    unlike_table4a,
)
from knowsum.recall.record import INVARIANCE_TITLES, READING_NOTES, RecallRecord, RecallScores
from knowsum.records import by_model, published_label
from knowsum.report import marked

__all__ = ["INVARIANCE_TABLE", "compare_tables"]

Table = tuple[str, list[str], list[list[object]]]

_IN_TITLES = {
    SUBSET: "paper rule on a subset for {runs}: an answer outside the file's concepts counts as invented",
    TWO_BUCKETINGS: "RQ2 and RQ3 bucket differently for {runs}: a §5 bucket and a §6 bucket of the same "
    "number hold different concepts",
}
"""The caveat kinds said in the titles of the tables they concern (not marked on every column)."""


def _name(result: RecallRecord) -> str:
    """The model, marked when it was probed with completion prompts (base models)."""
    return f"{result.model} (completion)" if result.api == "completions" else result.model


def _tails(folders: Sequence[str]) -> list[str]:
    """The shortest path tails (``m_a``, ``a/score-x``) that tell ``folders`` apart."""
    parts = [PurePath(f).parts or (f,) for f in folders]
    for k in range(1, max(len(p) for p in parts) + 1):
        tails = ["/".join(p[-k:]) for p in parts]
        if len(set(tails)) == len(tails):
            return tails
    return [f"{'/'.join(p)} #{i + 1}" for i, p in enumerate(parts)]


def _columns(results: Sequence[RecallRecord], folders: Sequence[object] | None) -> list[str]:
    """Each run's column: its model name; where runs of one KB share a name (two runs of one model,
    two scored files of one name), every run of that name also names its run folder (``mock
    (m_a)``; ``run N``, its place in ``results``, without folders), so no run is dropped. Then the
    record's caveat marks, but those of :data:`_IN_TITLES`."""
    names = [_name(r) for r in results]
    per_kb = Counter((r.kb, name) for r, name in zip(results, names, strict=True))
    shared = {name for (_, name), n in per_kb.items() if n > 1}
    where = (
        [str(f) for f in folders] if folders is not None else [f"run {i + 1}" for i in range(len(results))]
    )
    out = list(names)
    for name in shared:
        at = [i for i, m in enumerate(names) if m == name]
        for i, tail in zip(at, _tails([where[i] for i in at]), strict=True):
            out[i] = f"{name} ({tail})"
    return [
        marked(col, [c for c in r.caveats if c.kind not in _IN_TITLES])
        for col, r in zip(out, results, strict=True)
    ]


def _title_note(kind: str, results: Sequence[RecallRecord], columns: Sequence[str]) -> str:
    """What the title of a table concerned by the caveat ``kind`` adds for the runs that carry it."""
    on = [col for col, r in zip(columns, results, strict=True) if any(c.kind == kind for c in r.caveats)]
    return f" — {_IN_TITLES[kind].format(runs=', '.join(on))} (see its caveat)" if on else ""


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


def compare_tables(
    results: Sequence[RecallRecord], published: bool = False, folders: Sequence[object] | None = None
) -> list[Table]:
    """Tables 1 (accuracy), 2 (Levenshtein / Jaccard of errors), 3 (unique answers, % invented,
    % of wrong predictions due to invented IDs) and 4(a) (popularity ρ with its source and buckets,
    where a run or the paper has one) for a set of runs, optionally with the paper's;
    then §6.3's invariance ρ (:data:`INVARIANCE_TABLE`) when a run has invariance or ``published``.

    Args:
        results: The runs.
        published: Add the paper's values as columns.
        folders: Each run's folder, naming the columns of runs of one KB that share a model name.

    Returns:
        ``(title, headers, rows)`` per table; a missing (KB, model) pair is ``None``. A model probed
        with completion prompts gets its own column; runs of one KB and one model name each get
        theirs, named by their folders (:func:`_columns`).
    """
    columns = _columns(results, folders)
    runs = [_Col(m) for m in dict.fromkeys(columns)]
    kbs = list(dict.fromkeys(r.kb for r in results))
    pub = [_Col(m, published=True) for m in PUBLISHED_MODELS] if published else []
    if published:
        kbs += [k for k in dict.fromkeys(r.measure.split("/")[0] for r in PUBLISHED) if k not in kbs]
    cell = {(r.kb, col): r.scores for r, col in zip(results, columns, strict=True)}

    def get(kb: str, col: _Col, value: Callable[[RecallScores], object], measure: str = "") -> object:
        if col.published:
            return _printed(measure, _TABLES[col.model].get(f"{kb}/{measure}")) if measure else None
        s = cell.get((kb, col.model))
        return None if s is None else value(s)

    everyone = runs + pub
    subset = _title_note(SUBSET, results, columns)
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
    t4 = [
        [kb]
        + [v for c in runs for v in (get(kb, c, _bucket_rho), get(kb, c, _bucket_setting))]
        + [get(kb, c, _bucket_rho, "popularity_rho") for c in pub]
        for kb in kbs
    ]
    rhos = [v for row in t4 for i, v in enumerate(row[1:]) if i >= 2 * len(runs) or i % 2 == 0]
    if any(v is not None for v in rhos):  # a run's or the paper's ρ (not only a run's setting)
        headers = [
            "Dataset",
            *(f"{c.model} {h}" for c in runs for h in ("ρ", "popularity")),
            *(c.header("Table 4(a)") for c in pub),
        ]
        title = TABLE4_TITLE + _unlike_paper(results, columns, published)
        tables.append((title + _title_note(TWO_BUCKETINGS, results, columns), headers, t4))
    invariance = _invariance_table(results, columns, published)
    if invariance is not None:
        tables.append(invariance)
    return tables


TABLE4_TITLE = (
    "Table 4(a). Spearman ρ of popularity vs accuracy over the popularity buckets; beside each run's ρ "
    f"its popularity source and bucket count (the paper's: Web occurrences, {TABLE4A_BUCKETS} buckets)"
)


def _bucket_rho(s: RecallScores) -> object:
    return None if s.popularity is None else s.popularity.bucket_spearman


def _bucket_setting(s: RecallScores) -> object:
    return None if s.popularity is None else popularity_setting(s.popularity)


def _unlike_paper(results: Sequence[RecallRecord], columns: Sequence[str], published: bool) -> str:
    """What Table 4(a)'s title adds, beside the paper's values, for the runs whose ρ is not measured
    as the paper's is (another popularity source, another bucket count)."""
    unlike = [
        f"{col} on {r.kb}: {why}"
        for r, col in zip(results, columns, strict=True)
        if r.kb in TABLE4A_KBS and r.scores.popularity is not None
        if (why := unlike_table4a(r.scores.popularity))
    ]
    if not published or not unlike:
        return ""
    return f" — not the paper's measure, so not comparable with its ρ: {'; '.join(unlike)}"


INVARIANCE_TABLE = (
    "§6.3. Spearman ρ of AvPI vs accuracy over buckets (prediction invariance); reading paper: "
    "answers as written, knowsum: extracted IDs; n.s.: the paper reports no statistical correlation"
)


def _invariance_table(
    results: Sequence[RecallRecord], columns: Sequence[str], published: bool
) -> Table | None:
    """Rows (dataset, method, reading), columns: the runs with invariance (``columns``: each run's),
    then §6.3's models (their values are the paper's reading). ``None`` when there is nothing to show."""
    cell = {
        (r.kb, col): r.invariance_readings() for r, col in zip(results, columns, strict=True) if r.invariance
    }
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
    return INVARIANCE_TABLE + _title_note(TWO_BUCKETINGS, results, columns), headers, rows
