"""Terminal output of ``knowsum genebench``: the cells table, Table 2 scores, and a flat JSON view."""

from __future__ import annotations

from typing import Any

from knowsum.genebench import KNOWLEDGE_TITLES, GenebenchResult
from knowsum.report import text_table

__all__ = ["flat", "summary"]


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def summary(result: GenebenchResult) -> str:
    s = result.scores
    lines = [
        f"genebench — {result.model}: {result.n_questions} questions, {result.n_instances} instances",
        "",
        text_table(
            ["cell", "metric", "score %", "± std", "questions"],
            [[c.label, c.metric, _pct(c.mean), _pct(c.std), c.n_questions] for c in s.cells],
        ),
        "",
    ]
    for k, v in s.knowledge.items():
        lines.append(f"  {KNOWLEDGE_TITLES[k]:<22} {_pct(v)}")
    lines.append(f"  {'Overall':<22} {_pct(s.overall)}  (equal mean of {len(s.types_asked)} types asked)")
    for k, why in s.types_missing.items():
        lines.append(f"  not asked: {KNOWLEDGE_TITLES[k]} — {why}")
    lines.append(f"  format errors          {_pct(s.format_error_rate)} % of replies ({s.reply_rule} rule)")
    for rule, rates in s.format_errors_by_rule.items():
        if rule != s.reply_rule:
            lines.append(f"  … under the {rule} rule {_pct(rates.get('overall'))} %")
    cut = s.format_errors_by_kind.get("truncated", {}).get("overall")
    if cut is not None:
        lines.append(f"  … cut at the token limit {_pct(cut)} %")
    if s.attention is not None and s.attention.spearman is not None:
        a = s.attention
        lines.append(f"  attention curve        Spearman ρ {a.spearman:.3f} (permutation p {a.p_value:.3g})")
    return "\n".join(lines)


def flat(result: GenebenchResult) -> dict[str, Any]:
    s = result.scores
    out: dict[str, Any] = {
        "model": result.model,
        "n_questions": result.n_questions,
        "n_instances": result.n_instances,
        "overall": s.overall,
        "types_asked": s.types_asked,
        "format_error_rate": s.format_error_rate,
        "reply_rule": s.reply_rule,
    }
    out.update({f"format_errors.{rule}": r.get("overall") for rule, r in s.format_errors_by_rule.items()})
    out["format_errors.truncated"] = s.format_errors_by_kind.get("truncated", {}).get("overall")
    out.update({f"knowledge.{k}": v for k, v in s.knowledge.items()})
    out.update({f"cell.{c.key}": c.mean for c in s.cells})
    return out
