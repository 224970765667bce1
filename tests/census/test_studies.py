"""Sensitivity studies (issue 10 item 3): `census sensitivity` on one run, `census sweep` across runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, load_result, run_census, run_prevalence, run_sweep, sweep_cells
from knowsum.census._prompts import DISEASES_PROMPT, DISEASES_SIMPLE_PROMPT
from knowsum.cli import main
from knowsum.errors import ConfigError, InputError
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from knowsum.stats import estimate_unseen, select_k
from tests.census.zipf import disease_names, make_responses

N_QUERIES, PER_QUERY = 60, 12
pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


@pytest.fixture
def texts(kb_home: Path) -> list[str]:
    names = disease_names(load_ontology("doid"), 300)
    return make_responses(names, N_QUERIES, PER_QUERY)[0]


def _backend(texts: list[str]) -> MockBackend:
    return MockBackend(lambda r: texts[r.sample_index], model_id="zipf", batch_size=16)


def test_sensitivity_from_one_run(
    texts: list[str], tmp_path: Path, store: ResponseStore, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    cfg = CensusConfig(task="diseases", queries=N_QUERIES, n_bootstrap=50)
    before = run_census(cfg, _backend(texts), store=store, out=run).record
    loaded, prev = run_prevalence(run)
    assert loaded.n_seen == before.n_seen
    assert sorted(prev.table().items()) == before.prevalence and prev.n_queries == N_QUERIES

    code = main(["census", "sensitivity", str(run), "--n-bootstrap", "60", "--t-grid", "1,10,100,200"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert (
        "N_tot and SKR over t" in out and "held-out NMSE" in out and f"report: {run / 'report.html'}" in out
    )
    after = load_result(run)
    study = after.sensitivity
    assert study is not None and after.n_total == before.n_total  # the headline is untouched
    # t study: the run's estimator and k at each t; the band never goes below N_seen
    assert [p.t for p in study.t_points] == [1.0, 10.0, 100.0, 200.0]
    for p in study.t_points:
        ref = estimate_unseen(prev, "et", p.t, before.k)
        assert p.n_total == pytest.approx(ref.n_total, rel=1e-12)
        assert p.unseen_lower is not None and p.unseen_lower >= 0
    assert study.t_points[2].n_total == pytest.approx(before.n_total, rel=1e-12)
    # k study: et at the run's t for k = 2..12, with the held-out NMSE of select_k (same seed)
    sel = select_k(prev, candidates=range(2, 13), seed=0)
    assert [p.k for p in study.k_points] == list(range(2, 13))
    assert [p.nmse for p in study.k_points] == pytest.approx(list(sel.nmse), rel=1e-12)
    assert study.k_best == sel.k
    for kp in study.k_points:
        assert kp.n_total == pytest.approx(estimate_unseen(prev, "et", 100.0, kp.k).n_total, rel=1e-12)
    html = (run / "report.html").read_text()
    assert (
        'id="sensitivity"' in html
        and 'data-plot="sensitivity_t"' in html
        and 'data-plot="sensitivity_k"' in html
    )
    assert {"sensitivity_t.png", "sensitivity_k.png"} <= {p.name for p in (run / "plots").iterdir()}


def test_sensitivity_refuses_a_tampered_run(
    texts: list[str], tmp_path: Path, store: ResponseStore, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    cfg = CensusConfig(task="diseases", queries=20, n_bootstrap=0)
    run_census(cfg, _backend(texts), store=store, out=run)
    lines = (run / "items.jsonl").read_text().splitlines()
    (run / "items.jsonl").write_text("\n".join(lines[: len(lines) // 2]) + "\n")
    code = main(["census", "sensitivity", str(run)])
    _, err = capsys.readouterr()
    assert code == 2 and "does not match the histogram" in err
    assert main(["census", "sensitivity", str(tmp_path / "none")]) == 2


def test_sweep_cells_are_ordinary_resumable_runs(
    texts: list[str], tmp_path: Path, store: ResponseStore
) -> None:
    base = CensusConfig(task="diseases", queries=24, n_bootstrap=40)
    cells = sweep_cells([0.7, 1.0], [1.0], [None], ["full", "simple"])
    assert len(cells) == 4
    backend = _backend(texts)
    outcome = run_sweep(base, cells, backend, store=store, out=tmp_path / "sweep")
    assert len(backend.calls) == 4 * 24  # every cell sampled its own responses
    prompts = {str(r.prompt) for r in backend.calls}
    assert prompts == {DISEASES_PROMPT.replace("{n}", "50"), DISEASES_SIMPLE_PROMPT.replace("{n}", "50")}
    names = sorted(p.name for p in (tmp_path / "sweep").iterdir() if p.is_dir())
    assert names == ["T0.7-P1-A50-full", "T0.7-P1-A50-simple", "T1-P1-A50-full", "T1-P1-A50-simple"]
    for cell, result, run_dir in outcome.cells:
        assert load_result(run_dir) == result
        assert result.config["temperature"] == cell.temperature
        assert result.config["prompt_variant"] == cell.prompt_variant
        assert result.interval_total is not None and result.interval_total[0] >= result.n_seen
    summary = json.loads(outcome.summary.read_text())
    assert [c["cell"] for c in summary["cells"]] == [d.name for _, _, d in outcome.cells]
    html = outcome.page.read_text()
    assert html.count("<figure") == 2 and "T1-P1-A50-simple/report.html" in html
    # rerunning asks the model nothing: every cell is served from the store
    again = _backend(texts)
    rerun = run_sweep(base, cells, again, store=store, out=tmp_path / "sweep")
    assert again.calls == []
    assert [r.n_total for _, r, _ in rerun.cells] == [r.n_total for _, r, _ in outcome.cells]
    # the same folder with another criterion: every cell is checked first, nothing is asked
    strict, third = base.model_copy(update={"criterion": "strict"}), _backend(texts)
    with pytest.raises(InputError, match=r"T0.7-P1-A50-full holds a census run .*criterion=relaxed here"):
        run_sweep(strict, cells, third, store=store, out=tmp_path / "sweep")
    assert third.calls == []
    replaced = run_sweep(strict, cells, third, store=store, out=tmp_path / "sweep", overwrite=True)
    assert {r.criterion for _, r, _ in replaced.cells} == {"strict"}


def test_sweep_cli_with_the_mock_model(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sw"
    args = ["census", "sweep", "theorems", "--model", "mock", "--queries", "3", "--answers", "10,20"]
    code = main([*args, "--n-bootstrap", "0", "--out", str(out), "--store", str(tmp_path / "s.sqlite")])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir() if p.name != ".knowsum-run.json") == [  # and its claim
        "T1-P1-A10-full",
        "T1-P1-A20-full",
        "sweep.html",
        "sweep.json",
    ]
    assert "listing 10 theorem names" in load_result(out / "T1-P1-A10-full").prompt
    assert f"page: {out / 'sweep.html'}" in stdout
    bad = main(["census", "sweep", "ontology:go", "--prompt-variant", "simple", "--out", str(tmp_path / "x")])
    assert bad == 2 and "diseases and theorems only" in capsys.readouterr().err
    assert main(["census", "sweep", "theorems", "--temperature", "0.7,hot"]) == 2
    assert main(["census", "sweep", "theorems", "--temperature", "5", "--model", "mock"]) == 2


def test_sensitivity_against_hand_computed_estimates(
    kb_home: Path, tmp_path: Path, store: ResponseStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: the t and k studies against KnowSum eq. (1) worked by hand on a tiny run.

    Four responses over seven diseases A–G: A three times, B and C twice, D–G once, so
    n_1 = 4, n_2 = 2, n_3 = 1, N_seen = 7. With h_s = −(−t)^s P(Bin(k, 1/(t+1)) ≥ s):
      k = 2, t = 1:   h = (3/4, −1/4)             Û = 3 − 1/2        = 2.5
      k = 2, t = 2:   h = (10/9, −4/9)            Û = 40/9 − 8/9     = 32/9
      k = 2, t = 100: h = (20100, −10000)/10201   Û = 60400/10201    = 5.92099…
      k = 3, t = 1:   h = (7/8, −1/2, 1/8)        Û = 7/2 − 1 + 1/8  = 2.625
    """
    a, b, c, d, e, f, g = (name for _, name in disease_names(load_ontology("doid"), 7))
    texts = [f"{a}\n{b}\n{d}", f"{a}\n{c}\n{e}", f"{a}\n{b}\n{f}", f"{c}\n{g}"]
    run = tmp_path / "run"
    cfg = CensusConfig(task="diseases", queries=4, t=1, k=2, n_bootstrap=80)
    before = run_census(cfg, _backend(texts), store=store, out=run).record
    assert before.prevalence == [(1, 4), (2, 2), (3, 1)] and before.n_total == pytest.approx(7 + 2.5)
    assert main(["census", "sensitivity", str(run), "--t-grid", "1,2,100", "--k-grid", "2,3"]) == 0
    capsys.readouterr()
    study = load_result(run).sensitivity
    assert study is not None and study.n_resamples == 80  # the run's own resample count
    assert [p.n_total for p in study.t_points] == pytest.approx([9.5, 7 + 32 / 9, 7 + 60400 / 10201])
    assert [p.skr for p in study.t_points] == pytest.approx(
        [7 / 9.5, 7 / (7 + 32 / 9), 7 / (7 + 60400 / 10201)]
    )
    assert [p.n_unseen for p in study.k_points] == pytest.approx([2.5, 2.625])
    # one resampler: the t study's band at the run's t is exactly the headline interval
    at_run_t = study.t_points[0]
    assert before.interval == (at_run_t.unseen_lower, at_run_t.unseen_upper)
    assert (
        before.curve[-1].t == 1
        and (before.curve[-1].unseen_lower, before.curve[-1].unseen_upper) == before.interval
    )


def test_sweep_without_cells_is_a_clear_error(tmp_path: Path, store: ResponseStore) -> None:
    base = CensusConfig(task="theorems", queries=2)
    with pytest.raises(ConfigError, match="no cell to run"):
        run_sweep(base, [], MockBackend(lambda r: "x"), store=store, out=tmp_path / "sw")
    assert not (tmp_path / "sw").exists()
