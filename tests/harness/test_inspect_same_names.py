"""Every log of one task has the same metric names, and a task argument is a field of its Config.

A recall log with part of its requests (``--limit``) or ``--epochs 2`` once held only the
``caveat_*`` metrics: its figures (accuracy, n…) were left out instead of being ``NaN`` as
docs/inspect.md says. And ``-T countrys=5`` on a plug-in whose Config ignores extra keys was dropped
without a word; every instrument's task now refuses an argument that is not a field of its Config.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util.error import PrerequisiteError
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput, get_model

from knowsum.errors import ConfigError
from knowsum.harness import make_config
from knowsum.harness.tasks import recall, register_plug_ins
from knowsum.instrument import instruments
from tests.harness._mock import log_metrics, output

RECALL = {"kb": "doid", "select": "sample", "sample": 4, "n_perm": 10}


def _recall(tmp_path: Path, **run: Any) -> EvalLog:
    (log,) = inspect_eval(
        recall(**RECALL),
        model=get_model("mockllm/model", custom_outputs=lambda *_a: output("DOID:0000000")),
        log_dir=str(tmp_path / "logs"),
        display="none",
        **run,
    )
    assert log.status == "success", log.error
    return log


def test_a_recall_log_that_cannot_be_scored_keeps_every_figure_as_nan(kb_home: Path, tmp_path: Path) -> None:
    whole = log_metrics(_recall(tmp_path / "whole"))
    names = {k for k in whole if not k.startswith("caveat_")}
    assert {"accuracy", "n", "invented_pct"} <= names
    for run, code in (({"limit": 2}, "caveat_partial"), ({"epochs": 2}, "caveat_epochs")):
        got = log_metrics(_recall(tmp_path / code, **run))
        assert got.keys() == whole.keys(), set(got) ^ set(whole)
        assert all(math.isnan(got[k]) for k in names), {k: got[k] for k in names}
        assert got[code] == 1.0


@pytest.mark.parametrize("instrument", sorted(instruments()))
def test_every_task_refuses_an_argument_its_config_does_not_have(instrument: str) -> None:
    with pytest.raises(ConfigError) as caught:
        make_config(instrument, {"no_such_argument": 5})
    message = str(caught.value)
    assert message.startswith(f"knowsum/{instrument}: unknown task argument -T no_such_argument=")
    assert "\n" not in message


def test_a_plug_in_task_refuses_a_typo_before_any_model_call(yes_plug_in: None, tmp_path: Path) -> None:
    """YesConfig ignores extra keys, as pydantic's BaseModel does by default."""
    assert register_plug_ins() == ["yes"]
    calls: list[int] = []

    def answer(*_a: Any) -> ModelOutput:
        calls.append(1)
        return output("Yes.")

    with pytest.raises(PrerequisiteError) as caught:
        inspect_eval(
            "knowsum/yes",
            task_args={"querys": 3},
            model=get_model("mockllm/model", custom_outputs=answer),
            log_dir=str(tmp_path / "logs"),
            display="none",
        )
    assert (
        str(caught.value.message)
        == "knowsum/yes: unknown task argument -T querys=: did you mean -T queries=?"
    )
    assert calls == [] and not (tmp_path / "logs").exists()
