"""Seen vs estimated, ranked: the KnowSum Fig. 1 view of ``knowsum census compare``.

Fig. 1 of the paper shows that ranking models by what they *would* say (``N̂_tot``) reorders them
compared with what they *did* say (``N_seen``). The comparison table ranks runs (and the paper's
Table 1 rows, marked ``MODEL · KnowSum Table 1``) both ways; :func:`ranking_figure` draws both:
left, ``N_seen`` and ``N̂_tot`` per model (with the ``N̂_tot`` interval as whiskers), ordered by
``N_seen``; right, each model's rank by ``N_seen`` joined to its rank by ``N̂_tot``. Reads the
records of :mod:`knowsum.census.record` and the papers' :class:`~knowsum.records.PublishedRow`
values only: a model's ``N_seen``, ``N̂_tot`` and ``SKR`` of one Table 1 column (measures
``TASK/CRITERION/n_seen``, ``…/n_total``, ``…/skr``) are ranked as one row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from knowsum.census.backtest_page import horizon_cell, horizon_value
from knowsum.census.record import CensusRecord
from knowsum.errors import ConfigError
from knowsum.records import PublishedRow
from knowsum.report import html as h
from knowsum.report import markdown_table, marks, text_table
from knowsum.report import plots as p
from knowsum.stats.caveats import caveat_dicts

__all__ = [
    "COMPARE_HEADERS",
    "CensusRow",
    "compare_data",
    "compare_html",
    "compare_table",
    "compare_text",
    "ranking_figure",
    "ranks",
    "row_label",
    "write_census_compare",
]

CensusRow = CensusRecord | PublishedRow
"""What a comparison is given: a run, or one published value (a model's three values of a Table 1
column make one ranked row)."""

_FIGURES = ("n_seen", "n_total", "skr")
"""The measure ending of each value a published row of Table 1 is made of."""


@dataclass(frozen=True, slots=True)
class _Table1Row:
    """One model's published ``N_seen``, ``N̂_tot`` and ``SKR`` of one Table 1 column, as ranked."""

    label: str
    task: str
    criterion: str
    n_seen: int
    n_total: float
    skr: float


_Ranked = CensusRecord | _Table1Row


def _grouped(rows: Sequence[CensusRow]) -> list[_Ranked]:
    """The runs as given, and the published values grouped into one :class:`_Table1Row` per model and
    column, where its first value stood.

    Raises:
        ConfigError: a model's column lacks one of ``N_seen``, ``N̂_tot``, ``SKR``.
    """
    values: dict[tuple[str, str], dict[str, float]] = {}
    order: list[CensusRecord | tuple[str, str]] = []
    for r in rows:
        if isinstance(r, CensusRecord):
            order.append(r)
            continue
        column, _, figure = r.measure.rpartition("/")
        key = (r.label, column)
        if key not in values:
            order.append(key)
        values.setdefault(key, {})[figure] = r.value
    out: list[_Ranked] = []
    for item in order:
        if isinstance(item, CensusRecord):
            out.append(item)
            continue
        (label, column), found = item, values[item]
        lacking = [f"{column}/{f}" for f in _FIGURES if f not in found]
        if lacking:
            raise ConfigError(f"{label}: no published {', '.join(lacking)}: a ranked row needs all three")
        task, _, criterion = column.rpartition("/")
        out.append(_Table1Row(label, task, criterion, int(found["n_seen"]), found["n_total"], found["skr"]))
    return out


COMPARE_HEADERS = [
    "model",
    "task",
    "N_seen",
    "N_tot (est.)",
    "SKR",
    "rank N_seen",
    "rank N_tot",
    "change",
    "caveats",
    "trust horizon",
]


def row_label(row: CensusRow | _Table1Row) -> str:
    """The model a row names: the run's model id, or ``MODEL · KnowSum Table 1``."""
    return row.model if isinstance(row, CensusRecord) else row.label


def _total(row: _Ranked) -> float:
    return float(row.n_total) if row.n_total is not None else float(row.n_seen)


def ranks(values: Sequence[float]) -> list[int]:
    """Rank of each value, 1 = largest; equal values share a rank (competition ranking: 1, 1, 3), so a
    tie never shows as a change of place."""
    return [1 + sum(other > v for other in values) for v in values]


