"""Terminal and JSON views of genebench records: the run summary, its key numbers, compare tables, and
what a build made. The CLI prints these; the Table 2 titles come from the record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from knowsum.genebench.record import GenebenchRecord
from knowsum.report import caveat_lines, markdown_table, text_table
from knowsum.stats.caveats import caveat_dicts

__all__ = [
    "UNANSWERED",
    "build_text",
    "compare_text",
    "coverage_text",
    "result_numbers",
    "summary_text",
    "unanswered",
]

UNANSWERED = "unanswered"
"""First word of the ``format_error`` of an instance a prediction file left unanswered (and the kind
counting them in ``scores.format_errors_by_kind``)."""


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{100 * v:.2f}"


def unanswered(result: GenebenchRecord) -> int:
    """Instances of a scored prediction file that no prediction answered (scored as wrong); 0 for a run."""
    answered = result.config.get("answered")
    return result.n_instances - answered if isinstance(answered, int) else 0


def coverage_text(result: GenebenchRecord) -> str | None:
    """ "3 of 49 instances answered; the 46 unanswered are scored as wrong" (``None`` if all answered)."""
    missing = unanswered(result)
    if not missing:
        return None
    n = result.n_instances
    are = "is" if missing == 1 else "are"
    return f"{n - missing} of {n} instances answered; the {missing} unanswered {are} scored as wrong"


def summary_text(result: GenebenchRecord) -> str:
    """The cells table, Table 2 scores, format errors and the attention test of a run, for a terminal."""
    s = result.scores
    coverage = coverage_text(result)
    lines = [
        f"genebench — {result.model}: {result.n_questions} questions, {result.n_instances} instances",
        *([coverage] if coverage else []),
        "",
        text_table(
            ["cell", "metric", "score %", "± std", "questions"],
            [[c.label, c.metric, _pct(c.mean), _pct(c.std), c.n_questions] for c in s.cells],
        ),
        "",
    ]
    for k, v in s.knowledge.items():
        lines.append(f"  {result.title(k):<22} {_pct(v)}")
    lines.append(f"  {'Overall':<22} {_pct(s.overall)}  (equal mean of {len(s.types_asked)} types asked)")
    for k, why in s.types_missing.items():
        lines.append(f"  not asked: {result.title(k)} — {why}")
    lines.append(f"  format errors          {_pct(s.format_error_rate)} % of replies ({s.reply_rule} rule)")
    missing = unanswered(result)
    if missing:
        lines.append(f"  unanswered             {missing} instances, scored as wrong (not format errors)")
    for rule, rates in s.format_errors_by_rule.items():
        if rule != s.reply_rule:
            lines.append(f"  … under the {rule} rule {_pct(rates.get('overall'))} %")
    cut = s.format_errors_by_kind.get("truncated", {}).get("overall")
    if cut is not None:
        lines.append(f"  … cut at the token limit {_pct(cut)} %")
    if s.attention is not None and s.attention.spearman is not None:
        a = s.attention
        lines.append(f"  attention curve        Spearman ρ {a.spearman:.3f} (permutation p {a.p_value:.3g})")
    return "\n".join(lines + caveat_lines(result.caveats))


def result_numbers(result: GenebenchRecord) -> dict[str, Any]:
    """The key numbers of a run as one flat JSON-ready object (fractions; ``None``: undefined)."""
    s = result.scores
    out: dict[str, Any] = {
        "model": result.model,
        "backend": result.backend,
        "n_questions": result.n_questions,
        "n_instances": result.n_instances,
        "n_unanswered": unanswered(result),
        "overall": s.overall,
        "types_asked": s.types_asked,
        "format_error_rate": s.format_error_rate,
        "reply_rule": s.reply_rule,
    }
    out.update({f"format_errors.{rule}": r.get("overall") for rule, r in s.format_errors_by_rule.items()})
    out["format_errors.truncated"] = s.format_errors_by_kind.get("truncated", {}).get("overall")
    out.update({f"knowledge.{k}": v for k, v in s.knowledge.items()})
    out.update({f"cell.{c.key}": c.mean for c in s.cells})
    out["caveats"] = caveat_dicts(result.caveats)
    return out


def compare_text(tables: Sequence[tuple[str, list[str], list[list[Any]]]], *, markdown: bool = False) -> str:
    """``(title, headers, rows)`` tables one after the other, as terminal or Markdown tables."""
    render = markdown_table if markdown else text_table
    return "\n\n".join(
        f"{'### ' if markdown else ''}{title}\n\n{render(headers, rows)}" for title, headers, rows in tables
    )


def build_text(
    counts: Mapping[str, Mapping[str, int]],
    excluded: Mapping[str, Mapping[str, int]],
    skipped: Mapping[str, str],
    budgets: Mapping[str, int],
) -> str:
    """What a question build made: questions per task and stratum, what each rule left out, the tasks
    not built and why, and the token budgets sized from the golds."""
    rows = [
        [task, ", ".join(f"{k} {v}" for k, v in c.items()), sum(c.values())] for task, c in counts.items()
    ]
    lines = [text_table(["task", "strata", "questions"], rows)]
    lines += [
        f"left out: {task} — {n} genes: {rule}"
        for task, rules in excluded.items()
        for rule, n in rules.items()
    ]
    lines += [f"not built: {task} — {why}" for task, why in skipped.items()]
    lines.append(
        "token budgets (sized from the longest gold): " + ", ".join(f"{k} {v}" for k, v in budgets.items())
    )
    return "\n".join(lines)
