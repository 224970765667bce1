"""Read an observation file as abundance or incidence data for the richness estimators.

- ``counts``, ``prevalence`` and ``items`` files are abundance data (one observation per item seen);
- ``items`` files with a QUERY column are incidence data with ``count="incidence"``: each query is a
  sampling unit and an item is counted once per query that named it (``units`` adds the queries
  that yielded nothing, so ``T`` may exceed the number of queries in the file);
- ``incidence-freq`` (iNEXT's ``incidence_freq`` layout): the first data line is ``T``, then one
  line per species with the number of units it was found in (``COUNT`` or ``SPECIES<TAB>COUNT``).

Every problem raises :class:`~knowsum.errors.InputFileError` naming the file, line and value.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from knowsum.errors import ConfigError, InputFileError
from knowsum.estimate._observations import Observations, _integer, _read_lines, read_observations
from knowsum.stats import Abundance, Incidence, Prevalence, StatsError

__all__ = ["ALL_FORMATS", "CountMode", "Sample", "Source", "as_sample", "read_sample", "unseen_input"]

CountMode = Literal["abundance", "incidence"]
ALL_FORMATS: tuple[str, ...] = ("items", "counts", "prevalence", "incidence-freq")


@dataclass(frozen=True, slots=True)
class Sample:
    """A file read for the richness estimators.

    Attributes:
        data: The abundance or incidence sample.
        format: The format read.
        observations: The parsed file when it was not ``incidence-freq`` (for the KnowSum estimators).
        labels: Species label → count (``None`` when the file has no labels, e.g. a prevalence table).
    """

    data: Abundance | Incidence
    format: str
    observations: Observations | None
    labels: Mapping[Hashable, int] | None


Source = Sample | Observations | Prevalence | Abundance | Incidence | str | os.PathLike[str]
"""What :func:`~knowsum.estimate.estimate` and :func:`~knowsum.estimate.richness` read, both of them
any of: a :class:`Sample` or an :class:`Observations` already read, an in-memory
:class:`~knowsum.stats.Prevalence`, :class:`~knowsum.stats.Abundance` or
:class:`~knowsum.stats.Incidence`, or the path of a file (read by :func:`read_sample`)."""


def as_sample(
    source: Source, fmt: str | None = None, count: CountMode = "abundance", units: int | None = None
) -> tuple[Sample, str | None]:
    """``source`` as a :class:`Sample`, with the path it was read from (``None``: given in memory);
    ``fmt``, ``count`` and ``units`` apply to what is read here (a path, observations, a prevalence)."""
    if isinstance(source, Sample):
        return source, None
    if isinstance(source, Abundance | Incidence):
        return Sample(source, "", None, None), None
    if isinstance(source, Observations):
        return _sample_of(source.prevalence, source, count, units, "the observations"), None
    if isinstance(source, Prevalence):
        return _sample_of(source, None, count, units, "the prevalence"), None
    return read_sample(os.fspath(source), fmt, count, units), os.fspath(source)


def unseen_input(sample: Sample, estimator: str) -> Observations | Prevalence:
    """What the KnowSum estimators read from ``sample``: its observations, or the prevalence of its
    abundance counts; incidence data is refused (they count observations, not sampling units)."""
    if isinstance(sample.data, Incidence):
        raise ConfigError(
            f"estimator {estimator} needs abundance observations; on incidence data use "
            "chao2, chao2-bc, ichao2, ice, ice-1, jack1 or jack2"
        )
    if sample.observations is not None:
        return sample.observations
    return Prevalence.from_counts(sample.data.counts)


def _incidence_freq(path: Path, units: int | None) -> Sample:
    lines = _read_lines(path)
    first = lines[0]
    if len(first[2]) != 1:
        raise InputFileError(
            path, "incidence-freq: the first line must be T, the number of sampling units", *first[:2]
        )
    t = _integer(path, first, first[2][0], "T (sampling units)", 1)
    if len(lines) == 1:
        raise InputFileError(path, "incidence-freq: no species lines after T")
    labels: dict[Hashable, int] = {}
    largest = (0, first)
    for line in lines[1:]:
        fields = line[2]
        if len(fields) > 2 or not fields[-1]:
            raise InputFileError(path, "incidence-freq: expected COUNT or SPECIES<TAB>COUNT", *line[:2])
        value = _integer(path, line, fields[-1], "incidence count", 0)
        label = fields[0] if len(fields) == 2 else f"species {len(labels) + 1}"
        if label in labels:
            raise InputFileError(path, f"species {label!r} is listed twice", *line[:2])
        labels[label] = value
        if value > largest[0]:
            largest = (value, line)
    if largest[0] > t:
        raise InputFileError(
            path,
            f"T = {t} sampling units is smaller than the largest incidence count {largest[0]}",
            *largest[1][:2],
        )
    total = units if units is not None else t
    if total < t:
        raise InputFileError(
            path, f"--units {total} is smaller than T = {t} given on the first line", *first[:2]
        )
    try:
        data = Incidence.from_frequencies(labels.values(), total)
    except StatsError as exc:
        raise InputFileError(path, str(exc)) from exc
    return Sample(data, "incidence-freq", None, labels)


def read_sample(
    path: str | Path, fmt: str | None = None, count: CountMode = "abundance", units: int | None = None
) -> Sample:
    """Read ``path`` as abundance data, or as incidence data (``incidence-freq`` files, or ``items``
    files with a QUERY column and ``count="incidence"``); ``units`` is ``T`` when some units
    yielded nothing (at least the number of units in the file)."""
    path = Path(path)
    if fmt == "incidence-freq":
        return _incidence_freq(path, units)
    observations = read_observations(path, fmt)  # type: ignore[arg-type]
    return _sample_of(observations.prevalence, observations, count, units, path)


def _sample_of(
    prev: Prevalence,
    observations: Observations | None,
    count: CountMode,
    units: int | None,
    where: Path | str,
) -> Sample:
    """The abundance or incidence :class:`Sample` of ``prev`` (read from ``observations``, if any);
    a problem names ``where``."""
    fmt = observations.format if observations is not None else "prevalence"
    labels = None if prev.labels is None else dict(zip(prev.labels, map(int, prev.counts), strict=True))
    if count == "abundance":
        if units is not None:
            raise InputFileError(where, "--units applies to incidence data only (add --count incidence)")
        return Sample(Abundance.from_prevalence(prev), fmt, observations, labels)
    if prev.by_query is None:
        raise InputFileError(
            where,
            f"--count incidence needs QUERY<TAB>ITEM lines (an items file with a query column) "
            f"or --format incidence-freq; this {fmt} file has no sampling units",
        )
    data = Incidence.from_prevalence(prev)
    if units is not None:
        if units < data.n_units:
            raise InputFileError(
                where, f"--units {units} is smaller than the {data.n_units} queries in the file"
            )
        data = Incidence(data.frequencies, units)
    incidence = dict(zip(prev.labels or (), map(int, data.frequencies), strict=False))
    return Sample(data, fmt, observations, incidence or None)
