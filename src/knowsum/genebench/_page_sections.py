"""The sections of a genebench ``report.html`` (:mod:`knowsum.genebench.page` assembles them).

Each builder reads the run record (:class:`~knowsum.genebench.record.GenebenchRecord`) and the scored
instances (:class:`~knowsum.genebench.record.InstanceRecord`) and returns escaped HTML. Scores are
fractions in the records and percentages here, like the paper; the Table 2 titles come from the record.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from knowsum.genebench import _page_plots as gp
from knowsum.genebench._page_text import UNANSWERED, unanswered
from knowsum.genebench.record import GenebenchRecord, InstanceRecord
from knowsum.report import format_value
from knowsum.report import html as h

__all__ = [
    "GO_IMPL",
    "SUMMARY_IMPL",
    "attention",
    "cells_table",
    "completeness",
    "examples",
    "format_errors",
    "hallucination",
    "key_numbers",
    "literature",
    "table2",
]

_RAW = {"perplexity", "length", "n"}  # extras that are not fractions
_EXAMPLES_PER_TASK = 3
_TEXT_LIMIT = 400


def _pct(v: Any) -> str:
    return "–" if v is None else f"{100 * float(v):.2f}"


def _pm(mean: Any, std: Any) -> str:
    return _pct(mean) if mean is None or std is None else f"{_pct(mean)}\u00a0±\u00a0{_pct(std)}"


def _val(name: str, v: Any) -> Any:
    return v if name in _RAW or v is None else f"{_pct(v)}\u00a0%"


def _short(text: str, limit: int = _TEXT_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def key_numbers(result: GenebenchRecord) -> h.Markup:
    """Tiles: overall (with its method), knowledge types asked, questions, instances, format errors."""
    s = result.scores
    n_types = len(s.types_asked)
    return h.key_numbers(
        [
            (
                "overall (%)",
                _pct(s.overall),
                s.methods.get("overall") or f"equal mean of the {n_types} knowledge types asked",
            ),
            ("knowledge types", f"{n_types} of {len(result.knowledge_titles)}", "asked (Table 2)"),
            ("questions", result.n_questions, ""),
            (
                "instances",
                result.n_instances,
                f"questions × rotations; {missing} unanswered, scored as wrong"
                if (missing := unanswered(result))
                else "questions × rotations",
            ),
            (
                "format errors (%)",
                _pct(s.format_error_rate),
                f"replies failing the {s.reply_rule} reply rule, scored 0",
            ),
        ]
    )


def table2(result: GenebenchRecord) -> h.Markup:
    """The run's row of Table 2 and the knowledge types not asked, with the reason."""
    s = result.scores
    know = s.knowledge
    titles = result.knowledge_titles
    headers = ["model", *titles.values(), "Overall"]
    row = [
        result.model,
        *(_pct(know[k]) if k in know else "not asked" for k in titles),
        _pct(s.overall),
    ]
    parts: list[h.Markup] = [
        h.table(
            headers,
            [row],
            numeric=[False] + [True] * (len(headers) - 1),
            caption="Score per knowledge type (%; the equal mean of its cells) and the overall",
        ),
    ]
    missing = s.types_missing
    if missing:
        rows = [[result.title(k), why] for k, why in missing.items()]
        parts.append(h.table(["knowledge type not asked", "reason"], rows))
    return h.section("Overall (paper Table 2)", *parts, anchor="table2")


def _extra(extra: Mapping[str, Any]) -> str:
    return "; ".join(
        f"{k.replace('_', ' ')} {format_value(_val(k, v))}" for k, v in extra.items() if v is not None
    )


