"""Generic report primitives: HTML escaping, tables, embedded figures, text tables."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.report import _html as h
from knowsum.report import _plots as p
from knowsum.report._tables import markdown_table, text_table


@given(st.text())
def test_escape_never_leaves_markup(text: str) -> None:
    out = h.escape(text)
    assert "<" not in out and ">" not in out and '"' not in out
    assert h.escape(out) == out  # Markup is not escaped twice


def test_table_escapes_cells_and_formats_numbers() -> None:
    html = h.table(
        ["name", "n", "p"], [["<script>alert(1)</script>", 12345, 0.123456], ["ok", None, float("nan")]]
    )
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "12,345" in html and "0.1235" in html
    assert html.count("<tr>") == 3
    with pytest.raises(ValueError, match="2 cells"):
        h.table(["a", "b", "c"], [[1, 2]])


def test_page_is_self_contained_and_scriptless(tmp_path: Path) -> None:
    fig = p.bars([1, 2, 3], [10, 4, 1], title="t", log_y=True)
    body = h.section("Plots", h.figure(fig, alt="hist", name="hist"), h.paragraph("<b>x</b>"))
    doc = h.page("Title <i>", body, h.key_numbers([("N seen", 42), ("SKR", 0.5, "share")]))
    assert "<script" not in doc
    assert "Content-Security-Policy" in doc
    assert "&lt;b&gt;x&lt;/b&gt;" in doc and "Title &lt;i&gt;" in doc
    m = re.search(r'data-plot="hist"><img alt="hist" src="data:image/png;base64,([^"]+)"', doc)
    assert m is not None
    assert base64.b64decode(m.group(1)).startswith(b"\x89PNG")
    assert 'data-key="N seen"' in doc
    out = h.write_page(tmp_path / "sub" / "r.html", doc)
    assert out.read_text(encoding="utf-8") == doc
    assert [f.name for f in out.parent.iterdir()] == ["r.html"]


def test_link_refuses_javascript_urls() -> None:
    assert "<a" not in h.link("javascript:alert(1)", "x")
    assert h.link("run/report.html", "r") == '<a href="run/report.html">r</a>'


def test_plot_primitives_render(tmp_path: Path) -> None:
    figs = [
        p.curves(
            [1, 2, 3],
            {"U": [1, 2, 3]},
            bands={"U": ([0, 1, 2], [2, 3, 4])},
            ax_right={"SKR": [1, 0.8, 0.6]},
            vlines={"t=1": 1},
            ylabel_right="SKR",
        ),
        p.barh(["$x^2$ disease", "b" * 80], [3, 1], title="top"),
        p.scatter_identity([1, 2], [1.1, 1.9], groups=["1/2", "1/3"]),
        p.grouped_bars(["a", "b"], {"m1": [1, 2], "m2": [2, 1]}),
    ]
    for i, fig in enumerate(figs):
        png = p.save(fig, tmp_path / f"f{i}.png")
        assert png.startswith(b"\x89PNG") and (tmp_path / f"f{i}.png").stat().st_size == len(png)


def test_markdown_and_text_tables() -> None:
    md = markdown_table(["model", "N"], [["a|b", 3], ["c", 1234]])
    assert md.splitlines() == ["| model | N |", "|---|---:|", "| a\\|b | 3 |", "| c | 1,234 |"]
    txt = text_table(["model", "N"], [["a", 3], ["long name", 1234]])
    assert txt.splitlines()[0] == "model          N"
    assert txt.splitlines()[3] == "long name  1,234"
