"""An interval narrower than a table's digits is printed with the digits that tell its ends apart, and
its point as finely; a true point is n/a, never ``[x, x]`` (``knowsum estimate`` end to end)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.report import interval_ends, interval_text


def _one_decimal(x: float) -> str:
    return f"{x:,.1f}"


def test_ends_that_differ_never_print_alike() -> None:
    assert interval_ends(0.25, 3.75, _one_decimal) == ("0.2", "3.8")  # the table's own digits suffice
    lo, hi = interval_ends(4.606e-06, 0.002149, _one_decimal)
    assert lo != hi and float(lo) == pytest.approx(4.606e-06) and float(hi) == pytest.approx(0.002149)
    assert interval_text((71.0, 71.002), None, _one_decimal) == "[71, 71.002]"
    assert interval_text((1.0, 1.0), None, _one_decimal) == "n/a: the interval is a point"


def _row(page: str, label: str) -> tuple[float, float, float]:
    line = next(x for x in page.splitlines() if x.startswith(f"  {label}"))
    point, lo, hi = re.search(r"\s(\S+)\s+\[(\S+), (\S+)\]", line[len(label) + 2 :]).groups()  # type: ignore[union-attr]
    return float(point.replace(",", "")), float(lo.replace(",", "")), float(hi.replace(",", ""))


def _page(folder: Path, text: str, capsys: pytest.CaptureFixture[str], *options: str) -> str:
    sample = folder / "sample.tsv"
    sample.write_text(text)
    assert main(["estimate", str(sample), *options, "--n-bootstrap", "50"]) == 0
    return capsys.readouterr().out


def test_a_tiny_interval_and_its_point_are_printed_as_finely_as_they_differ(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = _page(tmp_path, "s\tn_s\n1\t1\n2\t50\n3\t20\n", capsys, "--t", "0.0001")
    point, lo, hi = _row(page, "unseen        Û(t)")
    assert 0 < lo < point < hi < 0.01  # neither "0.0" nor "[0.0, 0.0]"
    assert "[0.0, 0.0]" not in page and "[71.0, 71.0]" not in page


def test_a_curve_whose_prediction_interval_is_a_point_says_n_a(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = _page(tmp_path, "x\n", capsys, "--hill", "--curve")
    assert "prediction interval of N_tot n/a: the interval is a point" in page and "[1.0, 1.0]" not in page
