"""Every run configuration refuses a number that is not finite with one reason that says so.

``nan`` compares false with any bound, so a bounded float field alone reports ``nan`` as "should be
less than or equal to 2"; the configurations forbid non-finite numbers outright. Walked over every
``Config`` of knowsum's instruments and of the estimate pipelines, field by field.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from knowsum.estimate._config import EstimateConfig
from knowsum.estimate._richness import RichnessConfig
from knowsum.instrument import instruments


def _configs() -> list[type[BaseModel]]:
    """knowsum's own (a plug-in's configuration is its author's)."""
    own = (inst.Config for inst in instruments().values() if type(inst).__module__.startswith("knowsum."))
    return [*own, EstimateConfig, RichnessConfig]


def _float_fields(config: type[BaseModel]) -> list[str]:
    return [name for name, f in config.model_fields.items() if f.annotation in (float, float | None)]


def test_the_walk_reaches_the_float_fields() -> None:
    names = {c.__name__: _float_fields(c) for c in _configs()}
    assert "temperature" in names["CensusConfig"] and "temperature" in names["GenebenchConfig"]
    assert "temperature" in names["RecallConfig"] and "level" in names["RichnessConfig"]


@pytest.mark.parametrize("config", _configs(), ids=lambda c: c.__name__)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_number_is_refused_as_such(config: type[BaseModel], bad: float) -> None:
    for name in _float_fields(config):
        given: dict[str, Any] = {name: bad}
        if "task" in config.model_fields and config.model_fields["task"].is_required():
            given["task"] = "diseases"
        with pytest.raises(ValidationError) as info:
            config(**given)
        errors = [e for e in info.value.errors() if e["loc"] == (name,)]
        assert errors and errors[0]["msg"] == "Input should be a finite number", (config.__name__, name)
