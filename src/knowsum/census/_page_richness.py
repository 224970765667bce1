"""Coverage, Chao estimate and Hill numbers on census pages and tables, each named with its method.

The KnowSum estimate stays the headline (it is the paper's); these rows follow it in the summary
table, the ``--json`` object and ``report.html``. Reads census records only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from knowsum.census.record import CensusRecord, RichnessInfo
from knowsum.report import format_value
from knowsum.report import html as h

__all__ = [
    "HILL_NAMES",
    "NOT_RECORDED",
    "richness_data",
    "richness_rows",
    "richness_section",
    "richness_tiles",
]

HILL_NAMES = {0: "richness", 1: "exp(Shannon)", 2: "inverse Simpson"}
NOT_RECORDED = "not in this record (written before coverage, Chao and Hill numbers were added)"


def _interval(iv: Sequence[float | None] | None) -> str:
    if iv is None or iv[0] is None or iv[1] is None:
        return ""
    return f" [{format_value(float(iv[0]))}, {format_value(float(iv[1]))}]"


def _title(name: str) -> str:
    """``chao1-bc`` → ``Chao1-bc``."""
    return name[:1].upper() + name[1:]


def _chao_cell(info: RichnessInfo) -> str:
    c = info.chao
    se = "" if c.std_error is None else f" (s.e. {format_value(c.std_error)})"
    return f"{format_value(c.estimate)}{se}{_interval(c.interval)}"


def _hill_cells(info: RichnessInfo) -> list[tuple[str, str]]:
    hill = info.hill
    out = []
    for i, q in enumerate(hill.q):
        iv = None if hill.lower is None or hill.upper is None else (hill.lower[i], hill.upper[i])
        observed = f" (observed {format_value(hill.observed[i])})"
        value = hill.estimated[i]
        shown = "undefined" if value is None else format_value(value)
        cell = f"{shown}{_interval(iv)}{observed}"
        out.append((f"Hill q={q} ({HILL_NAMES.get(q, q)}), asymptotic", cell))
    return out


def richness_rows(result: CensusRecord) -> list[list[Any]]:
    """Summary-table rows: ``Ĉ``, the Chao estimate and Hill numbers, each with its method."""
    info = result.richness
    if info is None:
        return [] if result.n_seen == 0 else [["coverage, Chao, Hill numbers", NOT_RECORDED]]
    level = f"{info.chao.level:.0%}"
    rows: list[list[Any]] = [
        ["sample coverage C (Chao & Jost 2012)", info.coverage],
        [f"{_title(info.chao.name)} (s.e., {level} log-normal interval)", _chao_cell(info)],
    ]
    rows += [[name, cell] for name, cell in _hill_cells(info)]
    return rows


def richness_tiles(result: CensusRecord) -> list[tuple[str, Any, str]]:
    """The page's key-number tiles after the headline: coverage and the Chao estimate, named."""
    info = result.richness
    if info is None:
        return []
    chao = info.chao
    parts = [] if chao.std_error is None else [f"s.e. {format_value(chao.std_error)}"]
    parts += [_interval(chao.interval).strip()] if chao.interval is not None else []
    return [
        ("coverage", info.coverage, "sample coverage Ĉ, Chao & Jost 2012"),
        (_title(chao.name), chao.estimate, " ".join([*parts, "(a lower bound on the distinct items)"])),
    ]


def richness_data(result: CensusRecord) -> dict[str, Any] | None:
    """The ``richness`` object of the ``--json`` summary (``None`` when not computed)."""
    info = result.richness
    return None if info is None else info.model_dump(mode="json")


def richness_section(result: CensusRecord) -> h.Markup | None:
    """The report section: the three quantities with formula and reference (``None`` when absent)."""
    info = result.richness
    if info is None:
        return (
            None
            if result.n_seen == 0
            else h.section("Coverage, Chao and Hill numbers", h.paragraph(NOT_RECORDED))
        )
    unit = "responses as sampling units (incidence)" if info.data == "incidence" else "mentions (abundance)"
    rows: list[list[Any]] = [
        ["sample coverage C", format_value(info.coverage), info.coverage_method],
        [_title(info.chao.name), _chao_cell(info), info.chao.method],
    ]
    rows += [[name, cell, info.hill.method] for name, cell in _hill_cells(info)]
    intro = (
        f"Beside the KnowSum headline, the estimators ecologists use on the same sample ({info.size:,} "
        f"{unit}). Coverage is the estimated share of the model's output that the items seen make up; "
        "the Chao estimate is a lower bound on the number of distinct items; Hill numbers of order 1 and 2 "
        "weigh items by how often the model names them."
    )
    return h.section(
        "Coverage, Chao and Hill numbers",
        h.paragraph(intro),
        h.table(["quantity", "value", "method"], rows),
    )
