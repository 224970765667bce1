"""knowsum.report — tables, plots and self-contained HTML pages built from result records.

Generic primitives, shared by every instrument:

- :mod:`knowsum.report._html` — ``escape``, ``Markup``, ``page``, ``section``, ``table``,
  ``key_numbers``, ``figure``/``figure_png`` (base64-embedded PNGs), ``write_page`` (atomic).
  Model text passed as plain ``str`` is always escaped.
- :mod:`knowsum.report._plots` — matplotlib figures without pyplot state: ``bars``, ``barh``,
  ``grouped_bars`` (with error bars), ``curves`` (with interval bands and a secondary axis),
  ``scatter_identity``, ``boxes`` (box-plot panels), ``radar``, ``to_png``, ``save``.
- :mod:`knowsum.report._tables` — ``text_table`` (terminal) and ``markdown_table``.
- :mod:`knowsum.report._caveats` — ``marks``, ``marked``, ``caveat_lines``, ``caveat_section``,
  ``caveat_sentence``, ``interval_text``: every surface prints a record's caveats and intervals through these.

This layer reads result records only (:mod:`knowsum.records`); it never imports an instrument or the
CLI. Instrument pages are imported from their own public modules, one per instrument
(:mod:`knowsum.report.census`, :mod:`knowsum.report.recall`, :mod:`knowsum.report.genebench`),
each named the same way: ``write_<instrument>_report(out_dir, result, …)`` for a run's page and
``write_<instrument>_compare(…)`` for a page of several runs.
"""

from knowsum.report._caveats import (
    caveat_lines,
    caveat_section,
    caveat_sentence,
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
from knowsum.report._plots import save, to_png
from knowsum.report._tables import format_value, markdown_table, text_table

__all__ = [
    "Markup",
    "caveat_lines",
    "caveat_section",
    "caveat_sentence",
    "escape",
    "figure",
    "figure_png",
    "format_value",
    "interval_text",
    "key_numbers",
    "markdown_table",
    "marked",
    "marks",
    "page",
    "save",
    "section",
    "table",
    "text_table",
    "to_png",
    "write_page",
]
