"""A back-test's folder is claimed like every output folder, and a run folder's back-test is part of
the run: ``--overwrite`` may empty it, and a rewrite of the record drops the back-test of the old one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowsum._util import CLAIM_NAME
from knowsum.census import backtest_census
from knowsum.cli import main
from knowsum.errors import InputError
from knowsum.records import is_run_like
from tests.census.test_backtest import _score, _zipf_queries

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

QUICK = ["--t", "1", "--estimator", "sgt-k6", "--repeats", "3", "--n-bootstrap", "4"]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_another_backtest_is_refused_the_same_is_rewritten_and_overwrite_replaces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _score(tmp_path, _zipf_queries(30), "first")
    second = _score(tmp_path, _zipf_queries(30, seed=5), "second")
    out = tmp_path / "bt"
    assert main(["census", "backtest", str(first), *QUICK, "--out", str(out)]) == 0
    before = _files(out)
    capsys.readouterr()
    # another census run: refused, naming the run there and the one asked; nothing touched
    assert main(["census", "backtest", str(second), *QUICK, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "census run=../first (../second asked)" in err and "--overwrite" in err
    assert _files(out) == before
    # the same run with another setting: refused, naming that setting
    assert main(["census", "backtest", str(first), *QUICK[:-2], "--resamples", "5", "--out", str(out)]) == 2
    assert "resamples=4 (5 asked)" in capsys.readouterr().err and _files(out) == before
    # the same back-test: rewritten (the same seed: the same record but for its timing)
    assert main(["census", "backtest", str(first), *QUICK, "--out", str(out)]) == 0
    assert json.loads((out / "backtest.json").read_text())["run"] == str(first)
    # --overwrite: replaced by the other run's back-test
    assert main(["census", "backtest", str(second), *QUICK, "--out", str(out), "--overwrite"]) == 0
    assert json.loads((out / "backtest.json").read_text())["run"] == str(second)


def test_a_backtest_folder_written_before_claims_is_claimed_by_its_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _score(tmp_path, _zipf_queries(30), "first")
    second = _score(tmp_path, _zipf_queries(30, seed=5), "second")
    out = tmp_path / "bt"
    assert main(["census", "backtest", str(first), *QUICK, "--out", str(out)]) == 0
    (out / CLAIM_NAME).unlink()  # as an earlier knowsum left it
    capsys.readouterr()
    assert main(["census", "backtest", str(second), *QUICK, "--out", str(out)]) == 2
    assert "census run=../first (../second asked)" in capsys.readouterr().err
    assert json.loads((out / "backtest.json").read_text())["run"] == str(first)
    assert main(["census", "backtest", str(first), *QUICK, "--out", str(out)]) == 0


def test_a_failed_backtest_leaves_no_folder(tmp_path: Path) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    with pytest.raises(InputError):
        backtest_census(run, tmp_path / "bt", ts=[1], repeats=0, resamples=4)
    assert not (tmp_path / "bt").exists()


def test_a_run_holding_its_backtest_is_a_run_and_overwrite_replaces_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    assert main(["census", "backtest", str(run), *QUICK]) == 0
    assert (run / "backtest" / "plots" / "backtest.png").is_file() and is_run_like(run)
    other = tmp_path / "other.jsonl"
    other.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": ["a", f"b{i}"]}) + "\n" for i in range(9))
    )
    capsys.readouterr()
    assert main(["census", "score", str(other), "--out", str(run), "--n-bootstrap", "20", "--overwrite"]) == 0
    assert not (run / "backtest").exists()
    assert json.loads((run / "result.json").read_text())["task"] == "score:other"


def test_reestimating_a_run_drops_the_backtest_of_its_old_estimate(tmp_path: Path) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    assert main(["census", "backtest", str(run), *QUICK]) == 0
    items = tmp_path / "run.jsonl"
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20", "--name", "score:zipf"]
    assert main([*args, "--t", "10", "--k", "8"]) == 0  # the same items, estimated otherwise: accepted
    assert json.loads((run / "result.json").read_text())["t"] == 10
    assert not (run / "backtest").exists()


def test_dropping_a_backtest_is_said_never_silent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rewrite of the record (the same items scored again, or estimated otherwise) removes the
    back-test of the old record, and says so: one ``knowsum: note:`` line naming the folder on the
    command line, a :class:`~knowsum.errors.KnowsumNote` warning in the library; a rewrite with no
    back-test says nothing of one."""
    from knowsum.census import score_items
    from knowsum.census._config import CensusConfig
    from knowsum.errors import KnowsumNote

    run = _score(tmp_path, _zipf_queries(30))
    items = tmp_path / "run.jsonl"
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20", "--name", "score:zipf"]
    for rescore in (args, [*args, "--t", "10"]):
        assert main(["census", "backtest", str(run), *QUICK]) == 0
        capsys.readouterr()
        assert main(rescore) == 0
        err = capsys.readouterr().err
        assert f"knowsum: note: removed {run / 'backtest'}: it studied the run this write replaces" in err
        assert not (run / "backtest").exists()
    assert main(args) == 0 and "removed" not in capsys.readouterr().err
    assert main(["census", "backtest", str(run), *QUICK]) == 0
    config = CensusConfig(task="custom", n_bootstrap=20, seed=0)
    with pytest.warns(KnowsumNote, match="removed .*backtest: it studied the run this write replaces"):
        score_items(items, config, name="score:zipf", out=run)


def test_a_study_folder_holding_other_files_is_never_deleted(tmp_path: Path) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    notes = run / "backtest" / "notes.txt"
    notes.parent.mkdir()
    notes.write_text("mine")
    items = tmp_path / "run.jsonl"
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "20", "--name", "score:zipf"]
    assert main([*args, "--t", "10"]) == 0
    assert notes.read_text() == "mine"


def test_a_run_copied_with_its_backtest_is_still_that_backtests_run(tmp_path: Path) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    assert main(["census", "backtest", str(run), *QUICK]) == 0
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    assert main(["census", "backtest", str(copy), *QUICK]) == 0
    assert json.loads((copy / "backtest" / "backtest.json").read_text())["run"] == str(copy)
