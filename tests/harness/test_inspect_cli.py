"""``inspect eval knowsum/census -T task=diseases -T queries=8 --model mockllm/model``, the command, offline.

inspect's mockllm counts the tokens of its replies with tiktoken's o200k_base, which tiktoken would
download; the command runs in a fresh process whose knowsum home holds the file ``make test``
installed (``knowsum.harness.tokenizer``), with no tiktoken cache variable set and every download
sent to a proxy nobody listens on. The log must hold the census's figures — mockllm's fixed reply
names no disease, so N_seen = 0, and N̂_tot and its interval are absent with the caveat that says why —
and ``knowsum census score --inspect-log`` must reproduce them exactly.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from knowsum.census import load_result
from knowsum.cli import main
from knowsum.harness import figures
from tests.harness.conftest import RealTokenizer
from tests.harness.test_tokenizer import NO_NETWORK

pytestmark = pytest.mark.slow  # a fresh inspect process: ~8 s of CPU


def test_inspect_eval_census_on_mockllm_runs_offline_and_reads_back(
    kb_home: Path, real_tokenizer: RealTokenizer, tmp_path: Path
) -> None:
    target = kb_home / "tiktoken" / real_tokenizer.file.name
    target.parent.mkdir()
    shutil.copyfile(real_tokenizer.file, target)
    env = {k: v for k, v in os.environ.items() if k not in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR")}
    env.update(NO_NETWORK)
    logs = tmp_path / "logs"
    inspect = Path(sys.executable).with_name("inspect")
    args = ["-T", "task=diseases", "-T", "queries=8", "--model", "mockllm/model", "--display", "plain"]
    cmd = [str(inspect), "eval", "knowsum/census", *args, "--log-dir", str(logs)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (path,) = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.samples is not None and len(log.samples) == 8
    assert log.stats.model_usage["mockllm/model"].input_tokens > 0  # counted by tiktoken, offline
    assert log.results is not None
    got = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert got["N_seen"] == 0 and got["queries"] == 8
    assert "N_tot" not in got and "N_tot_lower" not in got and "N_tot_upper" not in got
    assert got["no verified item: nothing to estimate (N_seen = 0)"] == 1.0

    out = tmp_path / "run"
    assert main(["census", "score", "--inspect-log", str(path), "--out", str(out)]) == 0
    result = load_result(out)
    assert result.model == "mockllm/model" and result.backend == "inspect" and result.n_queries == 8
    values, caveats = figures(result)
    assert {k: got[k] for k in values} == values  # every figure, exactly
    assert set(got) - set(values) == set(caveats)
