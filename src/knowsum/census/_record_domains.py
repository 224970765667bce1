"""The domain of each number a census record holds, checked when a record is made or read.

A file whose ``t`` is 0 or whose ``k`` is -1 is refused by :func:`knowsum.census.load_result` naming
the field, rather than run: counts, sizes, positive finite settings, shares and levels.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

__all__ = ["Count", "Factor", "Level", "Ratio", "Share", "Size"]

Count = Annotated[int, Field(ge=0)]
"""A whole count (items, queries, observations, splits)."""
Size = Annotated[float, Field(ge=0)]
"""A non-negative amount (an estimated count, seconds)."""
Factor = Annotated[float, Field(gt=0, allow_inf_nan=False)]
"""A positive finite setting (``t``, an extrapolation factor)."""
Share = Annotated[float, Field(ge=0, le=1)]
"""A share in ``[0, 1]`` (coverage, SKR's ends)."""
Ratio = Annotated[float, Field(gt=0, le=1)]
"""A share in ``(0, 1]`` (SKR, an observed fraction)."""
Level = Annotated[float, Field(gt=0, lt=1)]
"""A confidence level in ``(0, 1)``."""
