"""Census reports: the four plots, the self-contained ``report.html``, comparison tables.

Plots (matplotlib, KnowSum figure numbers):

- ``prevalence.png`` — frequency-of-frequencies histogram ``n_s`` vs ``s`` (Fig. 4);
- ``curve.png`` — ``N̂_tot(t) = N_seen + Û(t)`` with its bootstrap band, and ``SKR(t)`` on the
  right axis (Fig. 8);
- ``heldout.png`` — held-out check: mean estimated vs actual unseen for ``r_obs`` ∈ {1/2, 1/3, 1/4}
  (Fig. 7);
- ``top_items.png`` — most frequent verified items (Fig. 5 / Tables 6-8).

This module reads result records only: anything shaped like ``knowsum.census.CensusResult``
(:class:`CensusRecord` spells out what is read, so the report layer never imports the instrument).
All model text is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from knowsum.report import _html as h
from knowsum.report import _plots as p
from knowsum.report._census_kb import category_plot
from knowsum.report._census_marks import clamp_mark, clamp_note, run_mark, unseen_cell
from knowsum.report._census_rank import ranks
from knowsum.report._census_studies import sensitivity_plots, sensitivity_section
from knowsum.report._tables import format_value, markdown_table, text_table

__all__ = [
    "CensusRecord",
    "compare_html",
    "compare_rows",
    "compare_table",
    "plots",
    "render_report",
    "summary_table",
    "write_compare",
    "write_report",
]


class CensusRecord(Protocol):
    """What the census report reads of a result record (``knowsum.census.CensusResult`` fits)."""

    @property
    def created(self) -> str: ...
    @property
    def task(self) -> str: ...
    @property
    def prompt(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def backend(self) -> str: ...
    @property
    def criterion(self) -> str: ...
    @property
    def counts(self) -> Any: ...
    @property
    def prevalence(self) -> Sequence[tuple[int, int]]: ...
    @property
    def n_observations(self) -> int: ...
    @property
    def n_seen(self) -> int: ...
    @property
    def n_unseen(self) -> float | None: ...
    @property
    def n_unseen_raw(self) -> float | None: ...
    @property
    def n_total(self) -> float | None: ...
    @property
    def skr(self) -> float | None: ...
    @property
    def interval(self) -> tuple[float, float] | None: ...
    @property
    def interval_total(self) -> tuple[float, float] | None: ...
    @property
    def level(self) -> float: ...
    @property
    def interval_method(self) -> str: ...
    @property
    def interval_skr(self) -> tuple[float, float] | None: ...
    @property
    def counting(self) -> str: ...
    @property
    def t(self) -> float: ...
    @property
    def k(self) -> int | None: ...
    @property
    def k_source(self) -> str: ...
    @property
    def k_errors(self) -> dict[str, float]: ...
    @property
    def curve(self) -> Sequence[Any]: ...
    @property
    def heldout(self) -> Sequence[Any]: ...
    @property
    def top_items(self) -> Sequence[Any]: ...
    @property
    def unverified_top(self) -> Sequence[Any]: ...
    @property
    def examples(self) -> Sequence[str]: ...
    @property
    def stop(self) -> Any: ...
    @property
    def sensitivity(self) -> Any: ...
    @property
    def notes(self) -> Sequence[str]: ...
    @property
    def concept_words(self) -> dict[str, int]: ...
    @property
    def kb_categories(self) -> Any: ...


COMPARE_HEADERS = ["model", "task", "N_seen", "N_tot (est.)", "SKR", "rank N_seen", "rank N_tot", "change"]


def _fmt_interval(iv: Sequence[float] | None) -> str:
    return "–" if iv is None else f"[{format_value(float(iv[0]))}, {format_value(float(iv[1]))}]"


def plots(result: CensusRecord) -> dict[str, tuple[Any, str]]:
    """The report's figures: name → (matplotlib figure, caption). Empty parts are left out."""
    out: dict[str, tuple[Any, str]] = {}
    if result.prevalence:
        s, n_s = zip(*result.prevalence, strict=True)
        out["prevalence"] = (
            p.bars(list(s), list(n_s), title="Prevalence histogram", xlabel="s (times seen)",
                   ylabel="n_s (items seen s times)", log_y=True),
            "Frequency of frequencies n_s (KnowSum Fig. 4).",
        )  # fmt: skip
    if result.curve:
        ts = [c.t for c in result.curve]
        total = [c.n_total for c in result.curve]
        lo = [
            result.n_seen + (c.unseen_lower if c.unseen_lower is not None else c.unseen) for c in result.curve
        ]
        hi = [
            result.n_seen + (c.unseen_upper if c.unseen_upper is not None else c.unseen) for c in result.curve
        ]
        skr = [c.skr if c.skr is not None else float("nan") for c in result.curve]
        fig = p.curves(
            ts, {"N_tot(t) = N_seen + U(t)": total}, bands={"N_tot(t) = N_seen + U(t)": (lo, hi)},
            ax_right={"SKR(t)": skr}, ylabel_right="SKR(t)", xlabel="extrapolation factor t",
            ylabel="estimated total items", title="Extrapolation", vlines={f"t = {result.t:g}": result.t},
        )  # fmt: skip
        fig.axes[0].set_xscale("log")
        band = f"{result.level:.0%} {result.interval_method} bootstrap band"
        out["curve"] = (fig, f"N̂_tot(t) and SKR(t) with {band} (KnowSum Fig. 8).{clamp_note(result.curve)}")
    if result.heldout:
        groups = [f"r_obs = 1/{round(1 / pt.r_obs)}" for pt in result.heldout]
        out["heldout"] = (
            p.scatter_identity([pt.actual for pt in result.heldout], [pt.estimated for pt in result.heldout],
                               groups=groups, title="Held-out check", xlabel="actual unseen",
                               ylabel="estimated unseen"),
            "Mean estimated vs actual new items in held-out queries (KnowSum §5.1, Fig. 7).",
        )  # fmt: skip
    if result.top_items:
        top = result.top_items[:20]
        out["top_items"] = (
            p.barh(
                [t.name for t in top], [t.count for t in top], title="Most frequent items", xlabel="count"
            ),
            "Most frequently generated verified items (KnowSum Fig. 5).",
        )
    if result.kb_categories is not None:
        out["kb_categories"] = category_plot(result.kb_categories)
    if result.sensitivity is not None:
        out.update(sensitivity_plots(result.sensitivity))
    return out


