"""The recall report: plots of the paper's Figs. 2–4 and a self-contained ``report.html``.

Reads the *records* of a recall run only — the ``result.json`` content and the
``predictions.jsonl`` rows as plain dicts — and never imports the instrument. Model answers are
passed to the HTML helpers as plain text, so they are always escaped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from knowsum.report import _html as h
from knowsum.report import _plots as plots

__all__ = ["PLOT_FILES", "recall_page", "write_recall_report"]

PLOT_FILES = {
    "accuracy": "accuracy_per_bucket.png",
    "rb": "rb_per_bucket.png",
    "invariance": "invariance_per_bucket.png",
}
_PI_NAMES = {"pi1": "PI-1 (repetitions)", "pi2": "PI-2 (temperatures)", "pi3": "PI-3 (languages)"}


def _num(v: Any) -> float:
    return float("nan") if v is None else float(v)


def _figures(result: Mapping[str, Any]) -> dict[str, Any]:
    figs: dict[str, Any] = {}
    pop = result["scores"].get("popularity")
    if pop:
        rows = pop["buckets"]
        xs = [r["bucket"] for r in rows]
        figs["accuracy"] = plots.bars(
            xs,
            [0.0 if r["accuracy"] is None else r["accuracy"] for r in rows],
            title=f"Accuracy per bucket — {result['model']} on {result['kb']} (cf. paper Fig. 2)",
            xlabel="bucket (1 = least popular)",
            ylabel="accuracy",
        )
        figs["rb"] = plots.bars(
            xs,
            [0.0 if r["r_b"] is None else r["r_b"] for r in rows],
            title=f"R_B of the top-{pop['top_k_used']} repeated wrong IDs (cf. paper Fig. 3)",
            xlabel="bucket (1 = least popular)",
            ylabel="R_B (1 = uniform)",
        )
    inv = [s for s in result.get("invariance", []) if s["buckets"]]
    if inv:
        xs = sorted({b["bucket"] for s in inv for b in s["buckets"]})

        def series(s: Mapping[str, Any], key: str) -> list[float]:
            by = {b["bucket"]: b[key] for b in s["buckets"]}
            return [_num(by.get(x)) for x in xs]

        figs["invariance"] = plots.curves(
            xs,
            {f"AvPI {_PI_NAMES[s['method']]}": series(s, "avpi") for s in inv},
            ax_right={f"accuracy {s['method'].upper()}": series(s, "accuracy") for s in inv},
            title="Average prediction invariance and accuracy per bucket (cf. paper Fig. 4)",
            xlabel="bucket (1 = least popular)",
            ylabel="AvPI",
            ylabel_right="accuracy",
        )
    for fig in figs.values():  # bucket numbers are integers
        from matplotlib.ticker import MaxNLocator

        fig.axes[0].xaxis.set_major_locator(MaxNLocator(integer=True))
    return figs


_RULE_ROWS = (
    ("unique answers (Table 3a)", "unique_answers", "n_unique_predicted"),
    ("% invented (Table 3a)", "invented_pct", "invented_unique_pct"),
    ("% wrong due to invented (Table 3b)", "wrong_due_to_invented_pct", "wrong_due_to_invented_pct"),
    ("mean Levenshtein (Table 2)", "mean_levenshtein", "mean_levenshtein"),
    ("mean Jaccard (Table 2)", "mean_jaccard", "mean_jaccard"),
)


def _summary(result: Mapping[str, Any]) -> h.Markup:
    s = result["scores"]
    paper = s.get("paper")
    tiles = h.key_numbers(
        [
            ("accuracy", s["accuracy"], f"{s['n_correct']} of {s['n']}"),
            ("unique answers (paper rules)", None if paper is None else paper["unique_answers"], ""),
            ("% invented (paper rules)", None if paper is None else paper["invented_pct"], ""),
            (
                "% wrong due to invented (paper rules)",
                None if paper is None else paper["wrong_due_to_invented_pct"],
                "",
            ),
        ]
    )
    both = [[name, None if paper is None else paper[pk], s[sk]] for name, pk, sk in _RULE_ROWS]
    rows = [
        ["answers without an ID", s["n_no_id"]],
        ["wrong predictions (incl. no ID)", s["n_wrong"]],
        ["predictions with an invented ID (knowsum rules)", s["n_invented"]],
        ["distinct invented IDs (knowsum rules)", s["n_invented_unique"]],
    ]
    note = (
        f"{paper['note']}. Paper-rule Table 2 means: {paper['averaging']} "
        f"({'mean over buckets of the per-bucket means' if paper['averaging'] == 'buckets' else 'pooled'}); "
        f"existence over the {paper['existence']} ({paper['n_study']:,} IDs)."
        if paper is not None
        else "This record predates the paper-rule figures (result version 1)."
    )
    return h.section(
        "Memorization (RQ1, paper Tables 1–3)",
        tiles,
        h.table(["measure", "paper rules", "knowsum rules"], both, numeric=[False, True, True]),
        h.paragraph(note),
        h.table(["measure", "value"], rows),
    )


def _popularity(pop: Mapping[str, Any], imgs: Mapping[str, h.Markup]) -> h.Markup:
    stats = [
        [
            "Spearman ρ mean popularity vs accuracy (permutation p)",
            pop["bucket_spearman"],
            pop["bucket_spearman_p"],
        ],
        ["Granger F popularity → accuracy, lag 3 (parametric p)", pop["granger_f"], pop["granger_p"]],
        [
            "Granger F popularity → accuracy, lag 3 (permutation p)",
            pop["granger_f"],
            pop.get("granger_perm_p"),
        ],
        [
            "Spearman ρ mean popularity vs mean Levenshtein (paper rules)",
            pop["levenshtein_spearman"],
            pop["levenshtein_spearman_p"],
        ],
        [
            "Spearman ρ mean popularity vs mean Jaccard (paper rules)",
            pop["jaccard_spearman"],
            pop["jaccard_spearman_p"],
        ],
        [
            "Spearman ρ mean popularity vs mean Levenshtein (knowsum rules)",
            pop.get("knowsum_levenshtein_spearman"),
            None,
        ],
        [
            "Spearman ρ mean popularity vs mean Jaccard (knowsum rules)",
            pop.get("knowsum_jaccard_spearman"),
            None,
        ],
        ["Spearman ρ bucket vs R_B", pop["rb_spearman"], pop["rb_spearman_p"]],
    ]
    buckets = [
        [
            b["bucket"],
            b["lo"],
            b["hi"],
            b["n_universe"],
            b["n"],
            b["accuracy"],
            b["mean_levenshtein"],
            b["mean_jaccard"],
            b.get("paper_mean_levenshtein"),
            b.get("paper_mean_jaccard"),
            b["n_top_k"],
            b["r_b"],
        ]
        for b in pop["buckets"]
    ]
    top = [[i, times, bucket] for i, times, bucket in pop["top_ids"]]
    return h.section(
        "Popularity (RQ2, paper §5)",
        h.paragraph(
            f"Source: {pop['source']}; {pop['n_with_popularity']} probed concepts with a popularity value, "
            f"{pop['n_buckets']} buckets of consecutive distinct values (floor(D / buckets) each, "
            "the last bucket also the remainder)."
        ),
        h.table(["statistic", "value", "p-value"], stats, numeric=[False, True, True]),
        imgs.get("accuracy", h.Markup("")),
        imgs.get("rb", h.Markup("")),
        h.table(
            [
                "bucket",
                "from",
                "to",
                "N_B",
                "probed",
                "accuracy",
                "Levenshtein (knowsum)",
                "Jaccard (knowsum)",
                "Levenshtein (paper)",
                "Jaccard (paper)",
                "n_B",
                "R_B",
            ],
            buckets,
            numeric=[True] * 12,
            caption="Per-bucket statistics",
        ),
        h.table(["repeated wrong ID", "times", "bucket"], top, caption="Most repeated wrong IDs"),
    )


def _invariance(inv: Sequence[Mapping[str, Any]], imgs: Mapping[str, h.Markup]) -> h.Markup:
    rows = [
        [
            _PI_NAMES[s["method"]],
            s["m"],
            s["n_concepts"],
            s["mean_pi"],
            s["accuracy"],
            s["spearman"],
            s["spearman_p"],
        ]
        for s in inv
    ]
    return h.section(
        "Prediction invariance (RQ3, paper §6)",
        h.table(
            ["method", "M", "concepts", "mean PI", "accuracy", "Spearman AvPI vs accuracy", "p-value"],
            rows,
            numeric=[False] + [True] * 6,
        ),
        imgs.get("invariance", h.Markup("")),
    )


def _examples(preds: Sequence[Mapping[str, Any]], limit: int = 40) -> h.Markup:
    shown = [p for p in preds if p["status"] != "correct"][:limit] + [
        p for p in preds if p["status"] == "correct"
    ][: limit // 4]
    rows = [
        [p["id"], p["label"], p["text"], p["predicted"], p["status"], p.get("predicted_label")] for p in shown
    ]
    return h.section(
        "Example answers",
        h.table(["gold ID", "label", "model answer", "extracted", "status", "label of predicted ID"], rows),
    )


def recall_page(
    result: Mapping[str, Any], predictions: Sequence[Mapping[str, Any]], images: Mapping[str, bytes]
) -> str:
    """The HTML document of a recall run (``images``: plot name → PNG bytes)."""
    imgs = {k: h.figure_png(v, alt=k, name=k) for k, v in images.items()}
    parts: list[h.Markup] = [_summary(result)]
    pop = result["scores"].get("popularity")
    if pop:
        parts.append(_popularity(pop, imgs))
    if result.get("invariance"):
        parts.append(_invariance(result["invariance"], imgs))
    parts.append(_examples(predictions))
    timing = ", ".join(f"{k} {v:.2f} s" for k, v in result.get("timings", {}).items() if not math.isnan(v))
    return h.page(
        f"knowsum recall — {result['model']} on {result['kb']}",
        *parts,
        h.section("Configuration", h.code_block(json.dumps(result.get("config", {}), indent=1))),
        subtitle=f"KB release {result.get('kb_release') or '?'} · {result['api']} prompts · "
        f"{result['created']}",
        footer=f"Bombieri et al., “Do LLMs Dream of Ontologies?” · timings: {timing}",
    )


def write_recall_report(
    out_dir: Path, result: Mapping[str, Any], predictions: Sequence[Mapping[str, Any]]
) -> list[Path]:
    """Write the plots (PNG) and ``report.html`` into ``out_dir``; return the written paths."""
    written: list[Path] = []
    images: dict[str, bytes] = {}
    for name, fig in _figures(result).items():
        path = out_dir / PLOT_FILES[name]
        images[name] = plots.save(fig, path)
        written.append(path)
    written.append(h.write_page(out_dir / "report.html", recall_page(result, predictions, images)))
    return written
