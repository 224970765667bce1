"""What a terminal shows of a recall run: the ``--json`` object, the summary, the compare tables.

Reads :mod:`knowsum.recall.record` records only. The rule-set rows (:func:`rule_rows`) and the
invariance rows (:func:`invariance_rows`) are the lists the terminal tables and ``report.html``
both show.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from knowsum.recall.record import (
    READING_NOTES,
    RULES_NOTE,
    InvarianceSummary,
    PaperScores,
    RecallRecord,
    RecallScores,
)
from knowsum.report import caveat_lines, markdown_table, text_table
from knowsum.stats.caveats import caveat_dicts

__all__ = [
    "INVARIANCE_HEADERS",
    "invariance_json",
    "invariance_rows",
    "recall_compare_text",
    "recall_json",
    "recall_summary",
    "rule_rows",
]

POP_KEYS = (
    "bucket_spearman",
    "bucket_spearman_p",
    "granger_f",
    "granger_p",
    "granger_perm_p",
    "levenshtein_spearman",
    "levenshtein_spearman_p",
    "jaccard_spearman",
    "jaccard_spearman_p",
    "n_buckets",
    "rb_spearman",
    "rb_spearman_p",
    "top_k_used",
)
"""The popularity statistics of the ``--json`` object (top level, stable keys)."""

PAPER_KEYS = (
    "unique_answers",
    "invented_pct",
    "wrong_due_to_invented_pct",
    "mean_levenshtein",
    "mean_jaccard",
    "existence",
    "averaging",
)
"""The ``paper`` object of the ``--json`` output: Tables 2–3 under the paper's rules."""

_RULES: tuple[tuple[str, str, Callable[[PaperScores], object], Callable[[RecallScores], object]], ...] = (
    (
        "unique answers (Table 3a)",
        "unique_answers",
        lambda p: p.unique_answers,
        lambda s: s.n_unique_predicted,
    ),
    ("% invented (Table 3a)", "invented_pct", lambda p: p.invented_pct, lambda s: s.invented_unique_pct),
    (
        "% wrong due to invented (Table 3b)",
        "wrong_due_to_invented_pct",
        lambda p: p.wrong_due_to_invented_pct,
        lambda s: s.wrong_due_to_invented_pct,
    ),
    (
        "mean Levenshtein (Table 2)",
        "mean_levenshtein",
        lambda p: p.mean_levenshtein,
        lambda s: s.mean_levenshtein,
    ),
    ("mean Jaccard (Table 2)", "mean_jaccard", lambda p: p.mean_jaccard, lambda s: s.mean_jaccard),
)


def rule_rows(scores: RecallScores, *, table6: bool = False) -> list[list[object]]:
    """``[measure, paper rules, knowsum rules]`` for Tables 2–3 (``table6``: also the Spearman ρ
    of bucket popularity vs the error means, when the run has a popularity analysis)."""
    paper = scores.paper
    rows: list[list[object]] = [
        [name, None if paper is None else of_paper(paper), of_knowsum(scores)]
        for name, _, of_paper, of_knowsum in _RULES
    ]
    pop = scores.popularity
    if table6:
        rows += [
            [
                "Levenshtein ρ (Table 6)",
                None if pop is None else pop.levenshtein_spearman,
                None if pop is None else pop.knowsum_levenshtein_spearman,
            ],
            [
                "Jaccard ρ (Table 6)",
                None if pop is None else pop.jaccard_spearman,
                None if pop is None else pop.knowsum_jaccard_spearman,
            ],
        ]
    return rows


INVARIANCE_HEADERS = (
    "method",
    "M",
    "concepts",
    "ρ paper",
    "p paper",
    "ρ knowsum",
    "p knowsum",
    "mean PI paper",
    "mean PI knowsum",
    "accuracy paper",
    "accuracy knowsum",
)
"""Columns of :func:`invariance_rows`: per method, both readings of the answers (paper §6.3)."""


def _numbers(s: InvarianceSummary | None) -> tuple[object, object, object, object]:
    return (None, None, None, None) if s is None else (s.spearman, s.spearman_p, s.mean_pi, s.accuracy)


def invariance_rows(result: RecallRecord) -> list[list[object]]:
    """Per invariance method (:data:`INVARIANCE_HEADERS`): M, concepts, then ρ(AvPI, accuracy), its
    permutation p, mean PI and accuracy under the paper's reading and knowsum's (``None`` where the
    record has no such reading: a run has knowsum's only)."""
    rows: list[list[object]] = []
    for by in result.invariance_readings().values():
        first = next(iter(by.values()))
        (rho, p, pi, acc), (own_rho, own_p, own_pi, own_acc) = map(
            _numbers, (by.get("paper"), by.get("knowsum"))
        )
        rows.append(
            [first.title, first.m, first.n_concepts, rho, p, own_rho, own_p, pi, own_pi, acc, own_acc]
        )
    return rows


