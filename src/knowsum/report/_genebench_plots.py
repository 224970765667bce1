"""The figures of a genebench report (SciHorizon-GENE, Huang et al., Figs. 4–9), from plain records.

Reads the ``result.json`` content and the ``predictions.jsonl`` rows as dicts; never imports the
instrument. Scores are fractions in the records and percentages on the plots, like the paper.
Every builder returns ``None`` when its data are not in the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from knowsum.report import _plots as plots

__all__ = [
    "FLAG_NAMES",
    "PERSPECTIVES",
    "attention_curve",
    "completeness_bars",
    "go_boxes",
    "hallucination_scatter",
    "loc_bars",
    "perspective_means",
    "perspective_radar",
    "summary_boxes",
]

#: Copy of ``knowsum.genebench.PERSPECTIVES`` (the report layer must not import the instrument;
#: tests/report/test_genebench_report.py checks that the two stay equal).
PERSPECTIVES: dict[str, tuple[str, ...]] = {
    "research attention": ("Q1/loc", "Q1/non-loc", "Q3-A/loc", "Q3-A/non-loc", "Q4/loc", "Q4/non-loc"),
    "hallucination resistance": ("Q2-A/no-answer", "Q3-B/no-answer"),
    "knowledge completeness": ("Q2-B", "Q5", "Q6"),
    "literature influence": ("Q7/no_ref", "Q7/with_ref", "Q8/no_ref", "Q8/with_ref"),
}
FLAG_NAMES = {"no_ref": "without abstracts", "with_ref": "with abstracts"}
_ATTENTION_TASKS = {"Q1": "Gene Full Name (Q1)", "Q3-A": "Chromosome Location (Q3-A)", "Q4": "Gene Type (Q4)"}
_Measure = str | Callable[[Mapping[str, Any]], float | None]
"""A record field, or a function of the record (``None``: no value)."""
_COMPLETENESS_TASKS = {"Q2-B": "Synonyms (Q2-B)", "Q5": "Related Proteins (Q5)", "Q6": "Expression (Q6)"}


def _pct(v: Any) -> float:
    return math.nan if v is None else 100.0 * float(v)


def _cells(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    return {c["key"]: c for c in result["scores"].get("cells", [])}


def loc_bars(result: Mapping[str, Any]) -> tuple[Any, str] | None:
    """Fig. 4: accuracy on low- (LOC) vs high-attention genes per task, ± std over rotations."""
    cells = _cells(result)
    tasks = [t for t in _ATTENTION_TASKS if f"{t}/loc" in cells or f"{t}/non-loc" in cells]
    if not tasks:
        return None
    series: dict[str, list[float]] = {}
    errors: dict[str, list[float]] = {}
    for flag, name in (("loc", "low attention (LOC genes)"), ("non-loc", "high attention")):
        got = [cells.get(f"{t}/{flag}", {}) for t in tasks]
        series[name] = [_pct(c.get("mean")) for c in got]
        errors[name] = [0.0 if c.get("std") is None else _pct(c["std"]) for c in got]
    fig = plots.grouped_bars(
        [_ATTENTION_TASKS[t] for t in tasks],
        series,
        errors=errors,
        bounds=(0.0, 100.0),
        title="Research attention: LOC vs non-LOC genes (cf. paper Fig. 4)",
        ylabel="accuracy (%)",
    )
    fig.axes[0].set_ylim(0, 125)
    fig.axes[0].legend(ncol=2, loc="upper center", fontsize=9)
    return (
        fig,
        "Accuracy (%) on low-attention (LOC) and high-attention genes; error bars: std over rotations, "
        "cut at 0 and 100 %.",
    )


def hallucination_scatter(result: Mapping[str, Any]) -> tuple[Any, str] | None:
    """Fig. 5: accuracy on "no right answer" questions, synonyms (y) vs chromosome location (x)."""
    cells = _cells(result)
    syn, chrom = cells.get("Q2-A/no-answer"), cells.get("Q3-B/no-answer")
    if syn is None or chrom is None or syn.get("mean") is None or chrom.get("mean") is None:
        return None
    fig = plots.scatter_identity(
        [_pct(chrom["mean"])],
        [_pct(syn["mean"])],
        groups=[str(result["model"])],
        title="Hallucination resistance (cf. paper Fig. 5)",
        xlabel="chromosome location (Q3-B) accuracy (%)",
        ylabel="synonyms (Q2-A) accuracy (%)",
        limits=(0.0, 100.0),
    )
    return fig, (
        "Accuracy (%) on questions whose right option is “No right answer”; above the diagonal the model "
        "resists hallucinating synonyms better than chromosome locations."
    )


def completeness_bars(result: Mapping[str, Any]) -> tuple[Any, str] | None:
    """Fig. 6: macro precision, recall and F1 of the multi-answer tasks (Q2-B, Q5, Q6)."""
    cells = _cells(result)
    tasks = [t for t in _COMPLETENESS_TASKS if t in cells]
    if not tasks:
        return None
    series: dict[str, list[float]] = {"precision": [], "recall": [], "F1": []}
    for t in tasks:
        c = cells[t]
        extra = c.get("extra", {})
        series["precision"].append(_pct(extra.get("precision")))
        series["recall"].append(_pct(extra.get("recall")))
        series["F1"].append(_pct(extra.get("tissue_f1") if t == "Q6" else c.get("mean")))
    fig = plots.grouped_bars(
        [_COMPLETENESS_TASKS[t] for t in tasks],
        series,
        title="Knowledge completeness (cf. paper Fig. 6)",
        ylabel="macro score (%)",
    )
    fig.axes[0].set_ylim(0, 105)
    return fig, "Macro precision, recall and F1 (%) of the multi-answer tasks; for Q6 over the tissue lists."


def _flag_boxes(
    records: Iterable[Mapping[str, Any]],
    task: str,
    measures: Mapping[str, _Measure],
    title: str,
    log_panels: Sequence[str] = (),
) -> Any | None:
    """Box panels of per-instance values of ``task``, one box per flag (without / with abstracts).

    ``measures``: panel title → record field, or a function of the record (``None``: no value).
    """
    out: dict[str, dict[str, list[float]]] = {m: {} for m in measures}
    for r in records:
        if r.get("task") != task:
            continue
        group = FLAG_NAMES.get(str(r.get("flag")), str(r.get("flag")))
        for name, get in measures.items():
            v = r.get(get) if isinstance(get, str) else get(r)
            if v is not None:
                out[name].setdefault(group, []).append(float(v))
    panels = {m: g for m, g in out.items() if g}
    return plots.boxes(panels, title=title, log_panels=log_panels, ncols=len(panels)) if panels else None


def _hallucinated(r: Mapping[str, Any]) -> float | None:
    mapped, unmapped = r.get("go_mapped") or 0, r.get("go_unmapped") or 0
    return unmapped / (mapped + unmapped) if mapped + unmapped else None


def go_boxes(records: Sequence[Mapping[str, Any]]) -> tuple[Any, str] | None:
    """Fig. 7: per-instance GO precision, recall, F1 and hallucinated rate, without vs with abstracts."""
    measures: dict[str, _Measure] = {
        "precision": "precision",
        "recall": "recall",
        "F1": "f1",
        "hallucinated rate": _hallucinated,
    }
    fig = _flag_boxes(
        records, "Q7", measures, "Gene Ontology answers without / with abstracts (cf. paper Fig. 7)"
    )
    caption = (
        "Per-instance CAFA-style precision, recall and F1, and the share of predicted GO descriptions that "
        "map to no GO term (hallucinated)."
    )
    return None if fig is None else (fig, caption)


def summary_boxes(records: Sequence[Mapping[str, Any]]) -> tuple[Any, str] | None:
    """Fig. 8: per-instance ROUGE-L, BERTScore, fluency, perplexity and length, without vs with abstracts."""
    measures: dict[str, _Measure] = {
        "ROUGE-L": "rouge_l",
        "BERTScore F1": "bertscore",
        "fluency": "fluency",
        "perplexity": "perplexity",
        "length (words)": "length",
    }
    title = "Functional summaries without / with abstracts (cf. paper Fig. 8)"
    fig = _flag_boxes(records, "Q8", measures, title, log_panels=("perplexity",))
    caption = "Per-instance summary scores; fluency = 1/(1 + log10 perplexity); perplexity on a log axis."
    return None if fig is None else (fig, caption)


def attention_curve(result: Mapping[str, Any]) -> tuple[Any, str] | None:
    """Accuracy of the research-attention questions per PubMed-count bucket (beyond the paper)."""
    att = result["scores"].get("attention")
    if not att or not att.get("accuracy"):
        return None
    xs = list(range(1, len(att["accuracy"]) + 1))
    fig = plots.curves(
        xs,
        {"accuracy": [_pct(a) for a in att["accuracy"]]},
        title="Accuracy over research attention",
        xlabel="linked PubMed articles (bucket range)",
        ylabel="accuracy (%)",
    )
    ax = fig.axes[0]
    ax.lines[0].set_marker("o")
    edges = att["edges"]
    ax.set_xticks(xs, [f"{edges[i]:g}–{edges[i + 1]:g}" for i in range(len(xs))], rotation=30, ha="right")
    ax.set_ylim(0, 105)
    rho, p = att.get("spearman"), att.get("p_value")
    stat = (
        "Spearman ρ undefined (fewer than 3 filled buckets or constant accuracy)"
        if rho is None
        else f"Spearman ρ = {rho:.3f}, permutation p = {p:.3g} ({att.get('n_perm', 0):,} permutations)"
    )
    return (
        fig,
        f"Accuracy (%) of the single-choice research-attention questions per PubMed-count bucket; {stat}.",
    )


def perspective_means(result: Mapping[str, Any]) -> dict[str, float | None]:
    """Mean of the cells of each perspective (``None`` when none was asked), as in Fig. 9."""
    cells = _cells(result)
    out: dict[str, float | None] = {}
    for name, keys in PERSPECTIVES.items():
        vals = [float(v) for k in keys if (v := cells.get(k, {}).get("mean")) is not None]
        out[name] = sum(vals) / len(vals) if vals else None
    return out


def perspective_radar(results: Sequence[Mapping[str, Any]]) -> Any:
    """Fig. 9: a radar of the four perspectives (%), one polygon per run."""
    series: dict[str, list[float]] = {}
    for r in results:
        name = str(r["model"])
        n = 2
        while name in series:
            name, n = f"{r['model']} ({n})", n + 1
        series[name] = [_pct(v) for v in perspective_means(r).values()]
    return plots.radar(list(PERSPECTIVES), series, title="Perspectives (%) (cf. paper Fig. 9)", r_max=100.0)