def cells_table(result: GenebenchRecord) -> h.Markup:
    """Every cell of Tables 5–6: label, metric, mean ± std (%), questions, instances, extras."""
    rows = [
        [
            c.label,
            c.key,
            c.metric,
            _pm(c.mean, c.std),
            c.n_questions,
            c.n_instances,
            "yes" if c.in_overall else "control",
            _extra(c.extra),
        ]
        for c in result.scores.cells
    ]
    headers = ["cell", "key", "metric", "mean ± std (%)", "questions", "instances", "in overall", "details"]
    return h.section(
        "Cells (paper Tables 5–6)",
        h.table(headers, rows, numeric=[False, False, False, True, True, True, False, False]),
        h.paragraph(
            "Mean ± population std over the cyclic rotations of the options (std only with rotations)."
        ),
        anchor="cells",
    )


def attention(result: GenebenchRecord, imgs: Mapping[str, h.Markup]) -> h.Markup:
    """Fig. 4 and the PubMed-count curve, with the per-bucket table."""
    parts = [imgs[n] for n in ("attention_loc", "attention_curve") if n in imgs]
    att = result.scores.attention
    if att is not None:
        e = att.edges
        rows = [
            [i + 1, f"{e[i]:g}–{e[i + 1]:g}", n, _pct(a)]
            for i, (a, n) in enumerate(zip(att.accuracy, att.n, strict=True))
        ]
        parts.append(
            h.table(
                ["bucket", "PubMed articles", "questions", "accuracy (%)"],
                rows,
                numeric=[True, False, True, True],
            )
        )
    return h.section("Research attention (paper Fig. 4)", *parts, anchor="attention")


def hallucination(result: GenebenchRecord, imgs: Mapping[str, h.Markup]) -> h.Markup:
    """Fig. 5 and the "No right answer" cells with how often that option was picked."""
    rows = [
        [c.label, _pm(c.mean, c.std), _pct(c.extra.get("no_right_answer_chosen"))]
        for c in result.scores.cells
        if c.key.split("/")[0] in ("Q2-A", "Q3-B")
    ]
    return h.section(
        "Hallucination resistance (paper Fig. 5)",
        *[imgs[n] for n in ("hallucination",) if n in imgs],
        h.table(["cell", "accuracy (%)", "chose “No right answer” (%)"], rows, numeric=[False, True, True]),
        anchor="hallucination",
    )


def completeness(result: GenebenchRecord, imgs: Mapping[str, h.Markup]) -> h.Markup:
    """Fig. 6 and the Pearson correlations of Table 1."""
    rows = [[p.key, p.f1_precision, p.f1_recall, p.n] for p in result.scores.pearson]
    return h.section(
        "Knowledge completeness (paper Fig. 6, Table 1)",
        *[imgs[n] for n in ("completeness",) if n in imgs],
        h.table(
            ["task", "Pearson r (F1, precision)", "Pearson r (F1, recall)", "instances"],
            rows,
            numeric=[False, True, True, True],
            caption="Per-instance correlation (paper Table 1)",
        ),
    )


def _method(methods: Mapping[str, str], *names: str) -> str:
    norm = {"".join(ch for ch in k.lower() if ch.isalnum()): v for k, v in methods.items()}
    for n in names:
        if (found := norm.get("".join(ch for ch in n.lower() if ch.isalnum()))) is not None:
            return found
    return "–"


def literature(
    title: str,
    block: Mapping[str, Mapping[str, Any]],
    methods: Mapping[str, str],
    impl: Mapping[str, tuple[str, ...]],
    fig: h.Markup | None,
    anchor: str,
) -> h.Markup:
    """GO or summary details per flag (``scores.go`` / ``scores.summary``), each measure's implementation
    named (once below the table when all measures share it), and the box plots."""
    flags = list(block)
    metrics = list(dict.fromkeys(m for f in flags for m in block[f]))
    named = {m: _method(methods, *impl.get(m, (m,))) for m in metrics if m != "n"}
    shared = set(named.values()) - {"–"}
    one = len(shared) <= 1
    rows = [
        [
            m.replace("_", " "),
            *(_val(m, block[f].get(m)) for f in flags),
            *([] if one else [named.get(m, "–")]),
        ]
        for m in metrics
    ]
    headers = ["measure", *(gp.FLAG_NAMES.get(f, f) for f in flags), *([] if one else ["implementation"])]
    parts = [h.table(headers, rows, numeric=[False] + [True] * len(flags) + ([] if one else [False]))]
    if one and shared:
        parts.append(h.paragraph(f"Implementation: {shared.pop()}"))
    return h.section(title, *parts, *([fig] if fig is not None else []), anchor=anchor)


