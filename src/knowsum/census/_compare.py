"""Census runs side by side, and among the KnowSum paper's Table 1 (``knowsum census compare``).

:func:`compare_results` reads the runs' records and, with ``published``, adds the paper's rows of
the runs' task and criterion (:mod:`knowsum.census._published`); the report layer ranks and draws
them (:func:`knowsum.report.census.compare_table`, :func:`~knowsum.report.census.write_census_compare`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from knowsum.census._published import published_rows
from knowsum.records import REPORT_NAME
from knowsum.records.census import CensusResult, PublishedRow, load_result

__all__ = ["CensusComparison", "compare_results"]


@dataclass(frozen=True, slots=True)
class CensusComparison:
    """The rows of a comparison and where each run's page is.

    Attributes:
        rows: The runs in the order given, then the published rows (if asked for).
        reports: Each run's ``report.html`` (absolute).
        missing: ``task criterion`` of the runs that Table 1 has no column for (with ``published``).
    """

    rows: list[CensusResult | PublishedRow]
    reports: list[Path]
    missing: list[str]


def compare_results(runs: Sequence[Path], *, published: bool = False) -> CensusComparison:
    """Read the census runs ``runs`` (run directories or ``result.json`` files) for a comparison.

    Args:
        runs: The runs.
        published: Add the KnowSum Table 1 rows with the runs' task and criterion (diseases strict =
            "Anatomical disease", relaxed = "Human diseases"; theorems strict = "Theorem only",
            relaxed = "All math concepts").

    Raises:
        InputFileError: a run without a readable census result.
    """
    results = [load_result(r) for r in runs]
    rows: list[CensusResult | PublishedRow] = list(results)
    missing: list[str] = []
    if published:
        for task, criterion in dict.fromkeys((r.task, r.criterion) for r in results):
            found = published_rows(task, criterion)
            rows.extend(found)
            if not found:
                missing.append(f"{task} {criterion}")
    reports = [((r if r.is_dir() else r.parent) / REPORT_NAME).resolve() for r in runs]
    return CensusComparison(rows, reports, missing)
