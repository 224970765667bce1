"""Census runs side by side, and among the KnowSum paper's Table 1 (``knowsum census compare``).

:func:`compare_results` reads the runs' records and, with ``published``, adds the paper's rows of
the runs' task and criterion (:mod:`knowsum.census._published`); the report layer ranks and draws
them (:func:`knowsum.census.page.compare_text`, :func:`~knowsum.census.page.write_census_compare`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from knowsum.census._published import published_rows
from knowsum.census._richness import sample_of_result
from knowsum.census.record import CensusRecord, CoverageRank, EqualCoverage, load_result
from knowsum.errors import ConfigError
from knowsum.records import DIFFERS, REPORT_NAME, PublishedRow, caveat_notes, comparable_records
from knowsum.stats import Abundance, Incidence, coverage_at_size, rarefaction_extrapolation, sample_coverage
from knowsum.stats.caveats import beyond_double, tiny_at
from knowsum.stats.q0_prediction import q0_attainable, q0_prediction

__all__ = [
    "DEFAULT_COVERAGE_SOURCE",
    "CensusComparison",
    "check_coverage",
    "compare_results",
    "equal_coverage",
]

DEFAULT_COVERAGE_SOURCE = "the lowest coverage among the runs' doubled samples, min Ĉ(2n), as iNEXT"


@dataclass(frozen=True, slots=True)
class CensusComparison:
    """The rows of a comparison and where each run's page is.

    Attributes:
        rows: The runs in the order given, then the published values (if asked for): three per model
            of each Table 1 column, ranked as one row (:func:`knowsum.census.page.compare_table`).
        reports: Each run's ``report.html`` (absolute).
        missing: ``task criterion`` of the runs that Table 1 has no column for (with ``published``).
        same_sample: One sentence per pair of runs scored from one items file (:func:`one_sample`).
    """

    rows: list[CensusRecord | PublishedRow]
    reports: list[Path]
    missing: list[str]
    same_sample: list[str] = field(default_factory=list)


def compare_results(
    runs: Sequence[Path], *, published: bool = False, allow_mixed: bool = False
) -> CensusComparison:
    """Read the census runs ``runs`` (run directories or ``result.json`` files) for a comparison.

    Args:
        runs: The runs.
        published: Add the KnowSum Table 1 rows with the runs' task and criterion (diseases strict =
            "Anatomical disease", relaxed = "Human diseases"; theorems strict = "Theorem only",
            relaxed = "All math concepts").
        allow_mixed: Rank runs that measured different things (task, prompt, KB release, criterion,
            counting, t, k, estimator, interval method), each such row carrying a ``differs``
            caveat (on every table of the comparison), instead of refusing them.

    Raises:
        InputFileError: a run without a readable census result.
        ConfigError: a run given twice, or runs not comparable without ``allow_mixed``
            (:func:`knowsum.records.check_comparable`).
    """
    results = [load_result(r) for r in runs]
    results = comparable_records(results, runs, allow_mixed=allow_mixed)
    rows: list[CensusRecord | PublishedRow] = list(results)
    missing: list[str] = []
    if published:
        for task, criterion in dict.fromkeys((r.task, r.criterion) for r in results):
            found = published_rows(task, criterion)
            rows.extend(found)
            if not found:
                missing.append(f"{task} {criterion}")
    reports = [((r if r.is_dir() else r.parent) / REPORT_NAME).resolve() for r in runs]
    return CensusComparison(rows, reports, missing, one_sample(results, runs))


def one_sample(results: Sequence[CensusRecord], runs: Sequence[Path]) -> list[str]:
    """A sentence for each run scored from the same items file (the same ``sha256`` in its identity)
    as an earlier one: however their seeds, names or intervals differ, they are one sample, so their
    rows are not two models' knowledge. A live run's sample is its own responses (none is shared)."""
    seen: dict[str, Path] = {}
    out = []
    for result, run in zip(results, runs, strict=True):
        sample = (result.identity or {}).get("prompt", "") if result.backend == "items" else ""
        if sample in seen:
            out.append(
                f"{seen[sample]} and {run} are two scorings of one file ({sample.strip('()')}): one "
                "sample, not two models"
            )
        elif sample:
            seen[sample] = run
    return out


def check_coverage(coverage: float | None) -> None:
    """Refuse an ``--at-coverage`` outside (0, 1) (``None``: the default, always valid).

    Raises:
        ConfigError: ``coverage`` is not strictly between 0 and 1.
    """
    if coverage is not None and not 0.0 < coverage < 1.0:
        raise ConfigError(f"invalid --at-coverage {coverage:g}: give a coverage strictly between 0 and 1")


def equal_coverage(
    results: Sequence[CensusRecord],
    coverage: float | None = None,
    *,
    n_bootstrap: int = 200,
    level: float = 0.95,
    seed: int = 0,
) -> EqualCoverage:
    """Each run's richness (``q = 0``) at one sample coverage ``C``: iNEXT's ``estimateD``.

    Runs sampled with different effort are compared where their samples are equally complete
    (Chao & Jost 2012): for each run the size ``m`` with ``Ĉ(m) = C`` is solved and the richness
    expected at ``m`` is rarefied (``m < n``) or extrapolated (``m > n``) from its sample (Chao et al.
    2014; :func:`knowsum.stats.rarefaction_extrapolation`), with iNEXT's bootstrap band. ``C``
    defaults to the lowest ``Ĉ(2n)`` among the runs, iNEXT's choice: no run is then extrapolated
    beyond twice its sample, the range in which Chao et al. (2014) find the extrapolation reliable.

    Args:
        results: The runs (each with at least one verified item, all with the same counting).
        coverage: ``C`` in (0, 1); ``None``: the default above.
        n_bootstrap: Bootstrap replicates of the bands (0: none).
        level: Confidence level of the bands.
        seed: Bootstrap seed.

    Raises:
        ConfigError: a run with no verified item, runs with different counting, ``C`` outside (0, 1),
            or every run complete at twice its sample (``Ĉ(2n) = 1``) with no ``C`` given.
    """
    check_coverage(coverage)
    modes = {r.counting for r in results}
    if len(modes) > 1:
        raise ConfigError(
            "runs counted by mention and by incidence have coverages of different things: "
            "compare runs of one --count at equal coverage"
        )
    samples = []
    for r in results:
        if r.n_seen == 0:
            raise ConfigError(
                f"{r.model} ({r.task}) verified no item: it has no sample to compare at a coverage"
            )
        samples.append(sample_of_result(r))
    doubled = [float(coverage_at_size(d, [2 * d.size])[0]) for d in samples]
    source = "given"
    if coverage is None:
        coverage, source = min(doubled), DEFAULT_COVERAGE_SOURCE
        if coverage >= 1.0:
            raise ConfigError(
                "every run's sample is complete at twice its size (Ĉ(2n) = 1, no singletons): "
                "give --at-coverage C below 1"
            )
    rows = []
    for r, data, c2 in zip(results, samples, doubled, strict=True):
        re = rarefaction_extrapolation(
            data,
            0,
            sizes=[float(data.size)],
            coverages=[coverage],
            n_bootstrap=n_bootstrap,
            conf=level,
            seed=seed,
        )
        cb = re.coverage_based
        raw = None if cb.lower is None or cb.upper is None else (float(cb.lower[0, 0]), float(cb.upper[0, 0]))
        band = None if raw is None else _attainable(raw, float(cb.size[0]), data)
        pred = q0_prediction(
            data, cb.size, cb.diversity[0], None if cb.std_error is None else cb.std_error[0], level
        )
        figure = f"{r.model}'s richness at C = {coverage:.4g}"
        found = [beyond_double(float(cb.size[0]), data.size, figure), tiny_at(float(cb.size[0]), figure)]
        rows.append(
            CoverageRank(
                model=r.model,
                task=r.task,
                data=re.datatype,
                size=data.size,
                coverage=sample_coverage(data).coverage,
                coverage_double=c2,
                n_total=r.n_total,
                t=r.t,
                at_size=float(cb.size[0]),
                method=cb.method[0],
                beyond_double=bool(cb.size[0] > 2 * data.size * (1 + 1e-9)),
                richness=float(cb.diversity[0, 0]),
                lower=None if band is None else band[0],
                upper=None if band is None else band[1],
                band_inext=None if band is None or band == raw else raw,
                prediction_interval=pred.unseen(0),
                prediction_interval_total=pred.total(0),
                prediction_reason=pred.reasons[0],
                prediction_method=pred.method,
                caveats=[
                    *(c for c in r.caveats if c.kind == DIFFERS),  # the mark of its run, on this table too
                    *caveat_notes([c for c in found if c is not None]),
                ],
            )
        )
    return EqualCoverage(coverage=coverage, source=source, level=level, n_bootstrap=n_bootstrap, rows=rows)


def _attainable(band: tuple[float, float], size: float, data: Abundance | Incidence) -> tuple[float, float]:
    """iNEXT's q = 0 band at ``size`` cut to the attainable range (``Q0_FLOOR``)."""
    lo, hi = q0_attainable([band[0]], [band[1]], [size], data.size, data.s_obs, isinstance(data, Incidence))
    return float(lo[0]), float(hi[0])