GO_IMPL = {m: ("go_annotation", "go") for m in ("macro_f1", "precision", "recall", "hallucinated_rate")}
SUMMARY_IMPL = {
    "score": ("summary", "summary score"),
    "rouge_l": ("rouge_l", "rouge"),
    "bertscore": ("bertscore", "bertscore_f1"),
    "fluency": ("fluency",),
    "perplexity": ("perplexity", "ppl", "fluency"),
    "length": ("length",),
}


def format_errors(result: GenebenchRecord, records: Sequence[InstanceRecord]) -> h.Markup:
    """Format-error rate per question type, counts and the first reason seen."""
    count: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    reasons: dict[str, str] = {}
    for r in records:
        if (r.format_error or "").startswith(UNANSWERED):  # no reply: not a format error
            continue
        c = count[r.question_type]
        c[1] += 1
        if r.format_error:
            c[0] += 1
            reasons.setdefault(r.question_type, r.format_error)
    s = result.scores
    rule = s.reply_rule
    other = "lenient" if rule == "strict" else "strict"
    by_rule, cut = s.format_errors_by_rule, s.format_errors_by_kind.get("truncated", {})
    rows = [
        [
            t,
            _pct(rate),
            _pct(by_rule.get(other, {}).get(t)),
            _pct(cut.get(t)),
            *count.get(t, [None, None]),
            reasons.get(t, ""),
        ]
        for t, rate in s.format_errors.items()
    ]
    if by_rule:
        rows.append(
            [
                "all",
                _pct(s.format_error_rate),
                _pct(by_rule.get(other, {}).get("overall")),
                _pct(cut.get("overall")),
                sum(c[0] for c in count.values()),
                len(records),
                "",
            ]
        )
    return h.section(
        "Format errors",
        h.paragraph(
            f"Scores use the {rule} rule; the {other} column shows how much the rule changes the "
            "format-error rate. 'cut at token limit': replies the backend stopped at the token budget "
            "that failed validation (kind 'truncated')."
        ),
        h.table(
            [
                "question type",
                f"rate, {rule} (%)",
                f"rate, {other} (%)",
                "cut at token limit (%)",
                "errors",
                "replies",
                "first reason",
            ],
            rows,
            numeric=[False, True, True, True, True, True, False],
        ),
        anchor="format-errors",
    )


def examples(records: Sequence[InstanceRecord]) -> h.Markup:
    """A few wrong instances per task (one per question); replies shortened and escaped."""
    shown: dict[str, list[InstanceRecord]] = defaultdict(list)
    seen: set[str] = set()  # one instance per question
    for r in records:
        task, qi = r.task, r.question_index
        if r.score < 1.0 and len(shown[task]) < _EXAMPLES_PER_TASK and qi not in seen:
            shown[task].append(r)
            seen.add(qi)
    rows = [
        [
            task,
            r.question_index[:12],
            r.gene,
            r.permutation,
            ", ".join(r.gold) if r.gold else None,
            _short(r.response),
            _short(json.dumps(r.parsed, ensure_ascii=False)),
            r.score,
            r.format_error,
        ]
        for task in sorted(shown)
        for r in shown[task]
    ]
    headers = ["task", "question", "gene", "rotation", "gold", "response", "parsed", "score", "format error"]
    return h.section(
        "Example wrong instances",
        h.paragraph(
            f"Up to {_EXAMPLES_PER_TASK} instances per task scoring below 1; replies shortened to "
            f"{_TEXT_LIMIT} characters, question IDs to 12."
        ),
        h.table(headers, rows, numeric=[False, False, False, True, False, False, False, True, False]),
        anchor="examples",
    )
