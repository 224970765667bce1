"""A run record as a harness shows it: named numbers (its metrics) and the caveats that go with them.

A harness metric is a number; what qualifies it (a tiny sample, an interval that cannot be a 95 %
interval, a figure beyond its estimator's supported range) is shown beside it as a caveat, read
from the record as every other surface reads it (the record's notes and typed caveats, its
``interval_reason``, the knowledge types not asked, its card rows' caveats), never re-derived here.
A figure the record leaves undefined is absent.

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

from collections.abc import Callable

from knowsum.census.record import CensusResult
from knowsum.genebench.record import GenebenchResult
from knowsum.instrument import get_instrument
from knowsum.recall.record import RecallResult
from knowsum.records import Record
from knowsum.report import caveat_sentence

__all__ = ["Figures", "figures"]

Figures = tuple[dict[str, float], list[str]]
"""Named figures and the caveats that go with them."""


def _put(out: dict[str, float], name: str, value: float | None) -> None:
    if value is not None:
        out[name] = float(value)


def _interval(out: dict[str, float], name: str, pair: tuple[float, float] | None) -> None:
    if pair is not None:
        _put(out, f"{name}_lower", pair[0])
        _put(out, f"{name}_upper", pair[1])


def _census(r: CensusResult) -> Figures:
    out: dict[str, float] = {"N_seen": float(r.n_seen)}
    _put(out, "N_tot", r.n_total)
    _interval(out, "N_tot", r.interval_total)
    _put(out, "U_unseen", r.n_unseen)
    _put(out, "SKR", r.skr)
    _interval(out, "SKR", r.interval_skr)
    if r.richness is not None:
        out["coverage"] = r.richness.coverage
        chao = r.richness.chao.name.replace("-", "_")
        out[chao] = r.richness.chao.estimate
        _interval(out, chao, r.richness.chao.interval)
    out["queries"] = float(r.n_queries)
    out["items_valid"] = float(r.counts.valid)
    caveats = list(r.notes)
    if r.n_total is not None and r.interval_total is None:
        why = r.interval_reason or "no bootstrap (n_bootstrap = 0)"
        caveats.append(f"N_tot interval n/a: {why}")
    return out, caveats


def _recall(r: RecallResult) -> Figures:
    s = r.scores
    out: dict[str, float] = {"accuracy": s.accuracy, "n": float(s.n)}
    _put(out, "invented_pct", s.invented_unique_pct)
    _put(out, "wrong_due_to_invented_pct", s.wrong_due_to_invented_pct)
    _put(out, "mean_levenshtein", s.mean_levenshtein)
    caveats = list(r.notes)
    pop = s.popularity
    if pop is None:
        caveats.append(
            "popularity ρ n/a: no popularity buckets (give per_bucket, or a KB with a popularity table)"
        )
    else:
        _put(out, "popularity_rho", pop.bucket_spearman)
        _put(out, "popularity_rho_p", pop.bucket_spearman_p)
        if pop.bucket_spearman is None:
            caveats.append(f"popularity ρ n/a: undefined over {pop.n_buckets} buckets (constant accuracy)")
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
    caveats = [f"{kind} not asked: {why}" for kind, why in s.types_missing.items()]
    return out, caveats


_BY_KIND: dict[type[Record], Callable[[Record], Figures]] = {
    CensusResult: _census,  # type: ignore[dict-item]
    RecallResult: _recall,  # type: ignore[dict-item]
    GenebenchResult: _genebench,  # type: ignore[dict-item]
}


def _measured(record: Record) -> Figures:
    out: dict[str, float] = {}
    caveats: list[str] = []
    instrument = get_instrument(type(record).KIND)
    for m in instrument.measures(record, ""):
        key = m.key.removeprefix(f"{instrument.name}/")
        _put(out, key, m.value)
        if m.lower is not None and m.upper is not None:
            _interval(out, key, (m.lower, m.upper))
        caveats.extend(c for c in m.caveats if c not in caveats)
    return out, caveats


def figures(record: Record) -> Figures:
    """The named figures of ``record`` and their caveats (module docstring), the record's typed
    caveats (the trust horizon, Hill numbers out of order…) and its card rows' caveats among them."""
    measured, card = _measured(record)
    own = _BY_KIND.get(type(record))
    out, caveats = own(record) if own is not None else (measured, [])  # a plug-in: its card rows
    extra = [caveat_sentence(c) for c in record.caveats] + card
    for text in extra:  # each reason once, whatever mark it is shown under
        body = text.split(": ", 1)[-1]
        if not any(body in shown or shown in text for shown in caveats):
            caveats.append(text)
    return out, caveats
