"""`knowsum census backtest` and the trust horizon every census carries."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from knowsum.census import _horizon, backtest_run, load_result, run_prevalence, trust_horizon
from knowsum.census._backtest import kept_size
from knowsum.census._horizon import MAX_ERROR, MIN_COVERAGE, horizon_caveat, horizon_from_rows
from knowsum.census.backtest_record import BacktestRow
from knowsum.cli import main
from knowsum.stats import Prevalence, estimate_unseen

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _score(tmp_path: Path, queries: list[list[str]], name: str = "run") -> Path:
    items = tmp_path / f"{name}.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": q}) + "\n" for i, q in enumerate(queries))
    )
    run = tmp_path / name
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20", "--name", "score:zipf"]
    assert main(args) == 0
    return run


def _zipf_queries(n_queries: int, per_query: int = 12, seed: int = 3) -> list[list[str]]:
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 801) ** 1.1
    return [[f"i{x}" for x in rng.choice(800, per_query, p=p / p.sum())] for _ in range(n_queries)]


def test_hand_computed_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Four queries {A, B, u_i}: every split of t = 1 keeps two (f1 = 2, f2 = 2; Q1 = Q2 = 2, T = 2) and
    the other two show exactly 2 new items, so every number is a hand computation:
      sgt-k6  2 · P(Bin(6, ½) ≥ 1) − 2 · P(Bin(6, ½) ≥ 2) = 2 (63 − 57)/64 = 0.1875
      good-toulmin  f1 − f2 = 0;  chao1  2·1/(2·3) = 1/3;  chao2  ½ · 1/3 = 1/6
      inext-incidence  Q̂0 = ½ · 4/4 = ½, A = 1 − 2/(2·½ + 2) = ⅓: ½ (1 − ⅓²) = 4/9
    """
    run = _score(tmp_path, [["A", "B", f"u{i}"] for i in range(4)])
    capsys.readouterr()
    result, prev = run_prevalence(run)
    bt = backtest_run(result, prev, str(run), ts=[1], repeats=7, resamples=4, seed=1)
    rows = {r.estimator: r for r in bt.rows}
    expected = {
        "sgt-k6": 0.1875,
        "good-toulmin": 0.0,
        "chao1": 1 / 3,
        "chao2": 1 / 6,
        "inext-incidence": 4 / 9,
    }
    for name, value in expected.items():
        r = rows[name]
        assert (r.kept_queries, r.t_effective, r.observed) == (2, 1.0, 2.0)
        assert r.predicted == pytest.approx(value) and r.bias == pytest.approx(value - 2)
        assert r.relative_rmse == pytest.approx(abs(value - 2) / 2)
    # the split agrees with `estimate` on the kept counts (A, B twice; two singletons)
    kept = Prevalence.from_counts([2, 2, 1, 1])
    for k in (6, 8, 10):
        assert rows[f"sgt-k{k}"].predicted == pytest.approx(max(estimate_unseen(kept, "et", 1.0, k).raw, 0.0))
    assert kept_size(4, 3) == 2 and kept_size(2, 1) is None  # t = 3 cannot keep 1 query of 4