def _ranked(given: Sequence[CensusRow]) -> list[tuple[_Ranked, int, int]]:
    """``(row, rank by N_seen, rank by N̂_tot)`` of the :func:`_grouped` rows, ordered by rank of ``N̂_tot``
    (ties: by rank of ``N_seen``, then as given)."""
    rows = _grouped(given)
    seen = ranks([float(r.n_seen) for r in rows])
    total = ranks([_total(r) for r in rows])
    return sorted(zip(rows, seen, total, strict=True), key=lambda x: (x[2], x[1]))


def _differ_in_t(rows: Sequence[_Ranked]) -> bool:
    return len({r.t for r in rows if isinstance(r, CensusRecord)}) > 1


def _horizon(r: CensusRecord) -> str:
    """The trust-horizon cell: a run written before horizons is not one whose back-test failed."""
    if r.horizon is None:
        return "n/a: not in this record"
    h = r.horizon
    if h.t is not None:
        return horizon_value(h)
    why = {
        "exact": "exact: no split shows a new item",
        "no-interval": "n/a: no interval to back-test",
        "too-small": "n/a: too small to back-test",
        "not-applicable": f"n/a: no back-test for {h.estimator}",
    }
    return why.get(h.status, "none: no t passed")


def compare_table(rows: Sequence[CensusRow]) -> tuple[list[str], list[list[Any]]]:
    """The comparison as ``(headers, rows)``, ordered by rank of N̂_tot: one row per run with N_seen,
    N̂_tot, SKR, rank by N_seen, rank by N̂_tot, and the change (``↑2`` = two places higher by N̂_tot
    than by N_seen; paper Fig. 1). A published row reads ``MODEL · KnowSum Table 1`` and names its
    criterion. When the runs extrapolate to different ``t``, a ``t`` column follows the task (and the
    rows carry their ``differs`` marks: :func:`knowsum.records.check_comparable`)."""
    ranked = _ranked(rows)
    with_t = _differ_in_t([r for r, _, _ in ranked])
    out: list[list[Any]] = []
    for r, a, b in ranked:
        change = "=" if a == b else (f"↑{a - b}" if b < a else f"↓{b - a}")
        task = f"{r.task} ({r.criterion})" if isinstance(r, _Table1Row) else r.task
        shown = "" if isinstance(r, _Table1Row) else marks(r.caveats)
        horizon = "n/a: published" if isinstance(r, _Table1Row) else _horizon(r)
        t = ["published" if isinstance(r, _Table1Row) else f"{r.t:g}"] if with_t else []
        out.append([row_label(r), task, *t, r.n_seen, r.n_total, r.skr, a, b, change, shown, horizon])
    headers = list(COMPARE_HEADERS)
    return ([*headers[:2], "t", *headers[2:]] if with_t else headers), out


def compare_text(rows: Sequence[CensusRow], *, markdown: bool = False) -> str:
    """The comparison table (:func:`compare_table`) as terminal text or Markdown."""
    return (markdown_table if markdown else text_table)(*compare_table(rows))


def compare_data(rows: Sequence[CensusRow]) -> list[dict[str, Any]]:
    """The comparison as JSON-ready objects, ordered by rank of N̂_tot (non-finite numbers ``None``)."""

    def num(x: float | None) -> float | None:
        return x if x is None or math.isfinite(x) else None

    out = []
    for r, a, b in _ranked(rows):
        published = isinstance(r, _Table1Row)
        iv = None if isinstance(r, _Table1Row) or r.interval_reason else r.interval_total
        caveats = [] if isinstance(r, _Table1Row) else caveat_dicts(r.caveats)
        out.append(
            {
                "model": row_label(r),
                "task": r.task,
                "criterion": r.criterion,
                "published": published,
                "t": None if isinstance(r, _Table1Row) else r.t,
                "n_seen": r.n_seen,
                "n_total": num(r.n_total),
                "skr": num(r.skr),
                "interval_total": None if iv is None else [num(iv[0]), num(iv[1])],
                "rank_seen": a,
                "rank_total": b,
                "caveats": caveats,
                "horizon": None if isinstance(r, _Table1Row) else horizon_cell(r.horizon),
            }
        )
    return out


