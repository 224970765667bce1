"""An inspect run on a profile page: ``inspect eval`` → ``census score --inspect-log`` → ``profile page``.

Two censuses run as inspect tasks on inspect's mockllm (the Zipf draw over real DOID names of
test_inspect_census.py, relaxed and strict), each log read back into a run directory; ``knowsum profile
page`` places both on one page, asking nothing. The card's N_seen, N̂_tot and its interval must be the
logs' metrics, and the page must link each run's report. Runs of another model, the same run twice and
two runs giving the same card row are refused in one line, and nothing is written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from knowsum.census import CensusConfig
from knowsum.cli import main
from knowsum.harness.tasks import census
from tests.harness.test_inspect_census import QUERIES, _got, _mock, texts

__all__ = ["texts"]

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _log(texts: list[str], tmp_path: Path, criterion: str) -> EvalLog:
    args: dict[str, Any] = {
        "task": "diseases",
        "queries": QUERIES,
        "n_bootstrap": 100,
        "criterion": criterion,
    }
    (log,) = inspect_eval(
        census(**args),
        model=_mock(texts, CensusConfig(**args)),
        log_dir=str(tmp_path / f"logs-{criterion}"),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def _score(log: EvalLog, out: Path) -> Path:
    assert main(["census", "score", "--inspect-log", log.location, "--out", str(out)]) == 0
    return out


def test_runs_read_back_from_inspect_logs_make_a_profile_page(
    texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = {c: _log(texts, tmp_path, c) for c in ("relaxed", "strict")}
    runs = {c: _score(log, tmp_path / "runs" / c) for c, log in logs.items()}
    page = tmp_path / "profile"
    capsys.readouterr()
    assert (
        main(["profile", "page", str(runs["relaxed"]), str(runs["strict"]), "--out", str(page), "--json"])
        == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert shown["model"] == "mockllm/model" and shown["backend"] == "inspect"
    assert shown["budget"].startswith("runs #") and list(shown["instruments"]) == ["census"]
    part = shown["instruments"]["census"]
    assert part["runs"] == {"relaxed": "../runs/relaxed", "strict": "../runs/strict"}
    assert part["usage"]["requests"] == 2 * QUERIES and part["usage"]["asked"] == 0  # the page asked nothing
    # two runs of one instrument: their records cannot say which requests they share, and the page says so
    assert any("counts once for each" in n for n in shown["notes"])
    rows = {m["key"]: m for m in part["measures"]}
    for criterion, log in logs.items():
        got = _got(log)
        seen, total = (
            rows[f"census/diseases/{criterion}/n_seen"],
            rows[f"census/diseases/{criterion}/n_total"],
        )
        assert seen["value"] == got["N_seen"] > 0
        assert (total["value"], total["lower"], total["upper"]) == (
            got["N_tot"],
            got["N_tot_lower"],
            got["N_tot_upper"],
        )
        assert total["run"] == f"../runs/{criterion}"
        assert (page / total["run"] / "report.html").is_file()
    html = (page / "index.html").read_text(encoding="utf-8")
    assert 'href="../runs/relaxed/report.html"' in html and "mockllm/model" in html
    assert "counts once for each" in html  # the note is on the page, beside the usage it qualifies
    assert json.loads((page / "profile.json").read_text())["budget"] == shown["budget"]
    # the same runs again: the page is rewritten, its budget (the runs' configurations) unchanged
    assert main(["profile", "page", str(runs["strict"]), str(runs["relaxed"]), "--out", str(page)]) == 0
    assert json.loads((page / "profile.json").read_text())["budget"] == shown["budget"]


def _refused(argv: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err


def test_a_page_refuses_other_models_the_same_run_twice_and_a_row_given_twice(
    texts: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _log(texts, tmp_path, "relaxed")
    run = _score(log, tmp_path / "run")
    again = _score(log, tmp_path / "again")  # the same log read back twice: another run, the same rows
    copy = tmp_path / "copy"
    shutil.copytree(run, copy)
    other = tmp_path / "other-model"
    shutil.copytree(run, other)
    record = json.loads((other / "result.json").read_text())
    (other / "result.json").write_text(json.dumps({**record, "model": "openai/gpt-4o-mini"}))
    page = ["profile", "page", "--out", str(tmp_path / "page")]
    _refused([*page, str(run), str(other)], "are runs of different models", capsys)
    _refused([*page, str(run), str(copy)], "are the same run twice", capsys)
    _refused([*page, str(run), str(again)], "both give census/diseases/relaxed/n_seen", capsys)
    _refused([*page, str(tmp_path)], "not the record of a finished run of an installed instrument", capsys)
    _refused([*page, str(tmp_path / "missing")], "no such run directory", capsys)
    note = tmp_path / "afile.txt"
    note.write_text("not a run")
    _refused([*page, str(note)], f"{note}: not a run directory nor its result.json", capsys)
    assert not (tmp_path / "page").exists()
