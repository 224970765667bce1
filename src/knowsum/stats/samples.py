"""The two data types of the species-richness estimators: abundance and incidence samples.

- :class:`Abundance` — ``n`` individuals (observations) drawn from an assemblage; ``X_i`` is the
  number of times detected species ``i`` was seen, ``f_k`` the number of species seen exactly ``k``
  times, ``S_obs = Σ_k f_k`` and ``n = Σ_k k·f_k``.
- :class:`Incidence` — ``T`` sampling units (plots, traps, queries …); ``Y_i`` is the number of units
  in which species ``i`` was detected (``1 ≤ Y_i ≤ T``), ``Q_k`` the number of species detected in
  exactly ``k`` units, and ``U = Σ_i Y_i`` the total number of incidences.

Both are validated once, at construction (negative, fractional or non-finite counts, empty data,
``T`` smaller than the largest incidence count all raise :class:`~knowsum.stats.StatsError`), and
keep their frequency counts (``f_k`` / ``Q_k``) so that every estimator reads them in O(1).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from knowsum.stats._arrays import IntArray
from knowsum.stats._errors import StatsError
from knowsum.stats.prevalence import Prevalence

__all__ = ["Abundance", "Incidence"]

_MAX = 2**53


def _validate(values: Any, what: str) -> IntArray:
    """Non-negative integer counts as int64 (floats must be integral; bools and strings refused)."""
    if isinstance(values, str | bytes) or (isinstance(values, Iterable) and not hasattr(values, "__len__")):
        values = list(values)
    arr = np.asarray(values)
    if arr.ndim != 1:
        raise StatsError(f"{what} must be a one-dimensional sequence of counts, got shape {arr.shape}")
    if arr.size == 0:
        raise StatsError(f"{what} is empty: give at least one species with a count >= 1")
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise StatsError(f"{what} must be non-negative integers, got values of type {arr.dtype}")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr))
        if bad.any():
            raise StatsError(f"{what} must be whole numbers, got {arr[bad][0]!r} (fractional or non-finite)")
    if arr.min() < 0:
        raise StatsError(f"{what} must be non-negative, got {arr.min()!r}")
    if float(arr.max()) > _MAX:
        raise StatsError(f"{what} too large: {arr.max()!r} > 2^53")
    return arr.astype(np.int64)


def _frequency_counts(values: IntArray) -> IntArray:
    out = np.bincount(values)
    out[0] = 0
    out.setflags(write=False)
    return out


class _Sample:
    """What both sample kinds share: their frequency counts ``freq[k]`` (``f_k`` or ``Q_k``)."""

    __slots__ = ()
    freq: IntArray

    if TYPE_CHECKING:

        @property
        def counts(self) -> IntArray:
            """``X_i`` (or ``Y_i``), one per detected species."""

    def _keep(self, name: str, values: Any, what: str, verb: str) -> IntArray:
        """Validate the counts (zeros dropped, read-only) into field ``name`` and their ``freq``."""
        counts = _validate(values, what)
        counts = counts[counts > 0]
        if counts.size == 0:
            raise StatsError(f"{what} are all zero: at least one species must be {verb}")
        counts.setflags(write=False)
        object.__setattr__(self, name, counts)
        object.__setattr__(self, "freq", _frequency_counts(counts))
        return counts

    @property
    def s_obs(self) -> int:
        """Observed richness ``S_obs``, the number of species detected."""
        return int(self.counts.size)

    def f(self, k: int) -> int:
        """``f_k``, the number of species seen exactly ``k`` times (for incidence data ``Q_k``, detected
        in exactly ``k`` units); 0 beyond the largest count."""
        return int(self.freq[k]) if 0 < k < self.freq.size else 0


@dataclass(frozen=True, slots=True, eq=False)
class Abundance(_Sample):
    """Abundance data: the number of observations of each detected species.

    Attributes:
        counts: ``X_i ≥ 1`` for each detected species (zeros are dropped at construction).
        freq: ``freq[k] = f_k``, the number of species seen exactly ``k`` times (``freq[0] = 0``).
    """

    counts: IntArray
    freq: IntArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._keep("counts", self.counts, "abundance counts", "seen")

    @classmethod
    def from_counts(cls, counts: Mapping[Hashable, Any] | Iterable[Any]) -> Abundance:
        """From a species → count mapping or a plain sequence of counts (zeros allowed, dropped)."""
        values = list(counts.values()) if isinstance(counts, Mapping) else counts
        return cls(np.asarray(values if hasattr(values, "__len__") else list(values)))

    @classmethod
    def from_items(cls, items: Iterable[Hashable]) -> Abundance:
        """From one label per observation (``["a", "b", "a"]`` → counts ``[2, 1]``)."""
        seen: dict[Hashable, int] = {}
        for item in items:
            seen[item] = seen.get(item, 0) + 1
        return cls(np.fromiter(seen.values(), dtype=np.int64, count=len(seen)))

    @classmethod
    def from_prevalence(cls, prevalence: Prevalence) -> Abundance:
        """The per-item counts of a :class:`~knowsum.stats.Prevalence`."""
        return cls(prevalence.counts)

    @property
    def n(self) -> int:
        """Sample size ``n = Σ X_i``."""
        return int(self.counts.sum())

    @property
    def size(self) -> int:
        """The sample size the estimators use (``n``); the same name as :attr:`Incidence.size`."""
        return self.n


@dataclass(frozen=True, slots=True, eq=False)
class Incidence(_Sample):
    """Incidence-frequency data: in how many of ``T`` sampling units each species was detected.

    Attributes:
        frequencies: ``Y_i`` with ``1 ≤ Y_i ≤ T`` for each detected species (zeros dropped).
        n_units: ``T``, the number of sampling units (units where nothing was found count too).
        freq: ``freq[k] = Q_k``, the number of species detected in exactly ``k`` units.
    """

    frequencies: IntArray
    n_units: int
    freq: IntArray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        freqs = self._keep("frequencies", self.frequencies, "incidence frequencies", "detected")
        units = self.n_units
        if isinstance(units, bool) or not isinstance(units, int | np.integer) or units < 1:
            raise StatsError(f"the number of sampling units T must be a positive integer, got {units!r}")
        if int(freqs.max()) > int(units):
            raise StatsError(
                f"T = {units} sampling units is smaller than the largest incidence count {freqs.max()}: "
                "a species cannot be found in more units than were sampled"
            )
        object.__setattr__(self, "n_units", int(units))

    @classmethod
    def from_frequencies(cls, frequencies: Iterable[Any], n_units: int) -> Incidence:
        """From ``Y_i`` per species and ``T`` (iNEXT's ``incidence_freq`` without its first entry)."""
        return cls(np.asarray(list(frequencies)), n_units)

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[Hashable, Hashable]], n_units: int | None = None) -> Incidence:
        """From ``(unit, species)`` detections (iNEXT's ``incidence_raw``); a species found twice in
        one unit counts once. ``T`` is the number of distinct units unless ``n_units`` (≥ that) is
        given, for units in which nothing was detected."""
        units: set[Hashable] = set()
        detections: dict[Hashable, set[Hashable]] = {}
        for unit, species in pairs:
            units.add(unit)
            detections.setdefault(species, set()).add(unit)
        if n_units is not None and n_units < len(units):
            raise StatsError(f"n_units = {n_units} is smaller than the {len(units)} distinct units seen")
        freqs = np.fromiter((len(u) for u in detections.values()), dtype=np.int64, count=len(detections))
        return cls(freqs, len(units) if n_units is None else n_units)

    @classmethod
    def from_matrix(cls, matrix: Any) -> Incidence:
        """From a species × units matrix; any positive entry is a detection."""
        arr = np.asarray(matrix)
        if arr.ndim != 2 or arr.shape[1] == 0:
            raise StatsError(f"an incidence matrix must be species × units (2-D), got shape {arr.shape}")
        if arr.dtype.kind not in "biuf" or (arr.dtype.kind != "b" and (arr < 0).any()):
            raise StatsError("incidence matrix entries must be non-negative numbers or booleans")
        return cls((arr > 0).sum(axis=1), int(arr.shape[1]))

    @classmethod
    def from_prevalence(cls, prevalence: Prevalence) -> Incidence:
        """Queries as sampling units: ``Y_i`` = the number of queries whose responses named item ``i``."""
        if prevalence.by_query is None:
            raise StatsError(
                "this prevalence has no per-query counts: build it with Prevalence.from_items(…, queries=…)"
            )
        matrix = prevalence.by_query
        return cls(np.asarray((matrix > 0).sum(axis=0)).ravel(), int(matrix.shape[0]))

    @property
    def T(self) -> int:  # noqa: N802 - the literature's name
        """The number of sampling units ``T``."""
        return self.n_units

    @property
    def U(self) -> int:  # noqa: N802 - the literature's name
        """Total number of incidences ``U = Σ Y_i``."""
        return int(self.frequencies.sum())

    @property
    def size(self) -> int:
        """The sample size the estimators use (``T``); the same name as :attr:`Abundance.size`."""
        return self.n_units

    @property
    def counts(self) -> IntArray:
        """``Y_i`` (so that code written for :class:`Abundance` reads incidence data the same way)."""
        return self.frequencies
