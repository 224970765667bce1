"""The richness-toolkit options of ``knowsum estimate`` (count mode, Hill numbers, curves, targets)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import click

from knowsum.cli._common import choice_option
from knowsum.errors import ConfigError

__all__ = ["RICHNESS_OPTIONS", "Fraction", "Number", "richness_options"]


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
            if self.maximum is not None:  # the census's wording: "k must be 'auto' or an integer in [1, 50]"
                kind, bound = (
                    kind.replace("a whole number", "an integer"),
                    f"in [{self.minimum:g}, {self.maximum:g}]",
                )
            raise ConfigError(f"{self.option} must be {kind} {bound}, got {raw!r}")
        return number


class Fraction(click.ParamType[float]):
    """A number strictly between 0 and 1 (a coverage or a fraction); a bad value is one line."""

    name = "number"

    def __init__(self, option: str):
        self.option = option

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        raw = str(value)
        try:
            number = float(raw)
        except ValueError:
            number = math.nan
        if not 0.0 < number < 1.0:
            raise ConfigError(f"{self.option} must be a number strictly between 0 and 1, got {raw!r}")
        return number


RICHNESS_OPTIONS = (
    "count",
    "units",
    "hill",
    "at_coverage",
    "at_size",
    "curve",
    "plot",
    "shared_with",
    "target_coverage",
    "target_fraction",
)
"""The parameter names the options below add (collected by the command into one config)."""


def richness_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Add the richness-toolkit options to ``knowsum estimate``."""
    options = [
        choice_option(
            "--count",
            ("abundance", "incidence"),
            "abundance",
            "incidence: QUERY<TAB>ITEM lines as incidence data (each query a sampling unit).",
        ),
        click.option(
            "--units",
            type=Number("--units", whole=True, minimum=1, strict=False),
            metavar="T",
            help="Number of sampling units T, when some units yielded nothing.",
        ),
        click.option("--hill", is_flag=True, help="Hill numbers q = 0, 1, 2: observed and asymptotic."),
        click.option(
            "--at-coverage",
            type=Fraction("--at-coverage"),
            multiple=True,
            metavar="C",
            help="Diversity q = 0, 1, 2 at sample coverage C (repeatable).",
        ),
        click.option(
            "--at-size",
            type=Number("--at-size", whole=False, minimum=1, strict=False),
            multiple=True,
            metavar="M",
            help="Diversity q = 0, 1, 2 and coverage at sample size M (repeatable).",
        ),
        click.option("--curve", is_flag=True, help="Size- and coverage-based R/E curves with bands."),
        click.option("--plot", metavar="FILE", help="Write the --curve plot to FILE (PNG)."),
        click.option("--shared-with", metavar="FILE_B", help="Estimate the items shared with FILE_B."),
        click.option(
            "--target-coverage",
            type=Fraction("--target-coverage"),
            metavar="C",
            help="Observations (or units) still needed to reach coverage C.",
        ),
        click.option(
            "--target-fraction",
            type=Fraction("--target-fraction"),
            metavar="G",
            help="Observations (or units) still needed to see a fraction G of the Chao estimate.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command
