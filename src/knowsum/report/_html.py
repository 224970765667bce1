"""Self-contained HTML pages: escaping, tables, key-number lists and embedded figures.

Every report page of knowsum is one file that opens in a browser without a server, a network or
JavaScript: the style sheet is inline and figures are embedded as base64 ``data:`` PNGs.

Safety rule: *text* is always escaped; only :class:`Markup` (built by the helpers here) is
inserted verbatim. Every helper accepts ``str | Markup`` and escapes plain ``str``, so model text
(which may contain ``<script>``) can be passed anywhere and is shown as text, never executed.
The page carries a Content-Security-Policy that forbids scripts as a second line of defence.

Example:
    >>> from knowsum.report import _html as h
    >>> str(h.paragraph("a <b> c"))
    '<p>a &lt;b&gt; c</p>'
"""

from __future__ import annotations

import base64
import html
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from knowsum._util import atomic_write

__all__ = [
    "Markup",
    "code_block",
    "escape",
    "figure",
    "figure_png",
    "join",
    "key_numbers",
    "link",
    "page",
    "paragraph",
    "section",
    "table",
    "write_page",
]

Cell = Any
"""A table cell: ``Markup`` is inserted verbatim, numbers are formatted, anything else is escaped."""


class Markup(str):
    """A string of trusted HTML, built by this module; inserted without escaping."""

    __slots__ = ()


def escape(text: object) -> Markup:
    """Escape ``text`` for HTML (``& < > " '``), unless it is already :class:`Markup`."""
    if isinstance(text, Markup):
        return text
    return Markup(html.escape(str(text), quote=True))


def join(parts: Iterable[str | Markup], sep: str = "\n") -> Markup:
    """Concatenate fragments, escaping each plain-``str`` part."""
    return Markup(sep.join(escape(p) for p in parts))


def format_cell(value: Cell, digits: int = 4) -> Markup:
    """Render one cell: floats with ``digits`` significant digits, ``None``/NaN as an en dash."""
    if isinstance(value, Markup):
        return value
    if value is None:
        return Markup("–")
    if isinstance(value, bool):
        return escape("yes" if value else "no")
    if isinstance(value, float):
        if value != value:  # NaN
            return Markup("–")
        return escape(f"{value:,.{digits}g}" if abs(value) < 1e15 else f"{value:.3e}")
    if isinstance(value, int):
        return escape(f"{value:,}")
    return escape(value)


def paragraph(text: str | Markup, cls: str | None = None) -> Markup:
    """A ``<p>`` with escaped text."""
    attr = f' class="{escape(cls)}"' if cls else ""
    return Markup(f"<p{attr}>{escape(text)}</p>")


def code_block(text: str) -> Markup:
    """A ``<pre>`` block showing ``text`` literally (escaped, whitespace kept)."""
    return Markup(f"<pre>{escape(text)}</pre>")


def link(href: str, text: str | Markup) -> Markup:
    """A relative or absolute link; ``javascript:`` URLs are refused (rendered as text)."""
    if href.strip().lower().startswith(("javascript:", "data:", "vbscript:")):
        return escape(text)
    return Markup(f'<a href="{escape(href)}">{escape(text)}</a>')


def section(title: str, *parts: str | Markup, anchor: str | None = None) -> Markup:
    """A ``<section>`` with an ``<h2>`` title and the given (escaped unless Markup) parts."""
    ident = f' id="{escape(anchor)}"' if anchor else ""
    return Markup(f"<section{ident}><h2>{escape(title)}</h2>\n{join(parts)}\n</section>")


