"""The census in an evaluation harness's log: its figures, and the items of one reply.

Figures (inspect's metric group ``knowsum``; the same names for every census, ``NaN`` when
undefined): ``N_seen``, ``N_tot`` (``N̂_tot(t) = N_seen + Û(t)``, KnowSum §3) with ``N_tot_lower`` /
``N_tot_upper``, ``U_unseen``, ``SKR`` with its interval, the sample ``coverage`` (Chao & Jost 2012)
and the Chao estimate of the counting (``chao1_bc`` on mentions, ``chao2_bc`` on incidences; Chao
1987) with its interval, ``queries`` and ``items_valid``. Their caveats: the record's notes, and why
``N̂_tot`` has no interval when it has none.

A reply's items are decoded and verified against the task's knowledge base as the run does
(KnowSum Algorithm 1: decoder, then verifier), so a harness's scorer shows each reply's items.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from knowsum.census._config import CensusConfig
from knowsum.census._decode import decode
from knowsum.census._run import prepare_census
from knowsum.census.record import CensusRecord
from knowsum.records import Caveat
from knowsum.records.profile import Measure
from knowsum.stats import CaveatKind

if TYPE_CHECKING:
    from knowsum.instrument import Instrument, ReplyItems

__all__ = ["census_figures", "census_items"]

_NO_BOOTSTRAP = "no bootstrap (n_bootstrap = 0)"


def census_figures(inst: Instrument[Any, Any], r: CensusRecord) -> list[Measure]:
    """The figures of census ``r`` (module docstring), as rows of ``inst`` (the census instrument)."""
    rich = r.richness
    chao = "chao2_bc" if r.counting == "incidence" else "chao1_bc"  # the Chao estimate of the counting
    marks: dict[str, list[Caveat]] = {}
    if r.n_total is not None and r.interval_total is None:
        why = r.interval_reason or _NO_BOOTSTRAP
        marks["N_tot"] = [Caveat(kind=CaveatKind.INTERVAL_NA.value, mark="N_tot interval n/a", message=why)]
    no_interval = r.interval_reason or _NO_BOOTSTRAP
    rows: list[tuple[str, float | None, str, tuple[float, float] | None, str | None]] = [
        ("N_seen", r.n_seen, "distinct verified items", None, None),
        ("N_tot", r.n_total, "N_seen + Û(t), smoothed Good–Turing", r.interval_total, no_interval),
        ("U_unseen", r.n_unseen, "Û(t): items not seen yet that t× the queries would show", None, None),
        ("SKR", r.skr, "N_seen / N̂_tot", r.interval_skr, no_interval),
        ("coverage", None if rich is None else rich.coverage, "sample coverage Ĉ", None, None),
        (
            chao,
            None if rich is None else rich.chao.estimate,
            "bias-corrected Chao estimate of the counting",
            None if rich is None else rich.chao.interval,
            "no interval" if rich is None or rich.chao.interval is None else None,
        ),
        ("queries", r.n_queries, "queries answered", None, None),
        ("items_valid", r.counts.valid, "valid items counted", None, None),
    ]
    notes = {"N_seen": r.notes}
    return [
        inst.figure(
            name,
            v,
            how,
            interval=i,
            interval_reason=why,
            caveats=notes.get(name, ()),
            marks=marks.get(name, ()),
        )
        for name, v, how, i, why in rows
    ]


def census_items(config: CensusConfig) -> ReplyItems:
    """Decode a reply into items and verify each against the task's knowledge base (loaded here).

    Raises:
        KBNotInstalledError: the task's knowledge base (the message gives the install command).
    """
    plan = prepare_census(config)

    def items(text: str, index: int) -> list[dict[str, Any]]:
        decoded = decode(text, index, plan.task.decoder, plan.task.separator)
        verdicts = plan.verifier.verify([d.text for d in decoded], [d.claimed_id for d in decoded])
        return [
            {"text": d.text, "status": v.status, "key": v.key, "name": v.name}
            for d, v in zip(decoded, verdicts, strict=True)
        ]

    return items
