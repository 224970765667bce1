"""A run record as a harness shows it: named numbers (its metrics) and the caveats that go with them.

A harness metric is a number; what qualifies it (a tiny sample, an interval that cannot be a 95 %
interval, a figure beyond its estimator's supported range) is shown beside it as a caveat, read
from the record as every other surface reads it (the record's notes and typed caveats, its
``interval_reason``, the knowledge types not asked, its card rows' caveats), never re-derived here.

Names are stable: every run of one task has the same metric names. A figure the record leaves
undefined is ``NaN`` (not absent), and each caveat is a short code (:func:`caveat_codes`: the typed
caveats' ``kind``, ``note`` for the record's other notes, ``partial`` for a log that answers part
of the task's requests…), shown as the metric ``caveat_<code>`` = 1 or 0, its sentences beside it.

Each instrument says what its figures are (``Instrument.figures``, the rows of its card unless it
says otherwise): a row's key after ``<instrument>/`` is the figure's name, its
interval adds ``<name>_lower`` / ``<name>_upper``, and its caveats (a note under ``note``, a typed
caveat under its kind) are the figures' caveats.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from knowsum.instrument import get_instrument, instruments
from knowsum.records import Record
from knowsum.records.profile import Measure
from knowsum.report import caveat_sentence
from knowsum.stats import CaveatKind

__all__ = [
    "CAVEAT_CODES",
    "Caveats",
    "Figures",
    "caveat_codes",
    "caveat_metrics",
    "figures",
    "metric_values",
]

Caveats = list[tuple[str, str]]
"""The caveats of some figures: ``(code, sentence)`` pairs, each sentence once."""
Figures = tuple[dict[str, float], Caveats]
"""Named figures (``NaN``: undefined) and the caveats that go with them."""

CAVEAT_CODES: tuple[str, ...] = (*(k.value for k in CaveatKind), "note", "partial", "epochs")
"""The caveat codes every instrument shares: the typed caveats' kinds (``tiny-sample``,
``beyond-range``…), ``note`` (another note of the record), ``partial`` (a log answering part of the
task's requests), ``epochs`` (epochs an instrument cannot use). :func:`caveat_codes` adds the
instruments' own."""


def caveat_codes() -> tuple[str, ...]:
    """Every caveat code: :data:`CAVEAT_CODES`, then each installed instrument's own
    (``Instrument.caveat_codes``, in the registry's order), each once."""
    own = (c for inst in instruments().values() for c in inst.caveat_codes)
    return tuple(dict.fromkeys((*CAVEAT_CODES, *own)))


def caveat_metrics(caveats: Iterable[tuple[str, str]]) -> dict[str, float]:
    """``caveat_<code>`` → 1 for every code among ``caveats``, 0 for every other code
    (:func:`caveat_codes`): the same names whatever the run (``tiny-sample`` is
    ``caveat_tiny_sample``)."""
    found = {code for code, _ in caveats}
    return {f"caveat_{c.replace('-', '_')}": float(c in found) for c in caveat_codes()}


def metric_values(found: Figures) -> dict[str, float]:
    """Every metric of a log, by name: the figures (group ``knowsum``) and the caveat codes (group
    ``caveats``, :func:`caveat_metrics`)."""
    return {**found[0], **caveat_metrics(found[1])}


def _put(out: dict[str, float], name: str, value: float | None) -> None:
    out[name] = math.nan if value is None else float(value)


def _code(kind: str) -> str:
    return kind if kind in caveat_codes() else "note"


def _measured(rows: Iterable[Measure], prefix: str) -> Figures:
    """The figures of ``rows`` (an instrument's :meth:`~knowsum.instrument.Instrument.figures`) and
    their own caveats: each row's caveats in order (a note under ``note``, a typed caveat under its
    kind), each once."""
    out: dict[str, float] = {}
    caveats: Caveats = []
    for m in rows:
        key = m.key.removeprefix(prefix)
        _put(out, key, m.value)
        if (m.lower is not None and m.upper is not None) or m.interval_reason is not None:
            _put(out, f"{key}_lower", m.lower)
            _put(out, f"{key}_upper", m.upper)
        own = [(_code(c.kind), caveat_sentence(c)) for c in m.caveats]
        caveats.extend(c for c in own if c not in caveats)
    return out, caveats


def figures(record: Record) -> Figures:
    """The named figures of ``record`` and their caveats (module docstring), the record's typed
    caveats (the trust horizon, Hill numbers out of order…) and its card rows' caveats among them.

    A note of the record that says what a typed caveat says is shown once, under the typed
    caveat's code."""
    instrument = get_instrument(type(record).KIND)
    prefix = f"{instrument.name}/"
    out, caveats = _measured(instrument.figures(record), prefix)
    card = _measured(instrument.measures(record, ""), prefix)[1]
    typed = [(_code(c.kind), caveat_sentence(c)) for c in record.caveats]
    for code, text in typed + card:  # each reason once, whatever mark it is shown under
        body = text.split(": ", 1)[-1]
        same = [i for i, (_, shown) in enumerate(caveats) if body in shown or shown in text]
        if not same:
            caveats.append((code, text))
        elif code != "note":  # the typed caveat's code for a note saying the same
            caveats[same[0]] = (code, caveats[same[0]][1])
    return out, caveats
