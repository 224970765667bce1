"""A census never answers quietly wrong: a TASK and a --config together are refused, runs with other
settings get other default folders and never overwrite each other, and degenerate runs read true
(a single histogram bar, N_seen = 0, no rate before the first verified item)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, load_result, run_census
from knowsum.census.page import plots, summary_table
from knowsum.cli import main
from knowsum.models import MockBackend, ResponseStore

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "census"


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _small_census(tmp_path: Path) -> list[str]:
    """A 4-query disease census on the mock model, its store in ``tmp_path``."""
    store = str(tmp_path / "s.sqlite")
    return [
        "census",
        "run",
        "diseases",
        "-m",
        "mock",
        "--queries",
        "4",
        "--n-bootstrap",
        "0",
        "--store",
        store,
    ]


def test_task_and_config_together_are_refused_before_anything_runs(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    target = (EXAMPLES / "../../census-runs/bones-example").resolve()
    existed = target.exists()
    args = [
        "census",
        "run",
        "theorems",
        "--config",
        str(EXAMPLES / "bones.toml"),
        "-m",
        "mock",
        "--store",
        str(tmp_path / "s.sqlite"),
    ]
    code, out, err = _main(args, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "give a TASK or a --config that names one, not both" in err
    assert not (tmp_path / "census-runs").exists() and target.exists() == existed
    assert not (tmp_path / "s.sqlite").exists()  # no model asked, no store made


def test_default_folders_name_the_criterion_and_counting(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    base = _small_census(tmp_path)
    for extra in ([], ["--criterion", "strict"], ["--criterion", "strict", "--count", "incidence"]):
        code, _, err = _main([*base, *extra], capsys)
        assert code == 0, err
    runs = tmp_path / "census-runs"
    assert sorted(p.name for p in runs.iterdir()) == [
        "diseases-mock",
        "diseases-strict-incidence-mock",
        "diseases-strict-mock",
    ]
    assert load_result(runs / "diseases-mock").criterion == "relaxed"  # the plain name is the default census
    strict = load_result(runs / "diseases-strict-incidence-mock")
    assert (strict.criterion, strict.counting) == ("strict", "incidence")
    assert strict.identity is not None and strict.identity["criterion"] == "strict"


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_a_run_folder_holding_another_run_is_refused_unless_overwrite(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    census = [*_small_census(tmp_path), "--out", str(run)]
    code, _, err = _main(census, capsys)
    assert code == 0, err
    assert (run / "plots" / "kb_categories.png").is_file()
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    items = tmp_path / "items.jsonl"
    items.write_text(json.dumps({"query": "Q1", "items": ["a", "b"]}) + "\n")
    code, out, err = _main(["census", "score", str(items), "--out", str(run)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "holds a census run of diseases" in err and "--overwrite" in err
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before  # untouched
    # a rerun of the same census is the same run: allowed
    code, _, err = _main(census, capsys)
    assert code == 0, err
    args = ["census", "score", str(items), "--out", str(run), "--overwrite", "--n-bootstrap", "0"]
    code, _, err = _main(args, capsys)
    assert code == 0, err
    assert not (run / "plots" / "kb_categories.png").exists()  # nothing of the old run is left
    assert load_result(run).task == "score:items"


def test_single_bar_histogram_reads_as_s_equals_1() -> None:
    from knowsum.census import CensusRecord

    base = json.loads((Path(__file__).parent / "fixtures" / "result_v4.json").read_text())
    base.update(prevalence=[[1, 5]], version=4)
    result = CensusRecord.model_validate(CensusRecord.migrate(base, 4))
    fig, _ = plots(result)["prevalence"]
    lo, hi = fig.axes[0].get_xlim()
    assert lo <= 0 and hi >= 2  # was 0.6-1.4: one bar filling the axis, s unreadable
    ticks = [t for t in fig.axes[0].get_xticks() if lo <= t <= hi]
    assert 1 in ticks and all(float(t).is_integer() for t in ticks)


def test_no_verified_item_says_why_there_is_no_k(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = [
        "census",
        "run",
        "theorems",
        "-m",
        "mock",
        "--queries",
        "3",
        "--n-bootstrap",
        "0",
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(out),
    ]
    code, _, err = _main(args, capsys)
    assert code == 0, err
    result = load_result(out)
    assert result.n_seen == 0
    table = summary_table(result)
    assert "None" not in table and "none: no verified item, nothing to estimate (N_seen = 0)" in table
    # every figure such a census cannot have gives the one reason, never a bare dash
    for label in ("U(t), t = 100", "N_tot (estimated)", "N_tot confidence interval", "SKR", "error at own t"):
        line = next(x for x in table.splitlines() if x.startswith(label))
        assert line.rstrip().endswith("n/a: nothing to estimate (N_seen = 0)"), line
    assert "None" not in (out / "report.html").read_text().split("<body")[1].split("Prompt and example")[0]


def test_until_new_rate_progress_never_prints_inf(
    kb_home: Path, tmp_path: Path, store: ResponseStore
) -> None:
    said: list[str] = []
    backend = MockBackend(lambda r: "Nothing here." if r.sample_index < 10 else "1. Influenza\n2. Asthma")
    cfg = CensusConfig(task="diseases", queries=20, until_new_rate=0.5, batch_queries=5, n_bootstrap=0)
    result = run_census(cfg, backend, store=store, out=tmp_path / "run", echo=said.append).record
    progress = [line for line in said if "queries," in line]
    assert (
        progress[0]
        == "census: 5 queries, no verified item yet: nothing to estimate a new-item rate from, sampling on"
    )
    assert not any("inf" in line for line in said)
    assert result.stop is not None and result.stop.history[0] == (5, -1.0)


def test_a_census_of_one_observation_shows_no_interval_it_cannot_measure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every bootstrap resample of one observation gives the same Û: the census says "n/a: too few
    observations" (table, record) and warns, instead of presenting [Û, Û] as a 95 % interval."""
    items = tmp_path / "one.tsv"
    items.write_text("Q1\tflu\n", encoding="utf-8")
    code, out, err = _main(["census", "score", str(items), "--out", str(tmp_path / "run")], capsys)
    assert code == 0, err
    assert "degenerate bootstrap" in err and "tiny sample" in err
    # U(t), N_tot and SKR: each interval row says why it is empty
    assert out.count("n/a: too few observations") == 3 and "[6.795, 6.795]" not in out
    result = json.loads((tmp_path / "run" / "result.json").read_text(encoding="utf-8"))
    assert result["n_total"] == pytest.approx(1 + 100 * (1 - (100 / 101) ** 6), abs=1e-3)
    assert result["interval_total"] is None and result["interval_skr"] is None and result["interval"] is None
    assert result["interval_reason"] == "too few observations"
