"""Pure statistics: prevalence, unseen-species estimators, intervals, correlation tests.

This package imports nothing from the rest of knowsum and does no I/O. Quick tour::

    from knowsum.stats import Prevalence, estimate_unseen, summarize
    prev = Prevalence.from_items(["a", "b", "a", "c"], queries=[1, 1, 2, 2])
    estimate_unseen(prev, "et", t=100, k=8)          # KnowSum eq. (1)
    summarize(prev, t=100, k="auto", n_bootstrap=1000, seed=0)   # held-out k + bootstrap

Species-richness and diversity estimation (Chao1/ACE/jackknife, Hill numbers, iNEXT curves)::

    from knowsum.stats import Abundance, estimate_richness, hill_numbers, rarefaction_extrapolation
    data = Abundance.from_counts([46, 22, 17, 15, 15, 9, 8, 6, 6, 4, 2, 2, 2, 2] + [1] * 12)
    estimate_richness(data, "chao1")                  # 43.893 (s.e. 14.306), as SpadeR/iNEXT print
    hill_numbers(data, n_bootstrap=200, seed=0)       # q = 0, 1, 2: observed and asymptotic
    rarefaction_extrapolation(data, seed=0)           # size- and coverage-based curves with bands
"""

from __future__ import annotations

from knowsum.stats._errors import StatsError, StatsWarning
from knowsum.stats.bootstrap import BootstrapResult, bootstrap
from knowsum.stats.buckets import assign_buckets, bucket_edges
from knowsum.stats.caveats import CAVEAT_MARKS, Caveat, CaveatKind
from knowsum.stats.correlation import SpearmanResult, spearman_permutation
from knowsum.stats.granger import GrangerResult, granger_f, granger_test
from knowsum.stats.heldout import KSelection, select_k
from knowsum.stats.hill import HillNumbers, asymptotic_hill, bootstrap_assemblage, hill_numbers, observed_hill
from knowsum.stats.incidence import (
    INCIDENCE_ESTIMATORS,
    chao2,
    chao2_bc,
    estimate_richness,
    ice,
    ice1,
    ichao2,
)
from knowsum.stats.intervals import INTERVAL_METHODS, IntervalMethod, Intervals, intervals, lognormal_total
from knowsum.stats.prevalence import Prevalence
from knowsum.stats.rarefaction import (
    CurvePoints,
    RarefactionExtrapolation,
    coverage_at_size,
    default_sizes,
    diversity_at_size,
    rarefaction_extrapolation,
    size_at_coverage,
)
from knowsum.stats.richness import (
    ABUNDANCE_ESTIMATORS,
    CoverageEstimate,
    RichnessEstimate,
    ace,
    ace1,
    chao1_bc,
    chao1_bc_vegan,
    chao1_classic,
    ichao1,
    jackknife1,
    jackknife2,
    sample_coverage,
)
from knowsum.stats.samples import Abundance, Incidence
from knowsum.stats.sampling import AdditionalSample, additional_for_coverage, additional_for_richness
from knowsum.stats.setmetrics import PRF, macro_prf, set_prf
from knowsum.stats.shared import SharedEstimate, ace_shared, chao1_shared, chao1_shared_bc, observed_shared
from knowsum.stats.shared_incidence import chao2_shared, chao2_shared_bc
from knowsum.stats.summary import Summary, moved_out, summarize
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
    "ABUNDANCE_ESTIMATORS",
    "CAVEAT_MARKS",
    "DEFAULT_K",
    "DEFAULT_T",
    "ESTIMATORS",
    "INCIDENCE_ESTIMATORS",
    "INTERVAL_METHODS",
    "PRF",
    "Abundance",
    "AdditionalSample",
    "BootstrapResult",
    "Caveat",
    "CaveatKind",
    "CoverageEstimate",
    "Curve",
    "CurvePoints",
    "Diagnostics",
    "GrangerResult",
    "HillNumbers",
    "Incidence",
    "IntervalMethod",
    "Intervals",
    "KSelection",
    "Prevalence",
    "RarefactionExtrapolation",
    "RichnessEstimate",
    "SharedEstimate",
    "SpearmanResult",
    "StatsError",
    "StatsWarning",
    "Summary",
    "UnseenEstimate",
    "ace",
    "ace1",
    "ace_shared",
    "additional_for_coverage",
    "additional_for_richness",
    "assign_buckets",
    "asymptotic_hill",
    "bootstrap",
    "bootstrap_assemblage",
    "bucket_edges",
    "chao1",
    "chao1_bc",
    "chao1_bc_vegan",
    "chao1_classic",
    "chao1_shared",
    "chao1_shared_bc",
    "chao2",
    "chao2_bc",
    "chao2_shared",
    "chao2_shared_bc",
    "coverage_at_size",
    "default_sizes",
    "diversity_at_size",
    "estimate_richness",
    "estimate_unseen",
    "extrapolation_curve",
    "granger_f",
    "granger_test",
    "hill_numbers",
    "ice",
    "ice1",
    "ichao1",
    "ichao2",
    "intervals",
    "jackknife1",
    "jackknife2",
    "lognormal_total",
    "macro_prf",
    "observed_hill",
    "observed_shared",
    "rarefaction_extrapolation",
    "sample_coverage",
    "select_k",
    "set_prf",
    "size_at_coverage",
    "spearman_permutation",
    "summarize",
    "theorem1_bound",
]

__getattr__ = moved_out(__name__)  # EstimateReport's old home (knowsum.stats.summary.moved_out)
