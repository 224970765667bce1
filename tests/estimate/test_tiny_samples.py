"""Tiny and degenerate samples never look certain: a named warning, ``n/a`` for an interval that
cannot vary, ``k`` bounded as in the census, big figures in 3 digits, and the cause of a negative
``Û(t)`` named truly — through ``knowsum estimate`` and, for the warning, ``knowsum census score``.

Hand values: one observation at t = 100 with k = 6 (held-out choice) gives
``Û = h_1 = t·(1 − (1 − q)^k)``, ``q = 1/(t+1)``: ``100·(1 − (100/101)^6) = 5.7955`` and
``N̂_tot = 6.7955``. Good–Toulmin on counts {20, 1, 3} at t = 100 gives
``Û = −Σ_s (−t)^s n_s = 100 + 10^6 − 10^40``.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.stats import Prevalence, StatsWarning
from knowsum.stats.bootstrap import DEGENERATE_REASON, bootstrap
from knowsum.stats.summary import collect_warnings, summarize


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _row(out: str, label: str) -> str:
    return next(line for line in out.splitlines() if label in line)


def test_one_observation_has_a_named_warning_and_no_fake_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "one.txt"
    one.write_text("x\n")
    code, out, err = _run(capsys, "estimate", str(one))
    assert code == 0, err
    unseen, total, skr = _row(out, "unseen        Û(t)"), _row(out, "N̂_tot"), _row(out, "SKR(t)")
    assert unseen.split()[2] == "5.8" and total.split()[2] == "6.8"
    for row in (unseen, total, skr):
        assert row.endswith("n/a: too few observations"), row
    assert "[6.8, 6.8]" not in out and "[5.8, 5.8]" not in out
    assert "warning: tiny sample: only n = 1 observation of 1 item (fewer than 20)" in out
    assert "warning: degenerate bootstrap: all 1,000 resamples give et's Û(t) = 5.795" in out

    code, out, err = _run(capsys, "estimate", str(one), "--json")
    record = json.loads(out)
    assert record["n_total"] == pytest.approx(1 + 100 * (1 - (100 / 101) ** 6), rel=1e-12)
    assert record["interval"] is None and record["interval_total"] is None and record["interval_skr"] is None
    assert record["interval_reason"] == "too few observations"
    assert any(n.startswith("warning: tiny sample:") for n in record["notes"])


def test_a_sample_without_singletons_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    counts = tmp_path / "counts.tsv"
    counts.write_text("a\t2\nb\t2\nc\t3\nd\t4\n")  # f1 = 0: Good–Turing's missing mass is 0
    code, out, err = _run(capsys, "estimate", str(counts), "--k", "8", "--json")
    assert code == 0, err
    notes = json.loads(out)["notes"]
    assert any(n.startswith("warning: no singletons: no item was seen exactly once") for n in notes)


def test_k_is_bounded_as_in_the_census(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one = tmp_path / "one.txt"
    one.write_text("x\n")
    code, out, err = _run(capsys, "estimate", str(one), "--k", "1000")
    assert (code, out) == (2, "")
    assert err == "knowsum: error: --k must be 'auto' or an integer in [1, 50], got '1000'\n"
    code, _, err = _run(capsys, "estimate", str(one), "--k", "50", "--n-bootstrap", "0")
    assert code == 0, err


def test_huge_figures_are_shown_in_three_digits_and_the_cause_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = tmp_path / "counts.tsv"
    counts.write_text("a\t20\nb\t1\nc\t3\n")
    code, out, err = _run(capsys, "estimate", str(counts), "--estimator", "good-toulmin")
    assert code == 0, err
    assert "raw Û(t) = -1e+40: negative, reported as 0" in _row(out, "unseen        Û(t)")
    assert not re.search(r"\d{10}", out.replace(",", "")), "a figure printed with 10 or more digits"
    assert "Good–Toulmin is reliable only for t ≤ 1 (here t = 100)" in out
    assert "k = auto)" not in out  # the old advice named the held-out k, which cannot help here

    code, out, err = _run(capsys, "estimate", str(counts), "--estimator", "good-toulmin", "--t", "0.5")
    assert code == 0 and "Good–Toulmin" not in out.split("note:", 1)[-1]  # t ≤ 1: no such warning


def test_a_negative_et_estimate_names_k_not_the_held_out_choice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cell = tmp_path / "cell.tsv"
    cell.write_text("s\tn_s\n1\t6\n2\t4\n3\t1\n")  # raw Û(100) = -3.526 at k = 6 (tests/cli/test_estimate.py)
    code, out, err = _run(capsys, "estimate", str(cell), "--k", "6")
    assert code == 0, err
    assert "with k = 6 at t = 100, the items seen 2 or more times outweigh the 6 singletons" in out
    code, out, err = _run(capsys, "estimate", str(cell), "--k", "1", "--json")
    assert json.loads(out)["n_unseen_raw"] == pytest.approx(6 * 100 / 101, rel=1e-12)  # k = 1: h_1·f1 ≥ 0


def test_a_two_observation_census_carries_the_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_home: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    items = tmp_path / "two.tsv"
    items.write_text("Q1\talpha\nQ2\tbeta\n")
    code, _, err = _run(capsys, "census", "score", str(items), "--out", str(tmp_path / "run"))
    assert code == 0, err
    assert "tiny sample: only n = 2 observations of 2 items (fewer than 20)" in err
    notes = json.loads((tmp_path / "run" / "result.json").read_text())["notes"]
    assert any(n.startswith("tiny sample: only n = 2 observations") for n in notes)


def test_the_bootstrap_marks_an_interval_that_cannot_vary() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StatsWarning)
        boot = bootstrap(Prevalence.from_counts([5]), "et", t=10, k=4, n_resamples=200, seed=1)
    assert boot.degenerate and boot.reason == DEGENERATE_REASON
    assert boot.unseen[0] == boot.unseen[1]  # the collapsed interval is kept, marked, never shown
    assert any("degenerate bootstrap: all 200 resamples" in str(w.message) for w in caught)

    sample = Prevalence.from_counts([1] * 15 + [2] * 10 + [3] * 5 + [7] * 2)  # n = 64: not tiny
    with collect_warnings() as notes:
        summary = summarize(sample, "et", t=2, k=4, n_bootstrap=200)
    assert summary.bootstrap is not None and not summary.bootstrap.degenerate
    assert summary.interval is not None and summary.interval[0] < summary.interval[1]
    assert not any(n.startswith(("tiny sample", "degenerate", "no singletons")) for n in notes)
