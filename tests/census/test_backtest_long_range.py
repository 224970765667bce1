"""`knowsum census backtest --estimator preseq|pitman-yor`: the long-range estimators in the back-test, and
their back-test predictions equal to `estimate`'s (itself checked against preseq's output)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from knowsum.cli import main
from knowsum.stats import Prevalence, StatsError, estimate_unseen
from knowsum.stats import foresee as fs

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
PRESEQ = Path(__file__).resolve().parents[1] / "fixtures" / "preseq"


def _score(tmp_path: Path, exponent: float, n_queries: int = 60) -> Path:
    rng = np.random.default_rng(3)
    p = 1 / np.arange(1, 801) ** exponent
    queries = [[f"i{x}" for x in rng.choice(800, 12, p=p / p.sum())] for _ in range(n_queries)]
    items = tmp_path / "run.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    run = tmp_path / "run"
    assert main(["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20"]) == 0
    return run


@pytest.mark.parametrize(("exponent", "also"), [(0.6, []), (1.1, ["--estimator", "good-toulmin"])])
def test_backtest_runs_the_long_range_estimators(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], exponent: float, also: list[str]
) -> None:
    run = _score(tmp_path, exponent)
    capsys.readouterr()
    args = ["census", "backtest", str(run), "--t", "1,3", "--repeats", "8", "--n-bootstrap", "4"]
    assert main([*args, "--estimator", "preseq", "--estimator", "pitman-yor", *also]) == 0
    out = capsys.readouterr().out
    assert "preseq" in out and "pitman-yor" in out
    data = json.loads((run / "backtest" / "backtest.json").read_text())
    rows = [r for r in data["rows"] if r["estimator"] in ("preseq", "pitman-yor")]
    assert {(r["estimator"], r["t"]) for r in rows} == {
        (e, t) for e in ("preseq", "pitman-yor") for t in (1.0, 3.0)
    }
    assert all(np.isfinite(r["observed"]) for r in rows)
    assert any(r["estimator"] == "pitman-yor" and r["predicted"] > 0 for r in rows)


def _fisher_counts() -> np.ndarray:
    table = [line.split() for line in (PRESEQ / "fisher.hist").read_text().splitlines()]
    return np.repeat([int(s) for s, _ in table], [int(f) for _, f in table])


@pytest.mark.parametrize("t", [1.0, 10.0, 100.0])
def test_panel_predictions_are_the_estimates(t: float) -> None:
    counts = _fisher_counts()
    panel = fs.panel(counts[None, :], None, t, units=1, full=True)
    prev = Prevalence.from_counts(counts.tolist())
    for name in ("preseq", "pitman-yor"):
        assert float(fs.PREDICTORS[name](panel)[0]) == pytest.approx(estimate_unseen(prev, name, t).raw)
    reference = {1.0: 579.8, 10.0: 771.3, 100.0: 848.0}[t]  # preseq lc_extrap -Q, fisher.quick.coarse.tsv
    assert 501 + float(fs.PREDICTORS["preseq"](panel)[0]) == pytest.approx(reference, abs=0.05 + 1e-9)


def test_a_cut_histogram_is_refused() -> None:
    counts = _fisher_counts()
    counts[0] = 200  # above the cap of a cut panel
    panel = fs.panel(counts[None, :], None, 1.0, units=1, full=False)
    for name in ("preseq", "pitman-yor"):
        with pytest.raises(StatsError, match="whole histogram"):
            fs.PREDICTORS[name](panel)
