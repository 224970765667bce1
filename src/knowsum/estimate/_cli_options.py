"""The richness-toolkit options of ``knowsum estimate`` (count mode, Hill numbers, curves, targets)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import click

from knowsum.cliutil.common import choice_option
from knowsum.cliutil.params import Number
from knowsum.errors import ConfigError

__all__ = ["RICHNESS_OPTIONS", "Fraction", "Number", "richness_options"]


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
