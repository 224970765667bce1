"""Pure statistics: prevalence, unseen-species estimators, intervals, correlation tests.

This package imports nothing from the rest of knowsum and does no I/O.
"""

from __future__ import annotations

from knowsum.stats._errors import StatsError

__all__ = ["StatsError"]
