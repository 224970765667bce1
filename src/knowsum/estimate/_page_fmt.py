"""How ``knowsum estimate``'s tables print a figure and an interval: the decimals of each column,
``—`` for a missing figure, ``n/a`` for one that is not a number, and interval ends never printed
alike when they differ (:func:`~knowsum.report.interval_ends`)."""

from __future__ import annotations

import math
from collections.abc import Callable

from knowsum.report import interval_ends

__all__ = ["ANALYTIC_POINT", "BOOT_POINT", "fig", "fmt", "num", "pair"]

_LARGE = 1e9
"""From this size on a figure is shown in 3 significant digits (``2.09e+11``), not as a long integer."""


def fmt(x: float | None, digits: int = 1, *, whole: bool = True) -> str:
    """A figure as the table shows it: ``—`` when missing, ``digits`` decimals (integers without
    decimals when ``whole``), thousands separated, 3 significant digits from :data:`_LARGE` on."""
    if x is None:
        return "—"
    if abs(x) >= _LARGE:
        return f"{x:.3g}"
    if whole and (isinstance(x, int) or (float(x).is_integer() and abs(x) >= 1)):
        return f"{x:,.0f}"
    return f"{x:,.{digits}f}"


def fig(digits: int, whole: bool) -> Callable[[float], str]:
    """:func:`fmt` with ``digits`` and ``whole`` fixed, for :func:`~knowsum.report.interval_ends`."""
    return lambda x: fmt(x, digits, whole=whole)


def num(x: float, spec: str = ".3f") -> str:
    """``x`` formatted by ``spec``, or ``n/a`` in the same width when it is not a number (a text table
    never says nan)."""
    if math.isfinite(x):
        return format(x, spec)
    width = spec.split(".")[0].lstrip("<>^,")
    return format("n/a", f">{width}") if width.isdigit() else "n/a"


BOOT_POINT = "n/a: every resample alike"
"""A bootstrap interval that is a point: resamples that cannot vary say nothing about the uncertainty."""
ANALYTIC_POINT = "n/a: a point, its variance 0"
"""An analytic (closed-form or delta-method) interval that is a point: no resample is involved, so
"every resample alike" would misstate why (e.g. Chao2 on ``T = 1`` unit: ``Ŝ = S_obs``, ``var_obs = 0``)."""


def pair(iv: tuple[float, float] | None, digits: int = 3, point: str = BOOT_POINT) -> str:
    """An interval, ``n/a`` when it is not a number and ``point`` when it is a point: :data:`BOOT_POINT`
    for a bootstrap interval (the default), :data:`ANALYTIC_POINT` for a closed-form one."""
    if iv is None:
        return "—"
    if not (math.isfinite(iv[0]) and math.isfinite(iv[1])):
        return "n/a"
    if iv[0] == iv[1]:
        return point
    return "[{}, {}]".format(*interval_ends(iv[0], iv[1], lambda x: f"{x:,.{digits}f}"))
