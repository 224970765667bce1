"""The statistics layer's own error and warning (it imports nothing from the rest of knowsum)."""

from __future__ import annotations


class StatsError(ValueError):
    """Invalid input to an estimator (negative counts, empty data, t <= 0, k < 1, ...).

    ``input_error`` tells the CLI, without importing this layer, that the message is for the user.
    """

    input_error = True


class StatsWarning(UserWarning):
    """A result that is computed faithfully but deserves attention (e.g. a negative Û(t))."""
