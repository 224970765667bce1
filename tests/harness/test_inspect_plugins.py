"""Plug-ins become inspect tasks with no more code.

- a census task from another package (the chemical elements of examples/plugin, which ``make
  install`` installs) is ``knowsum/census -T task=elements``;
- an instrument from another package (tests/instrument/_yes.py, registered through a patched
  entry-point list as a package's ``knowsum.instruments`` entry would be) is ``knowsum/yes``: its
  samples are its requests, its metrics its card rows, and its log reads back through its own run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from pydantic import BaseModel

from knowsum.harness import figures, make_config, requests_of, run_from_log
from knowsum.harness.tasks import census, register_plug_ins
from knowsum.instrument import instruments
from knowsum.records import Caveat
from tests.harness._mock import assert_same_metrics, output
from tests.instrument._registered import yes_plug_in
from tests.instrument._yes import YesRecord

__all__ = ["yes_plug_in"]


def _by_seed(instrument: str, config: BaseModel, reply: Any) -> Any:
    """mockllm answering the request of knowsum sample index i (found by its seed) with ``reply(i)``."""
    index = {r.seed: r.sample_index for r in requests_of(instrument, config)}

    def answer(_input: Any, _tools: Any, _choice: Any, cfg: GenerateConfig) -> ModelOutput:
        return output(reply(index[cfg.seed]))

    return get_model("mockllm/model", custom_outputs=answer)


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.status == "success" and log.results is not None, log.error
    return {name: m.value for s in log.results.scores for name, m in s.metrics.items()}


ELEMENTS = ["Hydrogen", "Helium", "Lithium", "Oxygen", "Carbon", "Neon", "Iron", "Gold"]


def test_a_plug_in_census_task_is_a_census_task(tmp_path: Path) -> None:
    pytest.importorskip("knowsum_elements", reason="make install installs examples/plugin")
    args = {"task": "elements", "queries": 6, "n_bootstrap": 50}
    config = make_config("census", args)
    # sample i names the first i + 3 elements, one per line: 8 distinct elements over the run
    model = _by_seed("census", config, lambda i: "\n".join(ELEMENTS[: i + 3]))
    (log,) = inspect_eval(census(**args), model=model, log_dir=str(tmp_path / "logs"), display="none")
    got = _metrics(log)
    assert got["N_seen"] == len(ELEMENTS)
    done, _ = run_from_log(log.location, "census", out=tmp_path / "run")
    assert_same_metrics(log, done.record)


def test_a_plug_in_instrument_is_an_inspect_task(yes_plug_in: None, tmp_path: Path) -> None:
    assert "yes" in instruments()
    assert register_plug_ins() == ["yes"]
    config = make_config("yes", {"queries": 3})
    model = _by_seed("yes", config, lambda i: "No." if i == 0 else "Yes.")
    (log,) = inspect_eval(
        "knowsum/yes", task_args={"queries": 3}, model=model, log_dir=str(tmp_path / "logs"), display="none"
    )
    got = _metrics(log)
    assert got["share"] == pytest.approx(2 / 3)
    assert got["share_lower"] < 2 / 3 < got["share_upper"]  # the Wilson interval of its card row
    done, read = run_from_log(log.location, "yes", out=tmp_path / "run")
    assert read.config == config and done.record.yes == 2  # type: ignore[attr-defined]
    assert_same_metrics(log, done.record)


def test_a_plug_in_records_caveats_are_among_its_figures_caveats(yes_plug_in: None) -> None:
    note = Caveat(kind="tiny-sample", mark="tiny sample", message="tiny sample: only 3 replies")
    record = YesRecord(model="m", backend="mock", config={"queries": 3}, n=3, yes=2)
    values, caveats = figures(record.model_copy(update={"caveats": [note]}))
    assert values == figures(record)[0] and values["share"] == pytest.approx(2 / 3)
    assert caveats == [*figures(record)[1], ("tiny-sample", "tiny sample: only 3 replies")]
