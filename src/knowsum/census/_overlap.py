"""What two models both know: the items shared by two census runs (``knowsum census overlap``).

Two runs of the same task, judged against the same knowledge base release with the same criterion
and the same counting, name items by the same key (the KB identifier). From each run's counted
items (``items.jsonl``) the shared richness is estimated as ecologists estimate the species two
assemblages share, counting those neither model has named yet:

- mention counting (abundance data): observed ``D12``, Chao1-shared and Chao1-shared-bc (Pan, Huang &
  Chao 2009; SpadeR ``ChaoShared``; :func:`knowsum.stats.chao1_shared`);
- incidence counting (each response a sampling unit, ``T`` = the run's responses): observed
  ``D12``, Chao2-shared and Chao2-shared-bc (Chao et al. 2000; :func:`knowsum.stats.chao2_shared`).

Each estimate comes with its delta-method s.e. and a log-normal interval around ``D12``. When a
doubleton count (``f2+``, ``f+2`` or ``f22``; ``Q2+``…) is 0 the classic form is undefined and the
bias-corrected form is computed in its place (SpadeR's rule): its method then says so, naming the
zero counts.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from knowsum._util import read_text_file
from knowsum.census.record import ESTIMATION_SETTINGS, CensusRecord, Overlap, SharedValue, load_result
from knowsum.errors import ConfigError, InputFileError
from knowsum.records import caveat_notes, check_comparable, comparable_records, difference_note
from knowsum.stats import (
    SharedEstimate,
    chao1_shared,
    chao1_shared_bc,
    chao2_shared,
    chao2_shared_bc,
    observed_shared,
)
from knowsum.stats.caveats import shared_above_own

__all__ = ["BIAS_CORRECTED_INSTEAD", "SHARED_METHODS", "overlap_runs", "run_counts"]

SHARED_METHODS = {
    "observed": "D12: items counted in both runs",
    "chao1-shared": "D12 + K1 f1+²/(2f2+) + K2 f+1²/(2f+2) + K1K2 f11²/(4f22), K=(n−1)/n; Pan et al. 2009",
    "chao1-shared-bc": "bias-corrected Chao1-shared, f(f−1)/(2(f2+1)) terms; SpadeR ChaoShared",
    "chao2-shared": "D12 + K1 Q1+²/(2Q2+) + K2 Q+1²/(2Q+2) + K1K2 Q11²/(4Q22), K=(T−1)/T; Chao et al. 2000",
    "chao2-shared-bc": "bias-corrected Chao2-shared, Q(Q−1)/(2(Q2+1)) terms; SpadeR ChaoShared",
}
"""The formula of each estimate (of a classic one when no doubleton count is 0, else
:data:`BIAS_CORRECTED_INSTEAD`)."""

BIAS_CORRECTED_INSTEAD = {
    "chao1-shared": "bias-corrected form, f(f−1)/(2(f2+1)) terms, because {why} (SpadeR's rule); "
    "Pan et al. 2009",
    "chao2-shared": "bias-corrected form, Q(Q−1)/(2(Q2+1)) terms, because {why} (SpadeR's rule); "
    "Chao et al. 2000",
}
"""The method of a classic estimate computed in its bias-corrected form (``why``: the zero counts)."""


def _run_dir(path: Path) -> Path:
    return path if path.is_dir() or path.suffix != ".json" else path.parent


def run_counts(path: Path, result: CensusRecord) -> Counter[str]:
    """Counted observations per cluster key from a run's ``items.jsonl`` (mentions, or the responses
    naming the item under incidence counting); checked against ``result.json``'s ``N_seen`` and ``n``.

    Raises:
        InputFileError: no ``items.jsonl``, a malformed line, or items that disagree with the record.
    """
    file = _run_dir(path) / "items.jsonl"
    if not file.is_file():
        raise InputFileError(
            file, "missing: overlap needs the run's items.jsonl (written by census run/score)"
        )
    counts: Counter[str] = Counter()
    for no, line in enumerate(read_text_file(file, "census items").splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            if item["counted"]:
                counts[str(item["key"])] += 1
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputFileError(
                file, "not a census item line (JSON with key and counted)", no, line
            ) from None
    if len(counts) != result.n_seen or sum(counts.values()) != result.n_observations:
        raise InputFileError(
            file,
            f"{len(counts)} counted items in {sum(counts.values())} observations, but result.json says "
            f"N_seen {result.n_seen} in {result.n_observations}: the folder mixes two runs; rerun the census",
        )
    return counts


def _check_same(a: CensusRecord, b: CensusRecord, runs: tuple[Path, Path]) -> None:
    same_folder = _run_dir(runs[0]).resolve() == _run_dir(runs[1]).resolve()
    if same_folder:
        raise ConfigError(
            f"{runs[0]} and {runs[1]} are the same run twice: a run shares every item with itself; "
            "give two different runs"
        )
    # one task, prompt, KB release, criterion, counting; t, k, estimator… only mark (overlap_runs)
    comparable_records([a, b], runs, option="", ignore=ESTIMATION_SETTINGS)
    if a.task_kind == "diversity":
        raise ConfigError(
            f"{runs[0]}: diversity runs cluster their own answers (keys C0, C1… differ between runs): "
            "overlap needs runs verified against a knowledge base"
        )


def _own(result: CensusRecord) -> float | None:
    """The run's own estimated richness: the Chao estimate of its counting mode, else ``N̂_tot``."""
    return result.richness.chao.estimate if result.richness is not None else result.n_total