def _summary_rows(result: CensusRecord) -> list[list[Any]]:
    c = result.counts
    rows: list[list[Any]] = [
        ["task", result.task],
        ["model", result.model],
        ["criterion", result.criterion],
        ["responses", c.responses],
        [
            "items (valid / excluded / unverified / invalid)",
            f"{c.valid} / {c.excluded} / {c.unverified} / {c.invalid}",
        ],
        [f"observations n ({result.counting})", result.n_observations],
        ["N_seen", result.n_seen],
        [f"U(t), t = {result.t:g}", unseen_cell(result.n_unseen, result.n_unseen_raw)],
        [f"U(t) {result.level:.0%} interval ({result.interval_method})", _fmt_interval(result.interval)],
        ["N_tot (estimated)", result.n_total],
        ["N_tot interval", _fmt_interval(result.interval_total)],
        ["SKR", result.skr],
        ["SKR interval", _fmt_interval(result.interval_skr)],
        ["k", f"{result.k} ({result.k_source})"],
    ]
    if result.concept_words:
        per_word = ", ".join(f"{w} {n:,}" for w, n in result.concept_words.items())
        rows.append(["N_seen items per word (an item may hold two)", per_word])
    if c.claimed_ids:
        rows.append(["claimed IDs that agree", f"{c.claimed_agree} / {c.claimed_ids}"])
    if result.stop is not None:
        rows.append(["stopped", result.stop.message])
    return rows


def summary_table(result: CensusRecord, markdown: bool = False) -> str:
    """The key numbers as a terminal (or Markdown) table."""
    return (markdown_table if markdown else text_table)(["quantity", "value"], _summary_rows(result))


def render_report(result: CensusRecord, figures: dict[str, bytes], captions: dict[str, str]) -> str:
    """The HTML document for one run (``figures``: name → PNG bytes)."""
    c = result.counts
    tiles = [
        ("N_seen", result.n_seen, "distinct verified items"),
        (
            "N_tot",
            result.n_total,
            f"t = {result.t:g}; {_fmt_interval(result.interval_total)} {result.interval_method}",
        ),
        (
            "U(t)",
            result.n_unseen,
            f"unseen; {_fmt_interval(result.interval)} {clamp_mark(result.n_unseen_raw)}".rstrip(),
        ),
        ("SKR", result.skr, "seen knowledge ratio"),
        ("k", result.k, result.k_source),
        ("responses", c.responses, f"{c.items} items, {c.valid} valid"),
    ]
    parts: list[str] = [h.key_numbers(tiles)]
    mark = run_mark(result)
    if mark:
        parts.append(h.paragraph(f"{mark} (see Notes).", cls="stop"))
    if result.stop is not None:
        parts.append(h.paragraph(result.stop.message, cls="stop"))
    parts.append(h.section("Summary", h.table(["quantity", "value"], _summary_rows(result))))
    figs = {
        name: h.figure_png(png, alt=captions[name], caption=captions[name], name=name)
        for name, png in figures.items()
    }
    main = [f for name, f in figs.items() if not name.startswith("sensitivity_")]
    if main:
        parts.append(h.section("Plots", *main))
    if result.sensitivity is not None:
        studies = [f for name, f in figs.items() if name.startswith("sensitivity_")]
        parts.append(sensitivity_section(result.sensitivity, studies))
    if result.top_items:
        rows = [[i + 1, t.name, t.key, t.count, t.fraction] for i, t in enumerate(result.top_items)]
        parts.append(h.section("Top items", h.table(["#", "name", "key", "count", "fraction"], rows)))
    if result.unverified_top:
        rows = [[t.name, t.count] for t in result.unverified_top]
        parts.append(
            h.section("Unverified (pass the name rule, not in the list)", h.table(["text", "count"], rows))
        )
    if result.k_errors:
        rows = [[k, e] for k, e in result.k_errors.items()]
        parts.append(h.section("Held-out choice of k", h.table(["k", "NMSE"], rows)))
    if result.notes:
        parts.append(h.section("Notes", *[h.paragraph(n) for n in result.notes]))
    prompt = [h.paragraph("Prompt:"), h.code_block(result.prompt)]
    examples = [h.code_block(x) for x in result.examples]
    parts.append(
        h.section("Prompt and example responses", *prompt, h.paragraph("Example responses:"), *examples)
    )
    sub = (
        f"{result.task} · {result.model} ({result.backend}) · criterion {result.criterion} · {result.created}"
    )
    return h.page(
        f"Census: {result.task}", *parts, subtitle=sub, footer="knowsum census · KnowSum (Li et al. 2025)"
    )


