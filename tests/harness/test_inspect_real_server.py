"""knowsum's inspect tasks against a real model: llama-cpp-python's OpenAI-compatible server.

The server serves the embedded test model SmolLM2-135M (tests/models/_llama_server.py); inspect's
OpenAI-compatible provider (``openai-api/llama/smollm2`` with the server's base URL) asks it. Each
instrument runs as its inspect task, then its log is read back with ``knowsum <instrument> score
--inspect-log``: the run directory's record must hold exactly the figures and caveats of the log.
The census goes through the ``inspect eval`` command (the entry point, the provider's command-line
options); recall and genebench through ``inspect_ai.eval``.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model

from knowsum.census import load_result as load_census
from knowsum.cli import main
from knowsum.genebench import load_result as load_genebench
from knowsum.harness.tasks import genebench, recall
from knowsum.kb import installed
from knowsum.recall import load_result as load_recall
from knowsum.records import Record
from tests.harness._mock import assert_same_metrics
from tests.models._llama_server import ALIAS, LlamaServer, serve_test_model

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]

INSPECT_MODEL = f"openai-api/llama/{ALIAS}"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    """llama-cpp-python's server on 127.0.0.1 with the test model, for this module's tests."""
    yield from serve_test_model(tmp_path_factory)


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


def _read_back(instrument: str, log: EvalLog, out: Path, load: Callable[[Path], Record]) -> dict[str, float]:
    """``knowsum INSTRUMENT score --inspect-log``: the record's figures and caveats equal the log's."""
    assert main([instrument, "score", "--inspect-log", log.location, "--out", str(out)]) == 0
    record = load(out)
    assert (out / "report.html").is_file()
    assert record.model == INSPECT_MODEL and record.backend == "inspect"  # type: ignore[attr-defined]
    return assert_same_metrics(log, record)  # exactly: the same code on the same replies


def test_inspect_eval_census_on_the_server_and_read_back(server: LlamaServer, tmp_path: Path) -> None:
    if not installed("doid"):
        pytest.skip("run `knowsum kb install doid`")
    inspect = Path(sys.executable).with_name("inspect")
    logs = tmp_path / "logs"
    args = [
        "-T",
        "task=diseases",
        "-T",
        "queries=8",
        "--model",
        INSPECT_MODEL,
        "--model-base-url",
        server.base_url,
    ]
    cmd = [str(inspect), "eval", "knowsum/census", *args, "--log-dir", str(logs), "--display", "plain"]
    env = {**os.environ, "LLAMA_API_KEY": "none"}
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (path,) = logs.glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and log.samples is not None and len(log.samples) == 8
    assert len({s.output.completion for s in log.samples}) > 1  # distinct seeded draws
    values = _read_back("census", log, tmp_path / "run", load_census)
    assert values["N_seen"] > 0
    assert all(math.isfinite(values[k]) for k in ("N_tot", "SKR", "coverage"))
    if load_census(tmp_path / "run").interval_reason is None:
        assert math.isfinite(values["N_tot_lower"]) and math.isfinite(values["N_tot_upper"])
    else:  # an interval that cannot be a 95 % interval is no figure: the log's caveats say why
        assert math.isnan(values["N_tot_lower"]) and math.isnan(values["N_tot_upper"])
        assert _metrics(log)["caveat_interval_na"] == 1.0


def _eval(task: Any, server: LlamaServer, tmp_path: Path) -> EvalLog:
    model = get_model(INSPECT_MODEL, base_url=server.base_url, api_key="none")
    (log,) = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    return log


def test_recall_task_on_the_server_and_read_back(server: LlamaServer, tmp_path: Path) -> None:
    if not installed("go"):
        pytest.skip("run `knowsum kb install go`")
    log = _eval(recall(kb="go", per_bucket=1, n_perm=200), server, tmp_path)
    values = _read_back("recall", log, tmp_path / "run", load_recall)
    assert values["n"] == 50 and 0.0 <= values["accuracy"] <= 1.0


def test_genebench_task_on_the_server_and_read_back(server: LlamaServer, tmp_path: Path) -> None:
    if not installed("genes"):
        pytest.skip("run `knowsum kb install genes`")
    log = _eval(genebench(per_type=1, n_perm=200), server, tmp_path)
    values = _read_back("genebench", log, tmp_path / "run", load_genebench)
    assert math.isfinite(values["overall"]) and any("/" in k for k in values)  # type x perspective cells
