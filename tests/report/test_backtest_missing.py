"""A back-test row whose predictor gave no estimate on some splits says so (not "diverged")."""

from __future__ import annotations

from knowsum.census.backtest_page import _missing
from knowsum.census.backtest_record import BacktestRow


def _row(estimator: str, predicted: float | None, diverged: float) -> BacktestRow:
    return BacktestRow.model_validate(
        {
            "estimator": estimator,
            "family": estimator,
            "t": 3.0,
            "t_effective": 3.0,
            "kept_queries": 10,
            "predicted": predicted,
            "observed": 5.0,
            "bias": None,
            "relative_bias": None,
            "relative_rmse": None,
            "coverage": 0.1,
            "no_interval": 0.7,
            "band": None,
            "diverged": diverged,
        }
    )


def test_no_estimate_is_told_apart_from_a_diverging_series() -> None:
    assert _missing(_row("preseq", None, 0.69)) == "n/a: no estimate on 69% of splits"
    assert _missing(_row("pitman-yor", None, 0.03)) == "n/a: no estimate on 3% of splits"
    assert _missing(_row("good-toulmin", None, 0.5)) == "n/a: diverged"
    assert _missing(_row("preseq", 12.0, 0.0)) is None


def test_a_small_share_of_missing_estimates_never_reads_zero() -> None:
    # 1 split of 300 without a fit: 0.33 %, which "{:.0%}" would print as "0%"
    assert _missing(_row("pitman-yor", None, 1 / 300)) == "n/a: no estimate on <1% of splits"
    assert _missing(_row("pitman-yor", None, 0.006)) == "n/a: no estimate on 1% of splits"