def compare_html(
    rows: Sequence[CensusRow], links: Sequence[str] | None = None, extra: Sequence[h.Markup] = ()
) -> str:
    """The comparison as a self-contained HTML page (bar plot of N_seen vs N̂_tot, rank table, then the
    ``extra`` sections, e.g. the ranking at equal coverage)."""
    cells: list[list[Any]] = []
    headers, table = compare_table(rows)
    at = headers.index("change")
    for row in table:
        change = row[at]
        cls = "up" if change.startswith("↑") else "down" if change.startswith("↓") else ""
        cells.append([*row[:at], h.Markup(f'<span class="{cls}">{h.escape(change)}</span>'), *row[at + 1 :]])
    numeric = [h_ not in ("model", "task", "t", "change", "caveats", "trust horizon") for h_ in headers]
    ranked = _grouped(rows)
    labels = [f"{row_label(r)} · {r.task}" for r in ranked]
    fig = p.grouped_bars(
        labels,
        {"N_seen": [r.n_seen for r in ranked], "N_tot (est.)": [r.n_total or 0.0 for r in ranked]},
        title="Seen vs estimated total",
        ylabel="items",
    )
    parts = [
        h.section(
            "Ranking",
            h.table(headers, cells, numeric=numeric),
        ),
        *extra,
        h.section("Seen vs total", h.figure(fig, alt="N_seen and N_tot per model", name="compare")),
    ]
    if links:
        parts.append(h.section("Runs", *[h.paragraph(h.link(u, u)) for u in links]))
    return h.page(
        "Census comparison", *parts, subtitle=f"{len(ranked)} runs; change = rank by N_tot vs rank by N_seen"
    )


def write_census_compare(
    path: Path, rows: Sequence[CensusRow], links: Sequence[str] | None = None, extra: Sequence[h.Markup] = ()
) -> Path:
    """Write :func:`compare_html` to ``path``; return it."""
    return h.write_page(path, compare_html(rows, links, extra))


def ranking_figure(rows: Sequence[CensusRow], labels: Sequence[str] | None = None) -> Any:
    """A two-panel figure: bars of ``N_seen`` and ``N̂_tot`` per run, and ranks by each (``labels``:
    one per run and published row, in their order; default :func:`row_label`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    results = _grouped(rows)
    names = list(labels) if labels is not None else [row_label(r) for r in results]
    seen = [float(r.n_seen) for r in results]
    total = [_total(r) for r in results]
    order = sorted(range(len(results)), key=lambda i: -seen[i])
    fig = Figure(figsize=(10.5, 4.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax, ax2 = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.6, 1]})
    xs = range(len(order))
    below, above = [], []
    for i in order:
        row = results[i]
        iv = None if isinstance(row, _Table1Row) else row.interval_total  # published rows have none
        if iv is not None and all(v is not None and math.isfinite(v) for v in iv):
            below.append(max(total[i] - iv[0], 0.0))
            above.append(max(iv[1] - total[i], 0.0))
        else:
            below.append(0.0)
            above.append(0.0)
    ax.bar([x - 0.2 for x in xs], [seen[i] for i in order], width=0.4, color=p.PALETTE[0], label="N_seen")
    ax.bar(
        [x + 0.2 for x in xs],
        [total[i] for i in order],
        width=0.4,
        color=p.PALETTE[1],
        yerr=[below, above],
        capsize=4,
        label="N_tot (estimated)",
    )
    ax.set_xticks(list(xs), [names[i] for i in order], rotation=20, ha="right")
    ax.set_ylabel("distinct items")
    ax.set_title("Seen vs estimated total")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    rank_seen, rank_total = ranks(seen), ranks(total)
    for i, name in enumerate(names):
        colour = p.PALETTE[i % len(p.PALETTE)]
        ax2.plot([0, 1], [rank_seen[i], rank_total[i]], marker="o", color=colour, lw=2)
        ax2.annotate(
            name,
            (1, rank_total[i]),
            xytext=(6, 0),
            textcoords="offset points",
            va="center",
            fontsize=8,
            color=colour,
        )
    ax2.set_xticks([0, 1], ["rank by N_seen", "rank by N_tot"])
    ax2.set_xlim(-0.2, 1.9)
    ax2.set_ylim(len(names) + 0.5, 0.5)
    ax2.set_yticks(range(1, len(names) + 1))
    ax2.set_title("Ranking (KnowSum Fig. 1)")
    return fig
