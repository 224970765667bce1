"""The statistics layer's own error (it imports nothing from the rest of knowsum)."""

from __future__ import annotations


class StatsError(ValueError):
    """Invalid input to an estimator (negative counts, empty data, t <= 0, k < 1, ...)."""