def key_numbers(items: Sequence[tuple[str, Cell]] | Sequence[tuple[str, Cell, str]]) -> Markup:
    """Big-number tiles: ``(label, value)`` or ``(label, value, note)`` triples.

    Each tile carries ``data-key="<label>"`` so tests (and readers' scripts) can find the numbers.
    """
    tiles = []
    for item in items:
        label, value = item[0], item[1]
        note = item[2] if len(item) > 2 else ""
        note_html = f'<div class="note">{escape(note)}</div>' if note else ""
        tiles.append(
            f'<div class="tile" data-key="{escape(label)}"><div class="label">{escape(label)}</div>'
            f'<div class="value">{format_cell(value)}</div>{note_html}</div>'
        )
    return Markup('<div class="tiles">' + "".join(tiles) + "</div>")


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Cell]],
    *,
    caption: str | None = None,
    numeric: Sequence[bool] | None = None,
    digits: int = 4,
    cls: str | None = None,
) -> Markup:
    """An HTML table; every cell goes through :func:`format_cell` (escaped unless Markup).

    Args:
        headers: column titles.
        rows: one sequence of cells per row, same length as ``headers``.
        caption: optional caption (escaped).
        numeric: per column, right-align (default: guessed from the first row's Python types).
        digits: significant digits for floats.
        cls: extra CSS class of the ``<table>``.
    """
    rows = [list(r) for r in rows]
    if numeric is None:
        first = rows[0] if rows else [None] * len(headers)
        numeric = [isinstance(v, int | float) and not isinstance(v, bool) for v in first]
    align = ['class="num"' if n else "" for n in numeric]
    head = "".join(f"<th {a}>{escape(h)}</th>" for h, a in zip(headers, align, strict=False))
    body = []
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"table row has {len(row)} cells, expected {len(headers)}")
        cells = "".join(f"<td {a}>{format_cell(v, digits)}</td>" for v, a in zip(row, align, strict=True))
        body.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    klass = f' class="{escape(cls)}"' if cls else ""
    return Markup(
        f"<table{klass}>{cap}<thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(body) + "\n</tbody></table>"
    )


def figure_png(png: bytes, alt: str, caption: str | None = None, name: str | None = None) -> Markup:
    """Embed PNG bytes as a base64 ``data:`` image inside a ``<figure>``.

    Args:
        png: the PNG file contents (e.g. from :func:`knowsum.report._plots.to_png`).
        alt: alternative text (escaped).
        caption: optional caption (escaped).
        name: optional ``data-plot`` name, so tests can find a given plot.
    """
    if not png.startswith(b"\x89PNG"):
        raise ValueError("figure_png expects PNG bytes")
    data = base64.b64encode(png).decode("ascii")
    tag = f' data-plot="{escape(name)}"' if name else ""
    cap = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return Markup(f'<figure{tag}><img alt="{escape(alt)}" src="data:image/png;base64,{data}">{cap}</figure>')


def figure(fig: Any, alt: str, caption: str | None = None, name: str | None = None) -> Markup:
    """Embed a matplotlib figure (rendered to PNG, then closed) inside a ``<figure>``."""
    from knowsum.report._plots import to_png

    return figure_png(to_png(fig), alt, caption, name)


_CSS = """
:root { --fg:#1d2330; --muted:#5b6476; --line:#d9dee8; --accent:#2f5fb3; --bg:#fbfcfe; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 60px; }
header h1 { margin: 0 0 4px; font-size: 26px; }
header .subtitle { color: var(--muted); margin: 0 0 18px; }
h2 { font-size: 19px; border-bottom: 1px solid var(--line); padding-bottom: 4px; margin-top: 34px; }
.tiles { display: flex; flex-wrap: wrap; gap: 12px; margin: 14px 0; }
.tile { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px;
        min-width: 150px; }
.tile .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.tile .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile .note { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; margin: 12px 0; background: #fff; font-size: 14px; }
caption { text-align: left; color: var(--muted); padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 4px 9px; text-align: left; vertical-align: top; }
th { background: #f0f3f8; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 16px 0; }
figure img { max-width: 100%; border: 1px solid var(--line); background: #fff; }
figcaption { color: var(--muted); font-size: 13px; }
pre { background: #f3f5f9; border: 1px solid var(--line); padding: 8px; white-space: pre-wrap;
      word-break: break-word; font-size: 13px; }
.up { color: #1b7f3b; } .down { color: #b3261e; }
footer { color: var(--muted); font-size: 12px; margin-top: 40px; }
"""


def page(title: str, *parts: str | Markup, subtitle: str | None = None, footer: str | None = None) -> str:
    """A complete, self-contained HTML5 document (inline CSS, no scripts allowed by its CSP).

    Args:
        title: page title and ``<h1>`` (escaped).
        parts: body fragments in order (plain ``str`` is escaped).
        subtitle: optional line under the title (escaped).
        footer: optional footer text (escaped).
    """
    sub = f'<p class="subtitle">{escape(subtitle)}</p>' if subtitle else ""
    foot = f"<footer>{escape(footer)}</footer>" if footer else ""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "img-src data:; style-src 'unsafe-inline'\">\n"
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style></head>\n"
        f"<body><main><header><h1>{escape(title)}</h1>{sub}</header>\n"
        + join(parts)
        + f"\n{foot}</main></body></html>\n"
    )


def write_page(path: str | os.PathLike[str], document: str) -> Path:
    """Write ``document`` to ``path`` atomically (temporary file + rename); return the path."""
    with atomic_write(path) as fh:
        fh.write(document)
    return Path(path)
