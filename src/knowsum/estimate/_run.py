"""The one entry of the estimate instrument: a sample (or a file of observations) → EstimateReport."""

from __future__ import annotations

import os
import warnings
from types import MappingProxyType

from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._observations import Observations, read_observations
from knowsum.records.estimate import BootstrapSummary, EstimateReport, KSelectionSummary
from knowsum.stats import Prevalence, StatsWarning, Summary, summarize

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
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
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
    notes = [*summary.notes]
    notes += [f"warning: {w.message}" for w in caught if issubclass(w.category, StatsWarning)]
    return _report(summary, tuple(notes), observations, label)


def _report(
    summary: Summary, notes: tuple[str, ...], observations: Observations | None, label: str | None
) -> EstimateReport:
    est, boot, sel = summary.estimate, summary.bootstrap, summary.selection
    return EstimateReport(
        estimator=est.estimator,
        n_observations=est.n_observations,
        n_queries=summary.n_queries,
        n_seen=est.n_seen,
        n_unseen=est.estimate,
        n_unseen_raw=est.raw,
        n_total=est.n_total,
        skr=est.skr,
        t=est.t,
        k=est.k,
        k_source=summary.k_source,
        interval=est.interval,
        parameters=MappingProxyType(dict(est.parameters)),
        negative=est.diagnostics.negative,
        theorem1_bound=est.diagnostics.theorem1_bound,
        within_bound=est.diagnostics.within_bound,
        std_error=est.diagnostics.std_error,
        selection=None
        if sel is None
        else KSelectionSummary(sel.candidates, sel.nmse, sel.fractions, sel.n_shuffles, sel.method, sel.seed),
        bootstrap=None
        if boot is None
        else BootstrapSummary(
            boot.n_resamples,
            boot.method,
            boot.seed,
            boot.level,
            boot.interval,
            boot.unseen,
            boot.total,
            boot.skr,
        ),
        notes=notes,
        source=label,
        format=None if observations is None else observations.format,
        format_detected=None if observations is None else observations.detected,
        format_reason=None if observations is None else observations.reason,
    )
