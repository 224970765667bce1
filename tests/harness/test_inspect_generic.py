"""``knowsum score INSTRUMENT --inspect-log LOG``: the one command that reads any instrument's inspect
log back, on knowsum's census (the same run directory as ``knowsum census score --inspect-log``) and
on a plug-in (tests/instrument/_yes.py); a log of another instrument is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model

from knowsum.census import CensusConfig, load_result
from knowsum.cli import main
from knowsum.harness import requests_of
from knowsum.harness.tasks import census, register_plug_ins
from knowsum.kb import load_ontology
from tests.census.zipf import disease_names
from tests.harness._mock import assert_same_metrics, output
from tests.instrument._registered import yes_plug_in
from tests.instrument._yes import YesRecord

__all__ = ["yes_plug_in"]


def _census_log(tmp_path: Path) -> EvalLog:
    """knowsum/census of 8 queries on mockllm answering sample i (found by its seed) with a few of
    five DOID diseases, one per line (every one named at least once)."""
    a, b, c, d, e = (name for _, name in disease_names(load_ontology("doid"), 5))
    texts = [f"{a}\n{b}\n{c}", f"{a}\n{d}", f"{b}\n{e}\n{a}", c] * 2
    args = {"task": "diseases", "queries": len(texts), "n_bootstrap": 50}
    by_seed = {r.seed: r.sample_index for r in requests_of("census", CensusConfig(**args))}

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        return output(texts[by_seed[cfg.seed]])

    model = get_model("mockllm/model", custom_outputs=answer)
    (log,) = inspect_eval(census(**args), model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    return log


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_score_census_is_census_score_inspect_log(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = _census_log(tmp_path)
    generic, own = tmp_path / "generic", tmp_path / "own"
    assert main(["score", "census", "--inspect-log", log.location, "--out", str(generic), "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["out_dir"] == str(generic) and Path(run["report"]).is_file()
    assert main(["census", "score", "--inspect-log", log.location, "--out", str(own), "--json"]) == 0
    capsys.readouterr()
    a, b = load_result(generic), load_result(own)
    assert a.model == "mockllm/model" and a.backend == "inspect" and a.n_seen == 5  # five diseases named
    timing = {"created", "run_id", "usage", "timings"}  # which run, when, how fast; every figure is the same
    assert a.model_dump(exclude=timing) == b.model_dump(exclude=timing)
    assert_same_metrics(log, a)
    by_key = {m["key"]: m["value"] for m in run["measures"]}
    assert by_key["census/diseases/relaxed/n_seen"] == 5


def test_score_a_plug_ins_log_and_refuse_another_instruments(
    yes_plug_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert register_plug_ins() == ["yes"]
    model = get_model("mockllm/model", custom_outputs=[output("Yes."), output("No."), output("yes")])
    (log,) = inspect_eval(
        "knowsum/yes", task_args={"queries": 3}, model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["score", "yes", "--inspect-log", log.location]) == 0
    assert "yes: share of yes  66.7%" in capsys.readouterr().out
    folder = tmp_path / "yes-runs" / f"score-{Path(log.location).stem}"  # the default folder
    record = YesRecord.model_validate_json((folder / "result.json").read_text(encoding="utf-8"))
    assert (record.yes, record.n) == (2, 3)
    assert_same_metrics(log, record)
    assert main(["score", "census", "--inspect-log", log.location]) == 2
    err = capsys.readouterr().err
    assert "a knowsum/yes log: read it with `knowsum score yes --inspect-log`" in err
    assert len(err.strip().splitlines()) == 1