def _invariance_values(s: InvarianceSummary) -> dict[str, Any]:
    return {
        "m": s.m,
        "n_concepts": s.n_concepts,
        "mean_pi": s.mean_pi,
        "overall_accuracy": s.accuracy,
        "avpi_spearman": s.spearman,
        "avpi_spearman_p": s.spearman_p,
        "buckets": [b.bucket for b in s.buckets],
        "avpi": [b.avpi for b in s.buckets],
        "accuracy": [b.accuracy for b in s.buckets],
    }


def invariance_json(result: RecallRecord) -> dict[str, Any]:
    """The ``invariance`` object of ``--json``: method → the paper's reading as the main keys (the
    reading §6.3 printed; knowsum's for a run, which has only that one, named by ``reading``) and
    a ``knowsum`` object with knowsum's reading."""
    out: dict[str, Any] = {}
    for method, by in result.invariance_readings().items():
        main = by.get("paper") or by["knowsum"]
        entry: dict[str, Any] = {"reading": main.reading, **_invariance_values(main)}
        if main.source:
            entry.update(source=main.source, per_bucket=main.per_bucket)
        if "knowsum" in by:
            entry["knowsum"] = _invariance_values(by["knowsum"])
        out[method] = entry
    return out


def recall_json(result: RecallRecord) -> dict[str, Any]:
    """The ``--json`` object: stable top-level keys plus one object per rule set."""
    s = result.scores
    out: dict[str, Any] = {"kb": result.kb, "model": result.model, "n": s.n, "accuracy": s.accuracy}
    out.update(n_correct=s.n_correct, n_no_id=s.n_no_id)
    if s.popularity is not None:
        out.update({k: getattr(s.popularity, k) for k in POP_KEYS})
    if s.paper is not None:
        out["paper"] = {k: getattr(s.paper, k) for k in PAPER_KEYS}
    out["knowsum"] = {key: of_knowsum(s) for _, key, _, of_knowsum in _RULES}
    out["knowsum"].update(n_levenshtein=s.n_levenshtein, n_jaccard=s.n_jaccard)
    if s.popularity is not None:
        out["knowsum"].update(
            levenshtein_spearman=s.popularity.knowsum_levenshtein_spearman,
            levenshtein_spearman_p=s.popularity.knowsum_levenshtein_spearman_p,
            jaccard_spearman=s.popularity.knowsum_jaccard_spearman,
            jaccard_spearman_p=s.popularity.knowsum_jaccard_spearman_p,
        )
    out["rules"] = RULES_NOTE
    for method, by in result.invariance_readings().items():  # knowsum's reading, as before
        if "knowsum" in by:
            out[f"{method}_mean_pi"] = by["knowsum"].mean_pi
            out[f"{method}_spearman"] = by["knowsum"].spearman
    if result.invariance:
        out["invariance"] = invariance_json(result)
    if result.notes:
        out["notes"] = result.notes
    out["caveats"] = caveat_dicts(result.caveats)
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def recall_summary(result: RecallRecord) -> str:
    """The terminal summary: key numbers, then both rule sets side by side with the explanation."""
    values = recall_json(result)
    lines = [f"recall {result.kb} — {result.model} ({result.api})"]
    skip = {"kb", "model", "paper", "knowsum", "rules", "notes", "invariance", "caveats"}
    skip |= {k for k in POP_KEYS if k.startswith(("levenshtein_", "jaccard_"))}  # in the rule-set table
    skip |= {f"{m}_{k}" for m in ("pi1", "pi2", "pi3") for k in ("mean_pi", "spearman")}  # invariance table
    lines += [f"  {k:<28} {_fmt(v)}" for k, v in values.items() if k not in skip]
    rows = [[name, _fmt(paper), _fmt(own)] for name, paper, own in rule_rows(result.scores, table6=True)]
    lines += ["", text_table(["rule set", "paper", "knowsum"], rows), f"  {RULES_NOTE}"]
    inv = invariance_rows(result)
    if inv:
        shown = [[_fmt(v) for v in row[:7]] for row in inv]
        readings = [r for r in READING_NOTES if any(s.reading == r for s in result.invariance)]
        lines += [
            "",
            "prediction invariance (§6.3): Spearman ρ of AvPI vs accuracy over buckets, permutation p",
            text_table(list(INVARIANCE_HEADERS[:7]), shown),
            *(f"  {READING_NOTES[r]}" for r in readings),
        ]
    return "\n".join(lines + caveat_lines(result.caveats))


def recall_compare_text(
    tables: Sequence[tuple[str, Sequence[str], Sequence[Sequence[object]]]], *, markdown: bool = False
) -> str:
    """The compare tables (``knowsum.recall.compare_tables``) as terminal or Markdown text."""
    render = markdown_table if markdown else text_table
    return "\n\n".join(
        f"{'### ' if markdown else ''}{title}\n\n{render(headers, rows)}" for title, headers, rows in tables
    )
