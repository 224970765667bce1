"""The back-test table's percentages: a value that rounds to zero never reads ``-0%``, and a share
that is not zero never reads ``0%`` (``census backtest --t 1,3,9 --repeats 400 --n-bootstrap 20`` once
printed ``-0% ± 5%`` and ``(0% n/a)``)."""

from __future__ import annotations

import pytest

from knowsum.census._horizon import _describe
from knowsum.census.backtest_page import _cover, _pct, _se, share_text
from knowsum.census.backtest_record import BacktestRow


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (-0.004, "0%"),
        (-0.005, "0%"),  # half a percent below zero rounds to zero too (round half to even)
        (-0.0, "0%"),
        (0.0, "0%"),
        (0.004, "0%"),
        (-0.006, "-1%"),
        (-0.09, "-9%"),
        (0.126, "13%"),
        (-1.5, "-150%"),
        (360.0, "3.6e+04%"),
        (None, "n/a: diverged"),
    ],
)
def test_a_signed_percentage_that_rounds_to_zero_has_no_sign(value: float | None, text: str) -> None:
    assert _pct(value) == text


def test_a_standard_error_beside_a_value_that_rounds_to_zero() -> None:
    assert _pct(-0.003) + _se(0.05) == "0% ± 5%"


@pytest.mark.parametrize(
    ("share", "text"),
    [
        (0.0, "0%"),
        (0.001, "<1%"),
        (0.0049, "<1%"),
        (0.005, "<1%"),  # "{:.0%}" rounds half a percent to 0 % (half to even): not zero, so "<1%"
        (0.0051, "1%"),
        (0.09, "9%"),
        (0.995, ">99%"),  # 199 of 200 splits: not all of them
        (1.0, "100%"),
    ],
)
def test_a_share_that_is_not_zero_never_reads_zero(share: float, text: str) -> None:
    assert share_text(share) == text


def test_the_coverage_cell_names_a_small_share_of_missing_intervals() -> None:
    assert _cover(0.9, 0.02, 0.09) == "90% ± 2% (9% n/a)"
    assert _cover(0.9, 0.02, 0.003) == "90% ± 2% (<1% n/a)"  # was "(0% n/a)"
    assert _cover(0.002, 0.001, 0.0) == "<1% ± 0%"  # no n/a part when every split had an interval
    assert _cover(0.0, 0.0, 0.49) == "0% ± 0% (49% n/a)"
    assert _cover(None, None, 0.5) == "n/a"


def _row(bias: float, n_total: float) -> BacktestRow:
    return BacktestRow.model_validate(
        {
            "estimator": "sgt-k6",
            "family": "sgt",
            "t": 3.0,
            "t_effective": 3.0,
            "kept_queries": 250,
            "predicted": 50.0,
            "observed": 55.0,
            "bias": bias,
            "relative_bias": bias / 55.0,
            "relative_rmse": 0.4,
            "coverage": 0.9,
            "no_interval": 0.0,
            "band": None,
            "diverged": 0.0,
            "repeats": 300,
            "pi_coverage": 0.97,
            "n_total": n_total,
            "bias_se": 0.5,
        }
    )


def test_the_trust_horizon_bias_that_rounds_to_zero_reads_plus_zero() -> None:
    assert "bias +0.0% ± 0.1% of N_tot" in _describe(_row(-0.2, 1000.0))  # -0.02 %: was "-0.0%"
    assert "bias -4.2% ± 0.1% of N_tot" in _describe(_row(-42.0, 1000.0))
    assert "bias +1.0% ± 0.1% of N_tot" in _describe(_row(10.0, 1000.0))
