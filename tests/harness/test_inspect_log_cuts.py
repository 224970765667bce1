"""An inspect log is read back whole, or refused: none of its replies is dropped, none is missing.

``inspect eval --limit 2`` of a 5-query census once scored 2 of 5 queries with no caveat, and
``--epochs 2`` kept one epoch per request and dropped the other silently: both are now refused in one
line saying what the log holds and what to run instead. The full log still reads back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from knowsum.cli import main
from knowsum.harness.tasks import census
from knowsum.kb import load_ontology
from tests.census.zipf import disease_names, make_responses
from tests.harness._mock import output

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

QUERIES = 5


def _log(kb_home: Path, tmp_path: Path, **run: Any) -> EvalLog:
    texts = make_responses(disease_names(load_ontology("doid"), 40), QUERIES, 6)[0]
    calls: list[int] = []

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        calls.append(1)
        return output(texts[len(calls) % len(texts)])

    (log,) = inspect_eval(
        census(task="diseases", queries=QUERIES, n_bootstrap=10),
        model=get_model("mockllm/model", custom_outputs=answer),
        log_dir=str(tmp_path / "logs"),
        display="none",
        **run,
    )
    assert log.status == "success" and log.location
    return log


def _score(log: EvalLog, out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["census", "score", "--inspect-log", str(log.location), "--out", str(out)])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"limit": 2}, "the log answers 2 of the task's 5 requests (cut by inspect eval --limit?)"),
        ({"epochs": 2}, "is answered more than once (epoch 2: inspect eval --epochs)"),
    ],
)
def test_a_cut_or_repeated_log_is_refused(
    kb_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    run: dict[str, Any],
    message: str,
) -> None:
    code, err = _score(_log(kb_home, tmp_path, **run), tmp_path / "run", capsys)
    assert code == 2 and err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "run").exists()


def test_the_whole_log_reads_back(kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _score(_log(kb_home, tmp_path), tmp_path / "run", capsys)
    assert code == 0, err
    assert (tmp_path / "run" / "result.json").is_file()
