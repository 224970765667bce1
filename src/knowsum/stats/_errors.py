"""The statistics layer's own error and warning (it imports nothing from the rest of knowsum)."""

from __future__ import annotations


class StatsError(ValueError):
    """Invalid input to an estimator (negative counts, empty data, t <= 0, k < 1, ...)."""


class StatsWarning(UserWarning):
    """A result that is computed faithfully but deserves attention (e.g. a negative Û(t))."""
