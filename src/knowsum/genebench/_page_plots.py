"""The figures of a genebench report (SciHorizon-GENE, Huang et al., Figs. 4–9), from the run records.

Reads the run record (:class:`~knowsum.genebench.record.GenebenchRecord`) and the scored instances
(:class:`~knowsum.genebench.record.InstanceRecord`); never imports the instrument. Scores are
fractions in the records and percentages on the plots, like the paper. Every builder returns ``None``
when its data are not in the run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from knowsum.genebench.record import Cell, GenebenchRecord, InstanceRecord
from knowsum.report import plots as plots

__all__ = [
    "FLAG_NAMES",
    "attention_curve",
    "completeness_bars",
    "go_boxes",
    "hallucination_scatter",
    "loc_bars",
    "perspective_means",
    "perspective_radar",
    "summary_boxes",
]

FLAG_NAMES = {"no_ref": "without abstracts", "with_ref": "with abstracts"}
_ATTENTION_TASKS = {"Q1": "full name", "Q3-A": "chromosome", "Q4": "gene_type"}
"""Task → knowledge type, for the tasks of Fig. 4 (labelled with the record's Table 2 titles)."""
_Measure = str | Callable[[InstanceRecord], float | None]
"""A record field, or a function of the record (``None``: no value)."""
_COMPLETENESS_TASKS = {"Q2-B": "synonyms", "Q5": "designation", "Q6": "expression"}
"""Task → knowledge type, for the multi-answer tasks of Fig. 6."""


def _pct(v: float | None) -> float:
    return math.nan if v is None else 100.0 * float(v)


def _cells(result: GenebenchRecord) -> dict[str, Cell]:
    return {c.key: c for c in result.scores.cells}


def loc_bars(result: GenebenchRecord) -> tuple[Any, str] | None:
    """Fig. 4: accuracy on low- (LOC) vs high-attention genes per task, ± std over rotations."""
    cells = _cells(result)
    tasks = [t for t in _ATTENTION_TASKS if f"{t}/loc" in cells or f"{t}/non-loc" in cells]
    if not tasks:
        return None
    series: dict[str, list[float]] = {}
    errors: dict[str, list[float]] = {}
    for flag, name in (("loc", "low attention (LOC genes)"), ("non-loc", "high attention")):
        got = [cells.get(f"{t}/{flag}") for t in tasks]
        series[name] = [_pct(None if c is None else c.mean) for c in got]
        errors[name] = [0.0 if c is None or c.std is None else _pct(c.std) for c in got]
    fig = plots.grouped_bars(
        [f"{result.title(_ATTENTION_TASKS[t])} ({t})" for t in tasks],
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


def hallucination_scatter(result: GenebenchRecord) -> tuple[Any, str] | None:
    """Fig. 5: accuracy on "no right answer" questions, synonyms (y) vs chromosome location (x)."""
    cells = _cells(result)
    syn, chrom = cells.get("Q2-A/no-answer"), cells.get("Q3-B/no-answer")
    if syn is None or chrom is None or syn.mean is None or chrom.mean is None:
        return None
    fig = plots.scatter_identity(
        [_pct(chrom.mean)],
        [_pct(syn.mean)],
        groups=[result.model],
        title="Hallucination resistance (cf. paper Fig. 5)",
        xlabel="chromosome location (Q3-B) accuracy (%)",
        ylabel="synonyms (Q2-A) accuracy (%)",
        limits=(0.0, 100.0),
    )
    return fig, (
        "Accuracy (%) on questions whose right option is “No right answer”; above the diagonal the model "
        "resists hallucinating synonyms better than chromosome locations."
    )


def completeness_bars(result: GenebenchRecord) -> tuple[Any, str] | None:
    """Fig. 6: macro precision, recall and F1 of the multi-answer tasks (Q2-B, Q5, Q6)."""
    cells = _cells(result)
    tasks = [t for t in _COMPLETENESS_TASKS if t in cells]
    if not tasks:
        return None
    series: dict[str, list[float]] = {"precision": [], "recall": [], "F1": []}
    for t in tasks:
        c = cells[t]
        series["precision"].append(_pct(c.extra.get("precision")))
        series["recall"].append(_pct(c.extra.get("recall")))
        series["F1"].append(_pct(c.extra.get("tissue_f1") if t == "Q6" else c.mean))
    fig = plots.grouped_bars(
        [f"{result.title(_COMPLETENESS_TASKS[t])} ({t})" for t in tasks],
        series,
        title="Knowledge completeness (cf. paper Fig. 6)",
        ylabel="macro score (%)",
    )
    fig.axes[0].set_ylim(0, 105)
    return fig, "Macro precision, recall and F1 (%) of the multi-answer tasks; for Q6 over the tissue lists."


def _flag_boxes(
    records: Iterable[InstanceRecord],
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
        if r.task != task:
            continue
        group = FLAG_NAMES.get(r.flag, r.flag)
        for name, get in measures.items():
            v = getattr(r, get) if isinstance(get, str) else get(r)
            if v is not None:
                out[name].setdefault(group, []).append(float(v))
    panels = {m: g for m, g in out.items() if g}
    return plots.boxes(panels, title=title, log_panels=log_panels, ncols=len(panels)) if panels else None


def _hallucinated(r: InstanceRecord) -> float | None:
    mapped, unmapped = r.go_mapped or 0, r.go_unmapped or 0
    return unmapped / (mapped + unmapped) if mapped + unmapped else None


def go_boxes(records: Sequence[InstanceRecord]) -> tuple[Any, str] | None:
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


def summary_boxes(records: Sequence[InstanceRecord]) -> tuple[Any, str] | None:
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


def attention_curve(result: GenebenchRecord) -> tuple[Any, str] | None:
    """Accuracy of the research-attention questions per PubMed-count bucket (beyond the paper)."""
    att = result.scores.attention
    if att is None or not att.accuracy:
        return None
    xs = list(range(1, len(att.accuracy) + 1))
    fig = plots.curves(
        xs,
        {"accuracy": [_pct(a) for a in att.accuracy]},
        title="Accuracy over research attention",
        xlabel="linked PubMed articles (bucket range)",
        ylabel="accuracy (%)",
    )
    ax = fig.axes[0]
    ax.lines[0].set_marker("o")
    edges = att.edges
    ax.set_xticks(xs, [f"{edges[i]:g}–{edges[i + 1]:g}" for i in range(len(xs))], rotation=30, ha="right")
    ax.set_ylim(0, 105)
    rho, p = att.spearman, att.p_value
    stat = (
        "Spearman ρ undefined (fewer than 3 filled buckets or constant accuracy)"
        if rho is None
        else f"Spearman ρ = {rho:.3f}, permutation p = {p:.3g} ({att.n_perm:,} permutations)"
    )
    return (
        fig,
        f"Accuracy (%) of the single-choice research-attention questions per PubMed-count bucket; {stat}.",
    )


def perspective_means(result: GenebenchRecord) -> dict[str, float | None]:
    """Mean of the cells of each perspective the record names (``None`` when none was asked), Fig. 9."""
    return result.perspective_means()


def perspective_radar(results: Sequence[GenebenchRecord], names: Sequence[str] | None = None) -> Any:
    """Fig. 9: a radar of the perspectives (%) the runs name, one polygon per run (a gap: not asked);
    ``names``: the runs' names as the compare tables print them (default: :attr:`GenebenchRecord.name`)."""
    axes = list(dict.fromkeys(name for r in results for name in r.perspectives))
    series: dict[str, list[float]] = {}
    for i, r in enumerate(results):
        base = names[i] if names is not None else r.name
        name, n = base, 2
        while name in series:
            name, n = f"{base} ({n})", n + 1
        means = perspective_means(r)
        series[name] = [_pct(means.get(a)) for a in axes]
    return plots.radar(axes, series, title="Perspectives (%) (cf. paper Fig. 9)", r_max=100.0)
