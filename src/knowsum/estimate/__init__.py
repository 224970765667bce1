"""knowsum.estimate — how many items has a list of observations not shown yet?

The instrument behind ``knowsum estimate``: read an observation file (three tab-separated formats,
auto-detected), apply an unseen-species estimator with a held-out ``k`` and a bootstrap interval,
and return one :class:`EstimateReport` (rendered by :mod:`knowsum.estimate.page`)::

    from knowsum.estimate import EstimateConfig, estimate
    report = estimate("examples/fisher_butterflies.tsv", EstimateConfig(t=1, k="auto"))
    report.n_seen, report.n_unseen, report.n_total, report.skr, report.interval

``estimate`` also takes a :class:`~knowsum.stats.Prevalence` or the :class:`Observations` of
:func:`read_observations`.
"""

from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._observations import FORMATS, Format, Observations, read_observations
from knowsum.estimate._richness import RICHNESS_ESTIMATORS, RICHNESS_TITLES, RichnessConfig, richness
from knowsum.estimate._run import estimate
from knowsum.estimate._samples import ALL_FORMATS, Sample, Source, read_sample
from knowsum.estimate.record import EstimateReport, RichnessReport

__all__ = [
    "ALL_FORMATS",
    "FORMATS",
    "RICHNESS_ESTIMATORS",
    "RICHNESS_TITLES",
    "EstimateConfig",
    "EstimateReport",
    "Format",
    "Observations",
    "RichnessConfig",
    "RichnessReport",
    "Sample",
    "Source",
    "estimate",
    "read_observations",
    "read_sample",
    "richness",
]
