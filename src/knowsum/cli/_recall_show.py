"""What ``knowsum recall run|score`` print: the ``--json`` object, the terminal summary, warnings."""

from __future__ import annotations

from typing import Any

import click

from knowsum.recall import RULES_NOTE, RecallResult
from knowsum.report import text_table

__all__ = ["flat", "summary", "warn"]

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
    "top_k_used",
)


def flat(result: RecallResult) -> dict[str, Any]:
    """The ``--json`` object: stable top-level keys plus one object per rule set (issue 15)."""
    s = result.scores
    out: dict[str, Any] = {"kb": result.kb, "model": result.model, "n": s.n, "accuracy": s.accuracy}
    out.update(n_correct=s.n_correct, n_no_id=s.n_no_id)
    if s.popularity is not None:
        out.update({k: getattr(s.popularity, k) for k in POP_KEYS})
    if s.paper is not None:
        out["paper"] = {
            "unique_answers": s.paper.unique_answers,
            "invented_pct": s.paper.invented_pct,
            "wrong_due_to_invented_pct": s.paper.wrong_due_to_invented_pct,
            "mean_levenshtein": s.paper.mean_levenshtein,
            "mean_jaccard": s.paper.mean_jaccard,
            "existence": s.paper.existence,
            "averaging": s.paper.averaging,
        }
    out["knowsum"] = {
        "unique_answers": s.n_unique_predicted,
        "invented_pct": s.invented_unique_pct,
        "wrong_due_to_invented_pct": s.wrong_due_to_invented_pct,
        "mean_levenshtein": s.mean_levenshtein,
        "mean_jaccard": s.mean_jaccard,
        "n_levenshtein": s.n_levenshtein,
        "n_jaccard": s.n_jaccard,
    }
    if s.popularity is not None:
        out["knowsum"].update(
            levenshtein_spearman=s.popularity.knowsum_levenshtein_spearman,
            jaccard_spearman=s.popularity.knowsum_jaccard_spearman,
        )
    out["rules"] = RULES_NOTE
    for inv in result.invariance:
        out[f"{inv.method}_mean_pi"] = inv.mean_pi
        out[f"{inv.method}_spearman"] = inv.spearman
    if result.warnings:
        out["warnings"] = result.warnings
    return out


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


_RULE_ROWS = (
    ("unique answers (Table 3a)", "unique_answers"),
    ("% invented (Table 3a)", "invented_pct"),
    ("% wrong due to invented (3b)", "wrong_due_to_invented_pct"),
    ("mean Levenshtein (Table 2)", "mean_levenshtein"),
    ("mean Jaccard (Table 2)", "mean_jaccard"),
    ("Levenshtein ρ (Table 6)", "levenshtein_spearman"),
    ("Jaccard ρ (Table 6)", "jaccard_spearman"),
)


def summary(result: RecallResult) -> str:
    """The terminal summary: key numbers, then both rule sets side by side with the explanation."""
    values = flat(result)
    lines = [f"recall {result.kb} — {result.model} ({result.api})"]
    skip = {
        "kb",
        "model",
        "paper",
        "knowsum",
        "rules",
        "warnings",
        "levenshtein_spearman",
        "levenshtein_spearman_p",
        "jaccard_spearman",
        "jaccard_spearman_p",
    }
    lines += [f"  {k:<28} {_fmt(v)}" for k, v in values.items() if k not in skip]
    paper = dict(values.get("paper", {}))
    for key in ("levenshtein_spearman", "jaccard_spearman"):
        paper[key] = values.get(key)
    rows = [[name, _fmt(paper.get(key)), _fmt(values["knowsum"].get(key))] for name, key in _RULE_ROWS]
    lines += ["", text_table(["rule set", "paper", "knowsum"], rows), f"  {RULES_NOTE}"]
    return "\n".join(lines)


def warn(result: RecallResult) -> None:
    """Print each data warning of ``result`` as one ``warning:`` line on stderr."""
    for line in result.warnings:
        click.echo(f"warning: {line}", err=True)