def _value(est: SharedEstimate) -> SharedValue:
    """One row; its method is the formula computed (the bias-corrected one when the stats result says
    the classic form was undefined)."""
    why = est.bias_corrected_because
    return SharedValue(
        name=est.estimator,
        method=SHARED_METHODS[est.estimator]
        if why is None
        else BIAS_CORRECTED_INSTEAD[est.estimator].format(why=why),
        estimate=est.estimate,
        std_error=est.std_error,
        interval=est.interval,
    )


def overlap_runs(run_a: Path, run_b: Path, *, level: float = 0.95) -> Overlap:
    """The items two census runs share, observed and estimated (module docstring).

    Raises:
        InputFileError: a run without ``result.json`` or ``items.jsonl``.
        ConfigError: the runs are not of the same task, KB release, criterion and counting, or a
            run verified nothing.
    """
    a, b = load_result(run_a), load_result(run_b)
    _check_same(a, b, (run_a, run_b))
    for path, r in ((run_a, a), (run_b, b)):
        if r.n_seen == 0:
            raise ConfigError(f"{path}: the run verified no item (N_seen = 0): there is nothing to share")
    ca, cb = run_counts(run_a, a), run_counts(run_b, b)
    keys = list(dict.fromkeys([*ca, *cb]))
    x1, x2 = [ca.get(k, 0) for k in keys], [cb.get(k, 0) for k in keys]
    incidence = a.counting == "incidence"
    if incidence:
        ests = [
            chao2_shared(x1, x2, a.n_queries, b.n_queries, conf=level),
            chao2_shared_bc(x1, x2, a.n_queries, b.n_queries, conf=level),
        ]
    else:
        ests = [chao1_shared(x1, x2, conf=level), chao1_shared_bc(x1, x2, conf=level)]
    observed = observed_shared(x1, x2)
    own = {f"{run_a} ({a.model})": _own(a), f"{run_b} ({b.model})": _own(b)}
    runs = [str(run_a), str(run_b)]
    above = [shared_above_own(e.estimate, own, e.estimator) for e in ests]
    return Overlap(
        runs=(str(run_a), str(run_b)),
        models=(a.model, b.model),
        task=a.task,
        criterion=a.criterion,
        data="incidence" if incidence else "abundance",
        sizes=(a.n_queries, b.n_queries) if incidence else (a.n_observations, b.n_observations),
        n_seen=(a.n_seen, b.n_seen),
        observed_shared=observed.observed_shared,
        estimates=[_value(observed), *(_value(e) for e in ests)],
        level=level,
        caveats=[
            *caveat_notes([c for c in above if c is not None]),
            *(difference_note(m) for m in check_comparable([a, b], runs, allow_mixed=True) if m),
        ],
    )
