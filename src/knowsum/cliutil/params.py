"""Parameter types shared by command groups: bounded numbers whose bad values are one line."""

from __future__ import annotations

import math
from typing import Any

import click

from knowsum.errors import ConfigError

__all__ = ["FiniteRange", "Number", "ResampleCount"]


class Number(click.ParamType[float | str]):
    """A number above a bound (and at most ``maximum``); a bad value is one line naming the option
    (``--t must be …``, ``--k must be 'auto' or a whole number in [1, 50]…``).

    ``auto_ok`` also lets the word ``auto`` through (``--k auto``).
    """

    def __init__(
        self,
        option: str,
        *,
        whole: bool,
        minimum: float,
        strict: bool,
        auto_ok: bool = False,
        maximum: float | None = None,
    ):
        self.option, self.whole, self.auto_ok = option, whole, auto_ok
        self.minimum, self.strict, self.maximum = minimum, strict, maximum
        self.name = "auto|integer" if auto_ok else ("integer" if whole else "number")

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float | str:
        raw = str(value)
        if self.auto_ok and raw.strip().lower() == "auto":
            return "auto"
        try:
            number: float | None = int(raw) if self.whole else float(raw)
        except ValueError:
            number = None
        too_small = number is not None and (number < self.minimum or (self.strict and number == self.minimum))
        too_big = number is not None and self.maximum is not None and number > self.maximum
        if number is None or not math.isfinite(number) or too_small or too_big:
            kind = ("'auto' or " if self.auto_ok else "") + ("a whole number" if self.whole else "a number")
            bound = f"> {self.minimum:g}" if self.strict else f">= {self.minimum:g}"
            if self.maximum is not None and self.whole:  # the census's wording: "an integer in [1, 50]"
                kind, bound = (
                    kind.replace("a whole number", "an integer"),
                    f"in [{self.minimum:g}, {self.maximum:g}]",
                )
            elif too_big:  # a number past its cap ("--t must be a number at most 1e+06")
                bound = f"at most {self.maximum:g}"
            raise ConfigError(f"{self.option} must be {kind} {bound}, got {raw!r}")
        return number


class FiniteRange(click.FloatRange):
    """click's ``FloatRange`` for a finite number: ``nan`` and ``inf``, which its bounds let through
    (``nan`` compares false with both), are refused too. A bad value is click's one line naming the
    option and the value as given (``Invalid value for '--error': 1 is not in the range 0<x<1.``), and
    ``--help`` shows the range (``[default: 0.2; 0<x<1]``)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)  # "'x' is not a valid float."
        if not math.isfinite(number):
            self.fail(f"{value} is not a finite number in the range {self._describe_range()}.", param, ctx)
        try:
            return super().convert(number, param, ctx)
        except click.BadParameter:  # click's message names the float (1.0): name what was given
            self.fail(f"{value} is not in the range {self._describe_range()}.", param, ctx)


class ResampleCount(click.IntRange):
    """A count of bootstrap resamples: 0 (no interval) or at least 2 (one resample has no spread, so
    its interval would be a point; :func:`knowsum.stats.bootstrap.check_resamples` is the same rule
    for the library and the configuration files)."""

    def __init__(self) -> None:
        super().__init__(min=0)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number == 1:
            self.fail("1 resample has no spread: give 0 (no interval) or at least 2.", param, ctx)
        return number
