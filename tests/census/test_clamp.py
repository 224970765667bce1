"""Issue 20: a negative Û never shows as N̂_tot below N_seen, SKR above 1, or a crash — in the
result, the curve, the sensitivity tables, the report, the sweep page and its plots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, load_result, run_census, run_sweep, sweep_cells
from knowsum.cli import main
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, Request, ResponseStore
from knowsum.stats.bootstrap import ZERO_REASON
from tests.census.zipf import disease_names

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

# KnowSum eq. (1) at t = 100, k = 2 (q = 1/101), by hand:
#   h_1 = 100·(1 − (100/101)²) = 20100/10201,  h_2 = −100²·(1/101)² = −10000/10201
# n_1 = 1, n_2 = 3:  Û = (20100 − 30000)/10201 = −9900/10201 = −0.970493…
RAW = -9900 / 10201


@pytest.fixture
def names(kb_home: Path) -> list[str]:
    return [name for _, name in disease_names(load_ontology("doid"), 4)]


def _negative_texts(names: list[str]) -> list[str]:
    a, b, c, d = names  # a once, b, c, d twice: n_1 = 1, n_2 = 3
    return [f"1. {a}\n2. {b}\n3. {c}", f"1. {b}\n2. {c}\n3. {d}", f"1. {d}\n2. banana bread"]


def _backend(texts: list[str]) -> MockBackend:
    return MockBackend(lambda r: texts[r.sample_index % len(texts)], model_id="tiny", batch_size=4)


def test_negative_estimate_is_clamped_everywhere_in_a_run(
    names: list[str], tmp_path: Path, store: ResponseStore, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    cfg = CensusConfig(task="diseases", queries=3, t=100, k=2, n_bootstrap=200)
    result = run_census(cfg, _backend(_negative_texts(names)), store=store, out=run).record
    assert result.prevalence == [(1, 1), (2, 3)] and result.n_seen == 4
    assert result.n_unseen_raw == pytest.approx(RAW, rel=1e-12)
    assert (result.n_unseen, result.n_total, result.skr) == (0.0, 4.0, 1.0)
    # a log-normal interval around a clamped Û = 0 is the point [N_seen, N_seen]: never shown as one
    assert result.interval is None and result.interval_total is None and result.interval_skr is None
    assert result.interval_reason == ZERO_REASON
    assert {"clamped", "interval-na"} <= {c.kind for c in result.caveats}
    assert any("negative (raw Û = -0.9705)" in n and "more queries" in n for n in result.notes)
    # the curve never dips below N_seen; its raw values are kept
    assert all(p.n_total >= 4 and p.unseen >= 0 and (p.skr is None or p.skr <= 1) for p in result.curve)
    assert result.curve[-1].t == 100 and result.curve[-1].unseen_raw == pytest.approx(RAW, rel=1e-12)
    record = json.loads((run / "result.json").read_text())
    assert record["n_unseen"] == 0 and record["n_unseen_raw"] == pytest.approx(RAW, rel=1e-12)
    html = (run / "report.html").read_text()
    assert "Û clamped at 0 (raw -0.9705)" in html and "raw -0.9705, clamped at 0" in html
    assert f"n/a: {ZERO_REASON}" in html and "[4, 4]" not in html
    # the sensitivity tables show the clamp beside each negative cell
    assert main(["census", "sensitivity", str(run), "--t-grid", "1,100", "--k-grid", "1,2"]) == 0
    out = capsys.readouterr().out
    assert "0 (raw -0.9705, clamped at 0)" in out
    study = load_result(run).sensitivity
    assert study is not None
    assert [p.n_unseen for p in study.k_points] == pytest.approx([100 / 101, 0.0])  # k=1: h_1 n_1 = 100/101
    assert study.k_points[1].n_unseen_raw == pytest.approx(RAW, rel=1e-12)
    assert all(p.n_total >= 4 for p in study.t_points) and all(p.n_total >= 4 for p in study.k_points)


def test_sweep_with_clamped_and_empty_cells_writes_its_page(
    names: list[str], tmp_path: Path, store: ResponseStore
) -> None:
    """The issue's crash: the sweep plot's whiskers went negative for a cell whose point lay below
    its interval. Now a clamped cell and a cell with no valid item are drawn and labelled."""
    negative = _negative_texts(names)
    nothing = ["1. banana bread\n2. Eiffel Tower"] * 3

    def answer(r: Request) -> str:
        texts = negative if r.params.temperature == 0.7 else nothing
        return texts[r.sample_index % 3]

    base = CensusConfig(task="diseases", queries=3, t=100, k=2, n_bootstrap=50)
    cells = sweep_cells([0.7, 1.0], [1.0], [None], ["full"])
    outcome = run_sweep(base, cells, MockBackend(answer, model_id="tiny"), store=store, out=tmp_path / "sw")
    (_, clamped, _), (_, empty, _) = outcome.cells
    assert clamped.n_total == clamped.n_seen == 4 and clamped.skr == 1
    assert empty.n_seen == 0 and empty.n_total is None
    html = outcome.page.read_text()
    assert html.count("<figure") == 2
    assert "Û clamped at 0 (raw -0.9705)" in html and "no valid items" in html
    cells_json = json.loads(outcome.summary.read_text())["cells"]
    assert [c["n_total"] for c in cells_json] == [4.0, None]
    assert cells_json[0]["n_unseen_raw"] == pytest.approx(RAW, rel=1e-12)
    empty_report = (tmp_path / "sw" / "T1-P1-A50-full" / "report.html").read_text()
    assert "no valid items" in empty_report
