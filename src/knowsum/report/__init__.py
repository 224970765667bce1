"""knowsum.report — tables, plots and self-contained HTML pages built from result records.

Generic primitives, shared by every instrument:

- ``html`` (:mod:`knowsum.report._html`) — ``escape``, ``Markup``, ``page``, ``section``, ``table``,
  ``key_numbers``, ``figure``/``figure_png`` (base64-embedded PNGs), ``write_page`` (atomic).
  Model text passed as plain ``str`` is always escaped.
- ``plots`` (:mod:`knowsum.report._plots`) — matplotlib figures without pyplot state: ``bars``, ``barh``,
  ``grouped_bars`` (with error bars), ``curves`` (with interval bands and a secondary axis),
  ``scatter_identity``, ``boxes`` (box-plot panels), ``radar``, ``to_png``, ``save``.
- :mod:`knowsum.report._tables` — ``text_table`` (terminal) and ``markdown_table``.
- :mod:`knowsum.report._caveats` — ``marks``, ``marked``, ``caveat_lines``, ``caveat_section``,
  ``caveat_sentence``, ``interval_text``, ``interval_ends``: every surface prints a record's caveats
  and intervals through these.

This layer reads result records only (:mod:`knowsum.records`); it never imports an instrument or the
CLI. Each instrument builds its own page from these, in its own folder (``<instrument>/page.py``),
each named the same way: ``write_<instrument>_report(out_dir, result, …)`` for a run's page and
``write_<instrument>_compare(…)`` for a page of several runs.
"""

from knowsum.report import _html as html
from knowsum.report import _plots as plots
from knowsum.report._caveats import (
    NOT_RESAMPLED,
    caveat_lines,
    caveat_section,
    caveat_sentence,
    interval_ends,
    interval_text,
    marked,
    marks,
)
from knowsum.report._html import (
    Markup,
    escape,
    figure,
    figure_png,
    key_numbers,
    page,
    section,
    table,
    write_page,
)
from knowsum.report._plots import PALETTE, new_figure, save, to_png
from knowsum.report._tables import format_value, markdown_table, text_table

__all__ = [
    "NOT_RESAMPLED",
    "PALETTE",
    "Markup",
    "caveat_lines",
    "caveat_section",
    "caveat_sentence",
    "escape",
    "figure",
    "figure_png",
    "format_value",
    "html",
    "interval_ends",
    "interval_text",
    "key_numbers",
    "markdown_table",
    "marked",
    "marks",
    "new_figure",
    "page",
    "plots",
    "save",
    "section",
    "table",
    "text_table",
    "to_png",
    "write_page",
]
