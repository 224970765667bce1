"""A card row (``Measure``) holds a finite value inside its own interval, or says why it has none.

A non-finite value or end, or an interval that does not hold its value, is a bug of the instrument that
made the row: refused in one error naming the instrument and the row's key, however the row is made
(``Instrument.measure`` or ``Measure`` itself); through the command line, a plug-in's bug is one line
naming the plug-in. ``-0.0`` is read as ``0.0``; an end that misses its value by rounding alone is moved
onto it, so an older file whose Wilson end was ``0.9999999999999999`` still loads.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from pydantic import ValidationError

from knowsum.cli import main
from knowsum.records.profile import Measure
from knowsum.report.profile import card_rows
from tests.instrument._flaky import FlakyInstrument, flaky_plug_in
from tests.instrument._yes import INSTRUMENT as YES

__all__ = ["flaky_plug_in"]

BAD = [
    (math.inf, None, r"value inf is not a finite number"),
    (-math.inf, (0.0, 1.0), r"value -inf is not a finite number"),
    (math.nan, None, r"value nan is not a finite number"),
    (0.5, (math.nan, 0.9), r"lower nan is not a finite number"),
    (0.5, (0.1, math.inf), r"upper inf is not a finite number"),
    (0.5, (0.8, 0.9), r"its interval \[0.8, 0.9\] does not hold its value 0.5"),
    (0.95, (0.8, 0.9), r"its interval \[0.8, 0.9\] does not hold its value 0.95"),
    (0.5, (0.9, 0.1), r"its interval \[0.9, 0.1\] has its lower end above its upper end"),
]


@pytest.mark.parametrize(("value", "interval", "message"), BAD)
def test_a_bad_row_is_refused_naming_the_instrument_and_the_key(
    value: float, interval: tuple[float, float] | None, message: str
) -> None:
    where = r"instrument 'yes', measure 'yes/share': "
    with pytest.raises(ValueError, match=where + message) as caught:
        YES.measure("share", "share", value, "m", run="r", interval=interval)
    assert not isinstance(caught.value, ValidationError)  # one sentence, not pydantic's report
    lo, hi = interval or (None, None)
    fields = {"key": "yes/share", "instrument": "yes", "label": "l", "method": "m", "run": "r"}
    with pytest.raises(ValidationError, match=where + message):  # a row made by hand: the same check
        Measure(**fields, value=value, lower=lo, upper=hi)


def test_minus_zero_is_zero_and_prints_so() -> None:
    m = YES.measure("share", "share", -0.0, "m", run="r", interval=(-0.0, 0.25), percent=True)
    assert math.copysign(1.0, m.value or 0.0) == 1.0 and math.copysign(1.0, m.lower or 0.0) == 1.0
    assert card_rows([m])[0][1:3] == ["0.0%", "[0.0%, 25.0%]"]


def test_an_end_off_by_rounding_is_moved_onto_the_value() -> None:
    m = YES.measure("share", "share", 1.0, "m", run="r", interval=(0.72, 0.9999999999999999))
    assert (m.lower, m.upper) == (0.72, 1.0)
    old = {"key": "yes/share", "instrument": "yes", "label": "l", "method": "m", "run": "r"}
    read = Measure.model_validate({**old, "value": 0.0, "lower": 5.551115123125783e-17, "upper": 0.56})
    assert read.lower == 0.0  # an older profile.json with Wilson's rounded end still loads


def test_a_reason_beside_a_value_is_refused() -> None:
    with pytest.raises(ValueError, match=r"measure 'yes/share': has a value \(0.5\) and a reason"):
        YES.measure("share", "share", 0.5, "m", run="r", value_reason="not asked")


@pytest.mark.parametrize(
    ("row", "shown"),
    [
        ((math.inf, None), "value inf is not a finite number"),
        ((math.nan, None), "value nan is not a finite number"),
        ((0.5, (0.8, 0.9)), "its interval [0.8, 0.9] does not hold its value 0.5"),
    ],
)
def test_a_plug_ins_bad_row_is_one_line_naming_it_not_a_traceback(
    flaky_plug_in: FlakyInstrument,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    row: tuple[float, tuple[float, float] | None],
    shown: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(flaky_plug_in, "row", row)
    (tmp_path / "plan.toml").write_text("[flaky]\nqueries = 2\n", encoding="utf-8")
    args = ["run", "flaky", "-m", "mock", "--plan", "plan.toml", "--store", "s.sqlite", "--json"]
    assert main(args) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and err[0].startswith("knowsum: error: plug-in 'flaky'"), err
    assert f"ValueError: instrument 'flaky', measure 'flaky/share': {shown}" in err[0]
    assert "Traceback" not in err[0]
