"""The one entry of the estimate instrument: a sample (or a file of observations) → EstimateReport."""

from __future__ import annotations

import os

from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._observations import Observations, read_observations
from knowsum.stats import EstimateReport, Prevalence, Summary, summarize
from knowsum.stats.summary import collect_warnings

__all__ = ["Source", "estimate"]

Source = Observations | Prevalence | str | os.PathLike[str]
"""What :func:`estimate` reads: a parsed file, a sample, or the path of an observation file."""


def estimate(source: Source, config: EstimateConfig | None = None) -> EstimateReport:
    """Held-out ``k``, ``Û(t)``, ``N̂_tot``, ``SKR(t)`` and their bootstrap intervals for ``source``.

    Args:
        source: A :class:`~knowsum.stats.Prevalence`, an :class:`Observations` from
            :func:`read_observations`, or the path of an observation file (read in
            ``config.format``, auto-detected when that is ``None``).
        config: The estimator and its settings (default: :class:`EstimateConfig` defaults).

    Returns:
        Every number of the estimate, with the notes for the user; each :class:`StatsWarning` the
        estimators raise becomes a note ``warning: …`` (and is not re-raised).

    Raises:
        InputFileError: The file is missing, unreadable or malformed.
        StatsError: The estimator cannot be applied (e.g. an OSW smoothing at ``t <= 1``).
    """
    config = config or EstimateConfig()
    label: str | None = None
    if isinstance(source, Prevalence):
        observations, prevalence = None, source
    else:
        if not isinstance(source, Observations):
            label = os.fspath(source)
            source = read_observations(label, config.format)
        observations, prevalence = source, source.prevalence
    with collect_warnings() as caught:
        summary = summarize(
            prevalence,
            config.estimator,
            config.t,
            config.k,
            n_bootstrap=config.n_bootstrap,
            level=config.level,
            seed=config.seed,
            interval=config.interval,
        )
    notes = (*summary.notes, *(f"warning: {message}" for message in caught))
    return _report(summary, notes, observations, label)


def _report(
    summary: Summary, notes: tuple[str, ...], observations: Observations | None, label: str | None
) -> EstimateReport:
    read = None if observations is None else (observations.format, observations.detected, observations.reason)
    return EstimateReport.of(summary, notes, source=label, format_read=read)
