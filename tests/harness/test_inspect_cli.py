"""``inspect eval knowsum/census -T task=diseases -T queries=8 --model mockllm/model``, the command, offline.

inspect's mockllm counts the tokens of its replies with tiktoken's o200k_base, which tiktoken would
download; the command runs in a fresh process whose knowsum home holds the file ``make test``
installed (``knowsum.harness.tokenizer``), with no tiktoken cache variable set and every download
sent to a proxy nobody listens on. The log must hold the census's figures — mockllm's fixed reply
names no disease, so N_seen = 0, and N̂_tot and its interval are NaN with the caveat that says why —
and ``knowsum census score --inspect-log`` must reproduce them exactly. ``--limit 3`` of a 6-query
census gives the census of 3 replies with the caveat ``partial``, which the read-back repeats, and
``inspect score`` re-scores a knowsum log with knowsum's own scorer and metrics.
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from knowsum.census import CensusRecord, load_result
from knowsum.cli import main
from knowsum.harness import figures
from tests.harness._mock import assert_same_metrics, log_metrics
from tests.harness.conftest import RealTokenizer
from tests.harness.test_tokenizer import NO_NETWORK

pytestmark = pytest.mark.slow  # a fresh inspect process: ~8 s of CPU


def _inspect(kb_home: Path, real_tokenizer: RealTokenizer, *args: str) -> subprocess.CompletedProcess[str]:
    """``inspect ARGS`` in a fresh process, offline, with the installed tokenizer in the knowsum home."""
    target = kb_home / "tiktoken" / real_tokenizer.file.name
    if not target.is_file():
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(real_tokenizer.file, target)
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env.update(NO_NETWORK)
    inspect = Path(sys.executable).with_name("inspect")
    done = subprocess.run([str(inspect), *args], capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done


def _eval(kb_home: Path, real_tokenizer: RealTokenizer, logs: Path, *args: str) -> Path:
    """``inspect eval knowsum/census ARGS --model mockllm/model``: the log it wrote."""
    cmd = ["eval", "knowsum/census", *args, "--model", "mockllm/model", "--display", "plain"]
    _inspect(kb_home, real_tokenizer, *cmd, "--log-dir", str(logs))
    (path,) = logs.glob("*.eval")
    return path


def _logged(
    kb_home: Path, real_tokenizer: RealTokenizer, tmp_path: Path, n: int, *args: str
) -> tuple[Path, EvalLog]:
    """The log of ``_eval(ARGS)``, read back: a finished run of ``n`` samples."""
    path = _eval(kb_home, real_tokenizer, tmp_path / "logs", *args)
    log = read_eval_log(str(path))
    assert log.status == "success" and log.samples is not None and len(log.samples) == n
    return path, log


def _read_back(path: Path, out: Path) -> CensusRecord:
    """``knowsum census score --inspect-log PATH --out OUT``: the record it wrote."""
    assert main(["census", "score", "--inspect-log", str(path), "--out", str(out)]) == 0
    return load_result(out)


def test_inspect_eval_census_on_mockllm_runs_offline_and_reads_back(
    kb_home: Path,
    real_tokenizer: RealTokenizer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path, log = _logged(kb_home, real_tokenizer, tmp_path, 8, "-T", "task=diseases", "-T", "queries=8")
    assert log.stats.model_usage["mockllm/model"].input_tokens > 0  # counted by tiktoken, offline
    assert log.results is not None
    got = log_metrics(log)
    assert got["N_seen"] == 0 and got["queries"] == 8
    assert all(math.isnan(got[k]) for k in ("N_tot", "N_tot_lower", "N_tot_upper"))  # undefined
    assert got["caveat_note"] == 1.0  # "no verified item: nothing to estimate (N_seen = 0)"

    result = _read_back(path, tmp_path / "run")
    assert result.model == "mockllm/model" and result.backend == "inspect" and result.n_queries == 8
    assert_same_metrics(log, result)  # every figure and caveat code, exactly
    assert ("note", "no verified item: nothing to estimate (N_seen = 0)") in figures(result)[1]

    # without --out the run is kept where --help says, census-runs/score-<log stem>, not in a
    # temporary folder removed before the command returns
    here = tmp_path / "cwd"
    here.mkdir()
    monkeypatch.chdir(here)
    assert main(["census", "score", "--inspect-log", str(path)]) == 0
    kept = load_result(here / "census-runs" / f"score-{path.stem}")
    assert kept.n_queries == 8 and kept.model == "mockllm/model"
    assert f"report: census-runs/score-{path.stem}/report.html" in capsys.readouterr().out


def test_limit_gives_a_partial_census_that_reads_back_and_inspect_score_rescores_it(
    kb_home: Path, real_tokenizer: RealTokenizer, tmp_path: Path
) -> None:
    path, log = _logged(kb_home, real_tokenizer, tmp_path, 3, "--limit", "3", "-T", "queries=6")
    got = log_metrics(log)
    assert got["queries"] == 3 and got["caveat_partial"] == 1.0
    result = _read_back(path, tmp_path / "run")
    assert result.n_queries == 3
    assert [c.message for c in result.caveats if c.kind == "partial"] == [
        "partial log: 3 of 6 requests answered (inspect eval --limit or --sample-id, an interrupted run, "
        "failed samples): the figures are those of the 3 replies"
    ]
    assert_same_metrics(log, result)

    # inspect's own verb: knowsum's scorer and metrics are found by the names the log holds
    rescored = tmp_path / "rescored.eval"
    score = ["score", str(path), "--action", "overwrite", "--output-file", str(rescored)]
    _inspect(kb_home, real_tokenizer, *score)
    again = read_eval_log(str(rescored))
    assert [s.name for s in again.eval.scorers or []] == ["knowsum/score"]
    assert log_metrics(again).keys() == got.keys()
    assert all(v == got[k] or (math.isnan(v) and math.isnan(got[k])) for k, v in log_metrics(again).items())
