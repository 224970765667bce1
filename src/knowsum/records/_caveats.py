"""Caveats in records: a record keeps the statistics layer's :class:`~knowsum.caveats.Caveat` as it is.

There is one caveat type (:mod:`knowsum.caveats`): the estimators return it, an instrument puts it in
its record (``Record.caveats``, ``Measure.caveats``) and every page, table, card and ``--json`` prints
it from there, never re-deriving one. ``CaveatNote`` was the record's own copy of the same four
fields; the name still works (with a ``DeprecationWarning``, see :mod:`knowsum.records`) and is the
same class.
"""

from __future__ import annotations

from knowsum.caveats import Caveat, unique_caveats

__all__ = ["Caveat", "caveat_notes"]

caveat_notes = unique_caveats
"""Every caveat of some groups, each ``(kind, message)`` once (:func:`knowsum.caveats.unique_caveats`)."""
