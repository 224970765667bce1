"""A run record as a harness shows it: named numbers (its metrics) and the caveats that go with them.

A harness metric is a number; what qualifies it (a tiny sample, an interval that cannot be a 95 %
interval, a figure beyond its estimator's supported range) is shown beside it as a caveat, read
from the record as every other surface reads it (the record's notes and typed caveats, its
``interval_reason``, the knowledge types not asked, its card rows' caveats), never re-derived here.

Names are stable: every run of one task has the same metric names. A figure the record leaves
undefined is ``NaN`` (not absent), and each caveat is a short code (:data:`CAVEAT_CODES`: the typed
caveats' ``kind``, ``note`` for the record's other notes, ``partial`` for a log that answers part
of the task's requests…), shown as the metric ``caveat_<code>`` = 1 or 0, its sentences beside it.

- census (KnowSum): ``N_seen``, ``N_tot`` (``N̂_tot(t) = N_seen + Û(t)``) with ``N_tot_lower`` /
  ``N_tot_upper``, ``U_unseen``, ``SKR`` with its interval, the sample ``coverage`` (Chao & Jost
  2012) and the Chao estimate (``chao1_bc`` or ``chao2_bc``) with its interval;
- recall (Bombieri et al. §4-5): ``accuracy``, ``invented_pct`` (invented among the distinct predicted
  IDs, Table 3a), ``wrong_due_to_invented_pct`` (Table 3b), ``popularity_rho`` (Spearman ρ of bucket
  rank vs accuracy) and its permutation p-value, and per invariance method ``<method>_mean_pi``;
- genebench (SciHorizon-GENE): ``overall``, the score per knowledge type (Table 2), and the mean over
  every cyclic rotation of the options per question type and perspective (Tables 5-6 cells,
  ``Q1/loc`` …), with ``format_error_rate``;
- any other instrument (a plug-in): its card rows (``Instrument.measures``), each value with its
  interval as ``<key>_lower`` / ``<key>_upper``, and the rows' caveats.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from knowsum.census.record import CensusResult
from knowsum.genebench.record import GenebenchResult
from knowsum.instrument import get_instrument
from knowsum.recall.record import RecallResult
from knowsum.records import Record
from knowsum.report import caveat_sentence
from knowsum.stats import CaveatKind

__all__ = ["CAVEAT_CODES", "Caveats", "Figures", "caveat_metrics", "figures", "metric_values"]

Caveats = list[tuple[str, str]]
"""The caveats of some figures: ``(code, sentence)`` pairs, each sentence once."""
Figures = tuple[dict[str, float], Caveats]
"""Named figures (``NaN``: undefined) and the caveats that go with them."""

CAVEAT_CODES: tuple[str, ...] = (
    *(k.value for k in CaveatKind),
    "note",
    "partial",
    "epochs",
    "popularity-na",
    "type-not-asked",
)
"""Every caveat code: the typed caveats' kinds (``tiny-sample``, ``beyond-range``…), ``note`` (another
note of the record), ``partial`` (a log answering part of the task's requests), ``epochs`` (epochs an
instrument cannot use), ``popularity-na`` (recall without popularity ρ), ``type-not-asked``
(genebench)."""


def caveat_metrics(caveats: Iterable[tuple[str, str]]) -> dict[str, float]:
    """``caveat_<code>`` → 1 for every code among ``caveats``, 0 for every other code: the same
    names whatever the run (``tiny-sample`` is ``caveat_tiny_sample``)."""
    found = {code for code, _ in caveats}
    return {f"caveat_{c.replace('-', '_')}": float(c in found) for c in CAVEAT_CODES}


def metric_values(found: Figures) -> dict[str, float]:
    """Every metric of a log, by name: the figures (group ``knowsum``) and the caveat codes (group
    ``caveats``, :func:`caveat_metrics`)."""
    return {**found[0], **caveat_metrics(found[1])}


def _put(out: dict[str, float], name: str, value: float | None) -> None:
    out[name] = math.nan if value is None else float(value)


def _interval(out: dict[str, float], name: str, pair: tuple[float, float] | None) -> None:
    _put(out, f"{name}_lower", None if pair is None else pair[0])
    _put(out, f"{name}_upper", None if pair is None else pair[1])


def _census(r: CensusResult) -> Figures:
    out: dict[str, float] = {"N_seen": float(r.n_seen)}
    _put(out, "N_tot", r.n_total)
    _interval(out, "N_tot", r.interval_total)
    _put(out, "U_unseen", r.n_unseen)
    _put(out, "SKR", r.skr)
    _interval(out, "SKR", r.interval_skr)
    rich = r.richness
    _put(out, "coverage", None if rich is None else rich.coverage)
    chao = "chao2_bc" if r.counting == "incidence" else "chao1_bc"  # the Chao estimate of the counting
    _put(out, chao, None if rich is None else rich.chao.estimate)
    _interval(out, chao, None if rich is None else rich.chao.interval)
    out["queries"] = float(r.n_queries)
    out["items_valid"] = float(r.counts.valid)
    caveats = [("note", n) for n in r.notes]
    if r.n_total is not None and r.interval_total is None:
        why = r.interval_reason or "no bootstrap (n_bootstrap = 0)"
        caveats.append((CaveatKind.INTERVAL_NA.value, f"N_tot interval n/a: {why}"))
    return out, caveats


def _recall(r: RecallResult) -> Figures:
    s = r.scores
    out: dict[str, float] = {"accuracy": s.accuracy, "n": float(s.n)}
    _put(out, "invented_pct", s.invented_unique_pct)
    _put(out, "wrong_due_to_invented_pct", s.wrong_due_to_invented_pct)
    _put(out, "mean_levenshtein", s.mean_levenshtein)
    caveats = [("note", n) for n in r.notes]
    pop = s.popularity
    _put(out, "popularity_rho", None if pop is None else pop.bucket_spearman)
    _put(out, "popularity_rho_p", None if pop is None else pop.bucket_spearman_p)
    if pop is None:
        why = "no popularity buckets (give per_bucket, or a KB with a popularity table)"
        caveats.append(("popularity-na", f"popularity ρ n/a: {why}"))
    elif pop.bucket_spearman is None:
        why = f"undefined over {pop.n_buckets} buckets (constant accuracy)"
        caveats.append(("popularity-na", f"popularity ρ n/a: {why}"))
    for inv in r.invariance:
        out[f"{inv.method}_mean_pi"] = inv.mean_pi
    return out, caveats


def _genebench(r: GenebenchResult) -> Figures:
    s = r.scores
    out: dict[str, float] = {}
    _put(out, "overall", s.overall)
    for kind, value in s.knowledge.items():
        _put(out, kind, value)
    for cell in s.cells:
        _put(out, cell.key, cell.mean)
    out["format_error_rate"] = s.format_error_rate
    caveats = [("type-not-asked", f"{kind} not asked: {why}") for kind, why in s.types_missing.items()]
    return out, caveats


_BY_KIND: dict[type[Record], Callable[[Record], Figures]] = {
    CensusResult: _census,  # type: ignore[dict-item]
    RecallResult: _recall,  # type: ignore[dict-item]
    GenebenchResult: _genebench,  # type: ignore[dict-item]
}


def _measured(record: Record) -> Figures:
    out: dict[str, float] = {}
    caveats: Caveats = []
    instrument = get_instrument(type(record).KIND)
    for m in instrument.measures(record, ""):
        key = m.key.removeprefix(f"{instrument.name}/")
        _put(out, key, m.value)
        if m.lower is not None and m.upper is not None:
            _interval(out, key, (m.lower, m.upper))
        caveats.extend(("note", c) for c in m.caveats if ("note", c) not in caveats)
    return out, caveats


def figures(record: Record) -> Figures:
    """The named figures of ``record`` and their caveats (module docstring), the record's typed
    caveats (the trust horizon, Hill numbers out of order…) and its card rows' caveats among them.

    A note of the record that says what a typed caveat says is shown once, under the typed
    caveat's code."""
    measured, card = _measured(record)
    own = _BY_KIND.get(type(record))
    out, caveats = own(record) if own is not None else (measured, [])  # a plug-in: its card rows
    typed = [(c.kind if c.kind in CAVEAT_CODES else "note", caveat_sentence(c)) for c in record.caveats]
    for code, text in typed + card:  # each reason once, whatever mark it is shown under
        body = text.split(": ", 1)[-1]
        same = [i for i, (_, shown) in enumerate(caveats) if body in shown or shown in text]
        if not same:
            caveats.append((code, text))
        elif code != "note":  # the typed caveat's code for a note saying the same
            caveats[same[0]] = (code, caveats[same[0]][1])
    return out, caveats