def write_report(result: CensusRecord, out_dir: Path) -> Path:
    """Save the plots under ``out_dir/plots`` and write ``out_dir/report.html``; return its path."""
    figures: dict[str, bytes] = {}
    captions: dict[str, str] = {}
    for name, (fig, caption) in plots(result).items():
        figures[name] = p.save(fig, out_dir / "plots" / f"{name}.png")
        captions[name] = caption
    return h.write_page(out_dir / "report.html", render_report(result, figures, captions))


def compare_rows(results: Sequence[CensusRecord]) -> list[list[Any]]:
    """One row per run: N_seen, N̂_tot, SKR, rank by N_seen, rank by N̂_tot, and the change
    (``+2`` = two places higher by N̂_tot than by N_seen; paper Fig. 1). A record with a
    ``source`` (a published reference row) is marked ``model [source]``."""

    seen = ranks([float(r.n_seen) for r in results])
    total = ranks([float(r.n_total) if r.n_total is not None else float(r.n_seen) for r in results])
    rows: list[tuple[int, list[Any]]] = []
    for r, a, b in zip(results, seen, total, strict=True):
        change = "=" if a == b else (f"↑{a - b}" if b < a else f"↓{b - a}")
        source = getattr(r, "source", None)  # a published reference row (census --published)
        model = f"{r.model} [{source}]" if source else r.model
        task = f"{r.task} ({r.criterion})" if source else r.task
        rows.append((b, [model, task, r.n_seen, r.n_total, r.skr, a, b, change]))
    return [row for _, row in sorted(rows, key=lambda x: x[0])]


def compare_table(results: Sequence[CensusRecord], markdown: bool = False) -> str:
    """The comparison as a terminal (or Markdown) table, ordered by rank of N̂_tot."""
    return (markdown_table if markdown else text_table)(COMPARE_HEADERS, compare_rows(results))


def compare_html(results: Sequence[CensusRecord], links: Sequence[str] | None = None) -> str:
    """The comparison as a self-contained HTML page (bar plot of N_seen vs N̂_tot, rank table)."""
    rows = compare_rows(results)
    cells: list[list[Any]] = []
    for row in rows:
        change = row[7]
        cls = "up" if change.startswith("↑") else "down" if change.startswith("↓") else ""
        cells.append([*row[:7], h.Markup(f'<span class="{cls}">{h.escape(change)}</span>')])
    labels = [f"{r.model} · {r.task}" for r in results]
    fig = p.grouped_bars(
        labels,
        {"N_seen": [r.n_seen for r in results], "N_tot (est.)": [r.n_total or 0.0 for r in results]},
        title="Seen vs estimated total", ylabel="items",
    )  # fmt: skip
    parts = [
        h.section(
            "Ranking",
            h.table(COMPARE_HEADERS, cells, numeric=[False, False, True, True, True, True, True, False]),
        ),
        h.section("Seen vs total", h.figure(fig, alt="N_seen and N_tot per model", name="compare")),
    ]
    if links:
        parts.append(h.section("Runs", *[h.paragraph(h.link(u, u)) for u in links]))
    return h.page(
        "Census comparison", *parts, subtitle=f"{len(results)} runs; change = rank by N_tot vs rank by N_seen"
    )


def write_compare(results: Sequence[CensusRecord], path: Path, links: Sequence[str] | None = None) -> Path:
    """Write :func:`compare_html` to ``path``."""
    return h.write_page(path, compare_html(results, links))
