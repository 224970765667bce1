"""Sensitivity of one run's estimate to ``t`` and ``k``, without new sampling (KnowSum §5.2).

- **Extrapolation factor** (paper Fig. 8 left, Fig. 12 left): ``N̂_tot(t) = N_seen + Û(t)`` and
  ``SKR(t)`` over a grid of ``t`` (default 1 … 200), with the run's estimator and ``k``, and a
  bootstrap band of the run's interval method from the resampler, seed and number of resamples of
  the run's headline interval — so the band at the run's ``t`` is that interval.
- **Truncation level** (paper Fig. 9 left, Fig. 13 left): ``N̂_tot`` at the run's ``t`` for
  ``k = 2 … 12`` with the smoothed Good–Turing estimator (eq. 1), next to each ``k``'s held-out
  normalized MSE (§5.1: shuffle the queries, observe ``r_obs ∈ {1/2, 1/3, 1/4}``, predict the items
  only the rest holds; ``NMSE = mean (Û − U)² / max(mean U, 1)²``).

The sample is rebuilt from the run's ``items.jsonl`` (the counted items and their queries) and
checked against the histogram in ``result.json``; :func:`add_sensitivity` stores the study in
``result.json → sensitivity`` and rewrites the plots and ``report.html``.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Sequence
from pathlib import Path

from knowsum.census._analyse import prevalence_of
from knowsum.census._estimate import curve
from knowsum.census._run import CensusRun, rewrite_result
from knowsum.census.record import CensusRecord, KPoint, Sensitivity, load_result
from knowsum.errors import InputFileError
from knowsum.stats import Prevalence, StatsWarning, estimate_unseen, select_k

__all__ = ["K_GRID", "T_GRID", "add_sensitivity", "run_prevalence", "sensitivity"]

T_GRID: tuple[float, ...] = (1, 2, 5, 10, 20, 40, 60, 80, 100, 150, 200)
"""Default ``t`` grid (the paper's Fig. 8 reads ``t`` up to about 100 and finds saturation near 80)."""

K_GRID: tuple[int, ...] = tuple(range(2, 13))
"""``k = 2 … 12`` (paper Fig. 9 left)."""


def run_prevalence(run_dir: Path) -> tuple[CensusRecord, Prevalence]:
    """The run's result and its sample, rebuilt from ``items.jsonl`` (grouped by query).

    Raises:
        InputFileError: no result or items file, a malformed line, or items that do not give the
            histogram recorded in ``result.json``.
    """
    result = load_result(run_dir)
    path = run_dir / "items.jsonl"
    keys: list[str] = []
    queries: list[int] = []
    try:
        with path.open(encoding="utf-8") as fh:
            for no, line in enumerate(fh, 1):
                try:
                    item = json.loads(line)
                    if item["counted"]:
                        keys.append(str(item["key"]))
                        queries.append(int(item["query"]))
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
                    raise InputFileError(
                        path, f"not an items.jsonl line ({exc})", no, line.rstrip()
                    ) from None
    except FileNotFoundError:
        raise InputFileError(path, "missing: the run directory has no items.jsonl") from None
    if not keys:
        raise InputFileError(path, "no counted item: nothing to study (N_seen = 0)")
    # a query's row is its number, as the census numbered its responses (empty ones too), so a
    # back-test of the run splits the very queries the census's own horizon split
    ids = sorted(set(queries))
    fits = ids[0] >= 0 and ids[-1] < result.n_queries
    rows = {q: q for q in ids} if fits else {q: i for i, q in enumerate(ids)}
    n_queries = result.n_queries if fits else max(result.n_queries, len(rows))
    prev = prevalence_of(keys, [rows[q] for q in queries], n_queries)
    if sorted(prev.table().items()) != [tuple(p) for p in result.prevalence]:
        raise InputFileError(path, "does not match the histogram in result.json (edited or mixed runs?)")
    return result, prev


def sensitivity(
    prev: Prevalence,
    result: CensusRecord,
    t_grid: Sequence[float] = T_GRID,
    k_grid: Sequence[int] = K_GRID,
    n_resamples: int | None = None,
    n_shuffles: int = 100,
) -> Sensitivity:
    """The ``t`` and ``k`` studies of one run (see the module docstring).

    Args:
        prev: The run's sample (:func:`run_prevalence`).
        result: The run's result (estimator, ``t``, ``k``, level, interval method, seed).
        t_grid: Extrapolation factors of the ``t`` study.
        k_grid: Truncation levels of the ``k`` study.
        n_resamples: Bootstrap resamples of the ``t`` band (0: no band; default: the run's
            ``n_bootstrap``, which makes the band at the run's ``t`` its headline interval).
        n_shuffles: Random query splits per observed fraction for the held-out NMSE.
    """
    seed = int(result.config.get("seed", 0))
    if n_resamples is None:
        n_resamples = int(result.config.get("n_bootstrap", 1000))
    grid = sorted({float(t) for t in t_grid})
    ks = sorted(set(k_grid))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        t_points = curve(
            prev,
            result.estimator,
            result.t,
            result.k,
            n_resamples,
            result.level,
            seed,
            method=result.interval_method,
            grid=grid,
        )
        selection = select_k(prev, candidates=ks, n_shuffles=n_shuffles, seed=seed)
        k_points = []
        for k, nmse in zip(selection.candidates, selection.nmse, strict=True):
            est = estimate_unseen(prev, "et", result.t, k)
            k_points.append(
                KPoint(
                    k=k,
                    n_unseen=est.estimate,
                    n_unseen_raw=est.raw,
                    n_total=est.n_total,
                    skr=est.skr if math.isfinite(est.skr) else None,
                    nmse=nmse,
                )
            )
    return Sensitivity(
        **result.carried(Sensitivity.FROM_CENSUS),
        n_resamples=n_resamples,
        t_points=t_points,
        k_points=k_points,
        k_best=selection.k,
        split=selection.method,
        n_shuffles=n_shuffles,
    )


def add_sensitivity(
    run_dir: Path,
    t_grid: Sequence[float] = T_GRID,
    k_grid: Sequence[int] = K_GRID,
    n_resamples: int | None = None,
) -> CensusRun:
    """Study ``run_dir``, store the study in its ``result.json`` and rewrite its plots and report.

    Returns:
        The run with the study (``result.sensitivity``) and its report.

    Raises:
        InputFileError: see :func:`run_prevalence`.
    """
    result, prev = run_prevalence(run_dir)
    study = sensitivity(prev, result, t_grid, k_grid, n_resamples)
    return rewrite_result(result.model_copy(update={"sensitivity": study}), run_dir)