def test_backtest_command_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _score(tmp_path, _zipf_queries(80))
    capsys.readouterr()
    args = ["census", "backtest", str(run), "--t", "1,3,99", "--repeats", "12", "--n-bootstrap", "6"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "sgt-heldout" in out and "inext-incidence" in out and "chao1-sc" in out and "trust horizon" in out
    folder = run / "backtest"
    assert out.rstrip().endswith(f"report: {folder / 'report.html'}")
    data = json.loads((folder / "backtest.json").read_text())
    assert data["ts"] == [1.0, 3.0, 99.0] and data["repeats"] == 12 and data["n_queries"] == 80
    assert {r["estimator"] for r in data["rows"]} >= {"sgt-k8", "good-toulmin", "inext-abundance", "chao2"}
    assert all(0 <= r["coverage"] <= 1 for r in data["rows"])
    html = (folder / "report.html").read_text()
    assert 'data-plot="backtest"' in html and (folder / "plots" / "backtest.png").stat().st_size > 0
    # --json: one object on stdout, the same numbers; the same seed gives the same rows
    assert main([*args, "--json", "--out", str(tmp_path / "again")]) == 0
    captured = capsys.readouterr()
    again = json.loads(captured.out)["backtest"]
    assert again["rows"] == data["rows"] and f"report: {tmp_path / 'again' / 'report.html'}" in captured.err
    # one estimator only
    assert main([*args[:3], "--estimator", "chao1", "--repeats", "3", "--out", str(tmp_path / "one")]) == 0
    one = json.loads((tmp_path / "one" / "backtest.json").read_text())
    assert {r["estimator"] for r in one["rows"]} == {"chao1"}


def test_the_old_spelling_resamples_still_runs_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--resamples`` (the back-test's first spelling of ``--n-bootstrap``) still works: the same
    cells, and one line on stderr that says what replaced it."""
    run = _score(tmp_path, _zipf_queries(30))
    capsys.readouterr()
    args = ["census", "backtest", str(run), "--t", "1", "--estimator", "sgt-k6", "--repeats", "4"]
    assert main([*args, "--n-bootstrap", "5", "--out", str(tmp_path / "new")]) == 0
    assert "renamed" not in capsys.readouterr().err
    assert main([*args, "--resamples", "5", "--out", str(tmp_path / "old")]) == 0
    err = capsys.readouterr().err
    assert "knowsum: note: --resamples is renamed --n-bootstrap" in err
    new, old = (json.loads((tmp_path / d / "backtest.json").read_text()) for d in ("new", "old"))
    assert old["resamples"] == new["resamples"] == 5 and old["rows"] == new["rows"]


def test_a_backtest_and_a_study_repeat_their_censuss_fields(tmp_path: Path) -> None:
    """The back-test is written as a Run (record, folder, page) like every run; it and the sensitivity
    study repeat exactly their declared fields of the census, with the census's values."""
    from knowsum.census import backtest_census, sensitivity
    from knowsum.census.backtest_record import Backtest
    from knowsum.census.record import Sensitivity
    from knowsum.records import Run

    run = _score(tmp_path, _zipf_queries(40))
    written = backtest_census(run, ts=[1], repeats=2, resamples=2)
    assert isinstance(written, Run) and written.out_dir == run / "backtest"
    assert written.report == run / "backtest" / "report.html" and written.report.is_file()
    result, prev = run_prevalence(run)
    assert Backtest.FROM_CENSUS == ("task", "model", "counting", "n_queries", "n_seen")
    assert {f: getattr(written.record, f) for f in Backtest.FROM_CENSUS} == {
        "task": "score:zipf",
        "model": result.model,
        "counting": "mention",
        "n_queries": 40,
        "n_seen": result.n_seen,
    }
    study = sensitivity(prev, result, t_grid=(1, 10), k_grid=(2, 4), n_shuffles=2)
    assert Sensitivity.FROM_CENSUS == ("t", "estimator", "k", "interval_method")
    assert [getattr(study, f) for f in Sensitivity.FROM_CENSUS] == [
        result.t,
        result.estimator,
        result.k,
        result.interval_method,
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--t", "0"], "--t: invalid t=0"),
        (["--t", "1,x"], "--t: expected comma-separated values"),
        (["--repeats", "0"], "Invalid value for '--repeats': 0 is not in the range x>=1"),
        (["--resamples", "1"], "Invalid value for '--resamples': 1 is not in the range x>=2"),
        (["--estimator", "nope"], "nope"),
    ],
)
def test_backtest_bad_input_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    run = _score(tmp_path, _zipf_queries(10))
    capsys.readouterr()
    assert main(["census", "backtest", str(run), *extra]) == 2
    assert message in capsys.readouterr().err
    assert not (run / "backtest").exists()


def test_backtest_refuses_its_own_run_and_a_missing_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _score(tmp_path, _zipf_queries(10))
    before = sorted(p.name for p in run.iterdir())
    capsys.readouterr()
    assert main(["census", "backtest", str(run), "--out", str(run)]) == 2
    err = capsys.readouterr().err  # the write guard (or the back-test's own check) names the folder
    assert str(run) in err and ("over an input" in err or "the run itself" in err)
    assert sorted(p.name for p in run.iterdir()) == before
    assert main(["census", "backtest", str(tmp_path / "none")]) == 2
    other = _score(tmp_path, _zipf_queries(10, seed=5), "other")  # another run's folder: refused
    before_page = (other / "report.html").read_bytes()
    capsys.readouterr()
    assert main(["census", "backtest", str(run), "--out", str(other), "--repeats", "2"]) == 2
    assert str(other) in capsys.readouterr().err and (other / "report.html").read_bytes() == before_page


def test_every_census_carries_its_horizon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = _score(tmp_path, _zipf_queries(60))
    out = capsys.readouterr().out
    result = load_result(run)
    assert result.horizon is not None and result.horizon.estimator == f"sgt-k{result.k}"
    assert result.horizon.message in out and "trust horizon" in out
    assert result.horizon.message in (run / "report.html").read_text()
    items = tmp_path / "run.jsonl"
    assert (
        main(["census", "score", str(items), "--out", str(tmp_path / "j"), "--n-bootstrap", "20", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["horizon_text"] == result.horizon.message and data["horizon"]["t"] == result.horizon.t
    # the census's horizon is trust_horizon on the same sample with the same seed
    _, prev = run_prevalence(run)
    again = trust_horizon(prev, "et", result.k, result.t, seed=0)
    assert again == result.horizon
    # a tiny run says so; an empty one is too small
    tiny = _score(tmp_path, [["A"], ["B"]], "tiny")
    assert load_result(tiny).horizon is not None
    assert load_result(tiny).horizon.status == "too-small"  # type: ignore[union-attr]
    assert "too small to back-test" in capsys.readouterr().out


def test_the_horizon_checks_the_censuss_own_t(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run whose every grid t passes is back-tested at its own t too, and then has no caveat."""
    _, prev = run_prevalence(_score(tmp_path, _zipf_queries(60)))
    monkeypatch.setattr(_horizon, "_passes", lambda row: True)
    held = trust_horizon(prev, "et", 8, 5.0, ts=(1.0, 3.0))
    assert held.checked == [1.0, 3.0, 5.0] and held.t == 5.0 and horizon_caveat(held) is None
    monkeypatch.setattr(_horizon, "_passes", lambda row: row.t < 5.0)
    short = trust_horizon(prev, "et", 8, 5.0, ts=(1.0, 3.0))
    assert short.t == 3.0 and horizon_caveat(short) is not None


def _row(t: float, bias: float | None, coverage: float, se: float = 0.005, repeats: int = 800) -> BacktestRow:
    """A row whose bias is ``bias`` of N_tot = 100 (s.e. ``se``) and whose prediction interval
    covered ``coverage`` of ``repeats`` splits."""
    return BacktestRow(
        estimator="sgt-k8",
        family="f",
        t=t,
        t_effective=t,
        kept_queries=10,
        predicted=1.0,
        observed=50.0,
        bias=None if bias is None else 100 * bias,
        relative_bias=None if bias is None else 2 * bias,
        relative_rmse=None if bias is None else 0.3,
        coverage=coverage,
        no_interval=0.0,
        band=(0.0, 1.0),
        diverged=0.0 if bias is not None else 1.0,
        repeats=repeats,
        pi_coverage=coverage,
        n_total=100.0,
        bias_se=100 * se,
    )


def test_horizon_rule_by_enumeration() -> None:
    """The largest t passing both tests with every smaller t passing too; each way to fail named.
    A t fails when |bias|/N_tot is significantly above MAX_BIAS (99 %: |b| − 2.576 s.e.) or the
    prediction interval's coverage significantly below MIN_COVERAGE (one-sided 99 % Wilson bound)."""
    ok, biased, low = (0.0, 0.95), (MAX_ERROR + 0.05, 0.95), (0.0, 0.85)
    noisy = (MAX_ERROR + 0.02, 0.95, 0.02)  # 12 % ± 2 %: not significantly beyond 10 %
    cases = [
        ([ok, ok, biased], "back-tested", 3.0),
        ([ok, low, ok], "back-tested", 1.0),  # a later pass does not count after a failure
        ([ok, ok, ok], "back-tested", 9.0),
        ([noisy, ok, ok], "back-tested", 9.0),
        ([biased, ok, ok], "fails", None),
        ([low], "fails", None),
        ([(None, 1.0)], "fails", None),  # diverged
        ([], "too-small", None),
    ]
    for spec, status, t in cases:
        rows = [_row(ti, *c) for ti, c in zip((1.0, 3.0, 9.0), spec, strict=False)]
        h = horizon_from_rows(rows, "sgt-k8", 100.0, 10, 5)
        assert (h.status, h.t) == (status, t), spec
        if status == "back-tested":
            assert f"back-tested to t = {t:g}" in h.message and "t = 100 is beyond" in h.message
        elif status == "fails":
            assert "not back-tested even at t = 1" in h.message
        else:
            assert h.message == "too small to back-test"
    assert MIN_COVERAGE == 0.90
    # 680 of 800 (85 %): the one-sided 99 % Wilson upper bound is below 90 %; 704 of 800 (88 %) is not
    assert horizon_from_rows([_row(1.0, 0.0, 0.85)], "sgt-k8", 100.0, 10, 0).coverage_bound < MIN_COVERAGE
    assert horizon_from_rows([_row(1.0, 0.0, 0.88)], "sgt-k8", 100.0, 10, 0).status == "back-tested"


def test_every_surface_names_the_horizon(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CLI table, --json, report page, compare (table, JSON, page) and the profile card: one sentence."""
    from knowsum.census import INSTRUMENT

    runs = [_score(tmp_path, _zipf_queries(40, seed=s), f"run{s}") for s in (1, 2)]
    out = capsys.readouterr().out
    results = [load_result(r) for r in runs]
    messages = [r.horizon.message for r in results if r.horizon is not None]
    assert len(messages) == 2 and all(m in out for m in messages)
    assert all(m in (r / "report.html").read_text() for m, r in zip(messages, runs, strict=True))
    page = tmp_path / "compare.html"
    assert main(["census", "compare", *map(str, runs), "--html", str(page)]) == 0
    table = capsys.readouterr().out
    assert "trust horizon" in table
    assert all(f"t = {r.horizon.t:g}" in table for r in results if r.horizon and r.horizon.t is not None)
    assert main(["census", "compare", *map(str, runs), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert sorted(row["horizon"] for row in rows) == sorted(messages)
    assert "trust horizon" in page.read_text()
    card = {m.key.rsplit("/", 1)[-1]: m for m in INSTRUMENT.measures(results[0], "run1")}
    assert f"trust horizon: {messages[0]}" in card["n_total"].notes
    assert not any("trust horizon" in c for c in card["skr"].notes)


def test_backtest_help_shows_each_range_and_one_split_has_no_standard_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--help`` shows the range of ``--repeats`` and ``--n-bootstrap``; a standard error from one split
    is n/a (``None``, printed without ``±``), never ``± 0%``; a file written before that rule reads so."""
    assert main(["census", "backtest", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "[default: 100; x>=1]" in help_text and "[default: 50; x>=2]" in help_text
    run = _score(tmp_path, _zipf_queries(30))
    capsys.readouterr()
    assert main(["census", "backtest", str(run), "--t", "1", "--estimator", "sgt-k6", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "± 0%" not in out and "1 split per t," in out
    # one split is no share: the coverage cells say what that split did, never a bare 100% or 0%
    row_text = next(line for line in out.splitlines() if line.startswith("1 (1)"))
    assert row_text.count(" (1 split)") == 2 and "100%" not in row_text and " 0% " not in row_text
    data = json.loads((run / "backtest" / "backtest.json").read_text())
    (row,) = data["rows"]
    assert row["repeats"] == 1 and row["coverage_se"] is None and row["pi_coverage_se"] is None
    old = {**row, "coverage_se": 0.0, "pi_coverage_se": 0.0, "bias_se": 0.0}
    assert BacktestRow.model_validate(old).coverage_se is None
    assert BacktestRow.model_validate({**old, "repeats": 2}).coverage_se == 0.0


def test_a_horizon_stopped_by_a_failure_says_so_not_the_census_size() -> None:
    """Where the splits reached a larger t and failed there, the message names that t and why (the
    estimator's bias), never "beyond what the splits of this run reach" (the census's size); the
    coverage of 199 of 200 splits reads ">99%", never "100%"."""
    ok, biased = (0.0, 0.95), (MAX_ERROR + 0.05, 0.95)
    rows = [_row(ti, *c) for ti, c in zip((1.0, 3.0, 9.0), [ok, ok, biased], strict=True)]
    h = horizon_from_rows(rows, "sgt-k8", 100.0, 10, 5)
    assert h.t == 3.0 and "it fails at t = 9 (10 of 100 queries kept; bias +15.0% ±" in h.message
    assert "reach" not in h.message
    short = horizon_from_rows(rows[:2], "sgt-k8", 100.0, 10, 5)  # nothing failed: the splits stop short
    assert "t = 100 is beyond what the splits of this run reach" in short.message
    nearly = horizon_from_rows([_row(1.0, 0.0, 0.995, repeats=200)], "sgt-k8", 100.0, 10, 5)
    assert "prediction interval covers >99% of 200 splits" in nearly.message
