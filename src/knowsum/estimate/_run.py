"""The one entry of the estimate instrument: a sample (or a file of observations) → EstimateReport."""

from __future__ import annotations

import os

from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._observations import Observations, read_observations
from knowsum.estimate._samples import Sample, Source, as_sample, unseen_input
from knowsum.estimate.record import EstimateReport
from knowsum.stats import Abundance, Incidence, Prevalence, Summary, summarize
from knowsum.stats.summary import collect_warnings

__all__ = ["estimate"]


def estimate(source: Source, config: EstimateConfig | None = None) -> EstimateReport:
    """Held-out ``k``, ``Û(t)``, ``N̂_tot``, ``SKR(t)`` and their bootstrap intervals for ``source``.

    Args:
        source: Any :data:`Source`: a :class:`~knowsum.stats.Prevalence`, an :class:`Observations`
            from :func:`read_observations`, the path of an observation file (read in
            ``config.format``, auto-detected when that is ``None``), or a :class:`Sample` or
            :class:`~knowsum.stats.Abundance` (their abundance counts; incidence data is refused).
        config: The estimator and its settings (default: :class:`EstimateConfig` defaults).

    Returns:
        Every number of the estimate, with the notes for the user; each :class:`StatsWarning` the
        estimators raise becomes a note ``warning: …`` (and is not re-raised).

    Raises:
        InputFileError: The file is missing, unreadable or malformed.
        StatsError: The estimator cannot be applied (e.g. an OSW smoothing at ``t <= 1``).
        ConfigError: Incidence data (a :class:`Sample` of it, an :class:`~knowsum.stats.Incidence`).
    """
    config = config or EstimateConfig()
    label: str | None = None
    if isinstance(source, Sample | Abundance | Incidence):
        source = unseen_input(as_sample(source)[0], config.estimator)
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
