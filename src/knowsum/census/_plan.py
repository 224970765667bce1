"""Sizing a census before paying for it: how many queries does ``N̂_tot`` at a given ``t`` need?

From a pilot (a census run folder, or a per-query items file), :func:`plan_census` fits the community
of :mod:`knowsum.stats.community` (the pilot's items with coverage-adjusted abundances, Chao1's ``f̂0``
undetected items, and its per-query answer lengths), then simulates censuses of ``Q`` = the pilot's
size, doubled until :data:`MAX_DOUBLINGS` doublings, and scores the census estimator (``et`` with the
pilot's ``k``, not re-selected per size) at the target ``t`` against the simulated truth; it stops at
:data:`~knowsum.stats.community.MAX_DRAWS` simulated mentions per size, or when the fitted community
is exhausted (fewer than one new item expected: its unseen part is Chao1's lower bound, so a larger
census of the real model would still find new items). The plan is the smallest ``Q`` whose
expected error of ``N̂_tot`` is within the target and whose 95 % prediction interval covers at least
:data:`MIN_COVERAGE` of the simulated continuations.

Beside it, the **noise floor**: ``U(t)`` itself varies by about ``sqrt(E U)`` (Poisson), so no
estimator's error relative to ``U`` can be below ``1/sqrt(E U)``: an error target relative to ``U``
of ``e`` needs ``E U ≳ 1/e²`` new items (25 for 20 %). The fitted community's unseen part is ``f̂0``
items of equal probability, Chao1's lower bound: on a longer, more uneven tail the errors are larger,
so the plan is a lower bound of the census needed.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from knowsum.census._score import read_items
from knowsum.errors import InputFileError
from knowsum.stats import Prevalence, StatsWarning, summarize
from knowsum.stats.community import MAX_DRAWS, Community, fit_community, own_t_check
from knowsum.stats.unseen import plan_estimator

__all__ = ["MAX_DOUBLINGS", "MIN_COVERAGE", "PlanRow", "SizePlan", "pilot_sample", "plan_census"]

MIN_COVERAGE = 0.90
"""The plan's least prediction-interval coverage over the simulated censuses."""
MAX_DOUBLINGS = 8
"""Sizes tried: the pilot's ``Q`` and up to this many doublings (256 × the pilot)."""


@dataclass(frozen=True, slots=True)
class PlanRow:
    """The simulated census of one size."""

    n_queries: int
    error_total: float
    error_se: float
    error: float
    coverage: float
    coverage_se: float
    mean_new: float
    noise_floor: float

    def passes(self, target: float) -> bool:
        """Error of ``N̂_tot`` within ``target`` and coverage at least :data:`MIN_COVERAGE`."""
        return self.error_total <= target and self.coverage >= MIN_COVERAGE


@dataclass(frozen=True, slots=True)
class SizePlan:
    """The rows of :func:`plan_census` and the size it recommends (``None``: none of the sizes tried)."""

    t: float
    target: float
    k: int | None
    pilot_queries: int
    community: Community
    replicates: int
    rows: tuple[PlanRow, ...]
    n_queries: int | None

    @property
    def min_coverage(self) -> float:
        """The least prediction-interval coverage a size must reach (:data:`MIN_COVERAGE`)."""
        return MIN_COVERAGE

    def to_dict(self) -> dict[str, object]:
        """The ``--json`` object."""
        return {
            "t": self.t,
            "target_error": self.target,
            "min_coverage": MIN_COVERAGE,
            "estimator": "et",
            "k": self.k,
            "pilot_queries": self.pilot_queries,
            "community_size": self.community.size,
            "undetected": self.community.f0,
            "replicates": self.replicates,
            "recommended_queries": self.n_queries,
            "rows": [{f: getattr(r, f) for f in PlanRow.__slots__} for r in self.rows],
        }


def _from_run(folder: Path) -> Prevalence:
    result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
    items = folder / "items.jsonl"
    if not items.is_file():
        raise InputFileError(items, "missing: the pilot run folder has no items.jsonl")
    rows: list[tuple[int, str]] = []
    for line in items.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            if record.get("counted"):
                rows.append((int(record["query"]), str(record["key"])))
    return _prevalence(rows, int(result.get("n_queries") or 0), folder)


def _prevalence(rows: list[tuple[int, str]], n_queries: int, where: Path) -> Prevalence:
    if not rows:
        raise InputFileError(where, "holds no counted item: nothing to fit a community to")
    codes: dict[str, int] = {}
    cols = np.array([codes.setdefault(k, len(codes)) for _, k in rows], dtype=np.int64)
    qs = np.array([q for q, _ in rows], dtype=np.int64)
    n_q = max(n_queries, int(qs.max()) + 1)
    matrix = sp.csr_matrix((np.ones(cols.size, dtype=np.int64), (qs, cols)), shape=(n_q, len(codes)))
    matrix.sum_duplicates()
    return Prevalence(np.bincount(cols, minlength=len(codes)).astype(np.int64), tuple(codes), matrix)


def pilot_sample(path: Path) -> Prevalence:
    """The pilot as a per-query sample: a census run folder (its counted items, every query asked) or
    a per-query items file (each item its own cluster, unverified).

    Raises:
        InputFileError: no such folder or file, a malformed file, or nothing counted.
    """
    if path.is_dir():
        if not (path / "result.json").is_file():
            raise InputFileError(
                path, "is not a census run folder (no result.json): give a run or items file"
            )
        return _from_run(path)
    _, grouped = read_items(path)
    rows = [(q, item) for q, (_, items) in enumerate(grouped) for item in items]
    return _prevalence(rows, len(grouped), path)


def plan_census(prev: Prevalence, t: float, target: float, replicates: int = 100, seed: int = 0) -> SizePlan:
    """Simulated error and coverage of ``N̂_tot`` at ``t`` over doubling census sizes (module docstring).

    Raises:
        StatsError: the pilot has no singletons or doubletons (no community can be fitted).
    """
    community = fit_community(prev)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", StatsWarning)
        k = summarize(prev, "et", t, "auto", n_bootstrap=0, seed=seed, own_t=False).k
    plan = plan_estimator(prev, "et", t, k)
    pilot = prev.n_queries or prev.n_observations
    rows: list[PlanRow] = []
    chosen = None
    per_query = max(float(community.lengths.mean()), 1e-9)
    for i in range(MAX_DOUBLINGS + 1):
        q = pilot * 2**i
        if i and replicates * q * per_query > MAX_DRAWS:
            break
        check = own_t_check(community, plan, q, replicates, seed + i)
        row = PlanRow(
            q,
            check.error_total,
            check.error_se,
            check.error,
            check.coverage,
            check.coverage_se,
            check.mean_new,
            check.noise_floor,
        )
        rows.append(row)
        if row.passes(target):
            chosen = q
            break
        if row.mean_new < 1:  # the fitted community is exhausted: larger censuses see nothing new
            break
    return SizePlan(t, target, k, pilot, community, replicates, tuple(rows), chosen)
