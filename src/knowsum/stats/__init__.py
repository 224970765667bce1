"""Pure statistics: prevalence, unseen-species estimators, intervals, correlation tests.

This package imports nothing from the rest of knowsum and does no I/O. Quick tour::

    from knowsum.stats import Prevalence, estimate_unseen, summarize
    prev = Prevalence.from_items(["a", "b", "a", "c"], queries=[1, 1, 2, 2])
    estimate_unseen(prev, "et", t=100, k=8)          # KnowSum eq. (1)
    summarize(prev, t=100, k="auto", n_bootstrap=1000, seed=0)   # held-out k + bootstrap
"""

from __future__ import annotations

from knowsum.stats._errors import StatsError, StatsWarning
from knowsum.stats.bootstrap import BootstrapResult, bootstrap
from knowsum.stats.buckets import assign_buckets, bucket_edges
from knowsum.stats.correlation import SpearmanResult, spearman_permutation
from knowsum.stats.granger import GrangerResult, granger_f, granger_test
from knowsum.stats.heldout import KSelection, select_k
from knowsum.stats.intervals import INTERVAL_METHODS, IntervalMethod, Intervals, intervals, lognormal_total
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.setmetrics import PRF, macro_prf, set_prf
from knowsum.stats.summary import Summary, summarize
from knowsum.stats.unseen import (
    DEFAULT_K,
    DEFAULT_T,
    ESTIMATORS,
    Curve,
    Diagnostics,
    UnseenEstimate,
    chao1,
    estimate_unseen,
    extrapolation_curve,
    theorem1_bound,
)

__all__ = [
    "DEFAULT_K",
    "DEFAULT_T",
    "ESTIMATORS",
    "INTERVAL_METHODS",
    "PRF",
    "BootstrapResult",
    "Curve",
    "Diagnostics",
    "GrangerResult",
    "IntervalMethod",
    "Intervals",
    "KSelection",
    "Prevalence",
    "SpearmanResult",
    "StatsError",
    "StatsWarning",
    "Summary",
    "UnseenEstimate",
    "assign_buckets",
    "bootstrap",
    "bucket_edges",
    "chao1",
    "estimate_unseen",
    "extrapolation_curve",
    "granger_f",
    "granger_test",
    "intervals",
    "lognormal_total",
    "macro_prf",
    "select_k",
    "set_prf",
    "spearman_permutation",
    "summarize",
    "theorem1_bound",
]
