"""An instrument's harness facts come from the instrument, so a plug-in has every one a built-in has.

The yes plug-in (tests/instrument/_yes.py) given, one at a time, the hooks knowsum's instruments
use: its own figures (``figures``: names, intervals that may be n/a, caveats under their codes), its
task's defaults, argument reading and summary (``task_defaults``, ``task_args``, ``task_summary``),
the items of each reply (``reply_items``) and epochs that are draws (``draws``). The built-ins' own
figures are unchanged by the move (checked by the inspect tests of each instrument).
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from knowsum.harness import caveat_codes, figures, make_config, metric_values, run_from_log
from knowsum.harness.tasks import TASKS, register_plug_ins
from knowsum.instrument import get_instrument, wilson
from knowsum.records import Caveat
from knowsum.records.profile import Measure
from tests.harness._mock import assert_same_metrics
from tests.harness.test_inspect_plugins import _by_seed, _metrics
from tests.instrument._yes import YesInstrument, YesRecord

RECORD = YesRecord(model="m", backend="mock", config={"queries": 3}, n=3, yes=2)


def _figures(self: YesInstrument, record: YesRecord) -> list[Measure]:
    """Three figures: one with an interval, one without, one whose interval is n/a (and why)."""
    tiny = Caveat(kind="tiny-sample", mark="tiny sample", message="only 3 replies")
    odd = Caveat(kind="odd-replies", mark="odd", message="some replies say neither")
    return [
        self.measure(
            "share", "share", record.yes / record.n, "yes / n", run="", interval=wilson(record.yes, 3)
        ),
        self.measure("asked", "asked", record.n, "replies", run="", caveats=["asked thrice"]),
        self.measure(
            "spread",
            "spread",
            None,
            "–",
            run="",
            interval=(None, None),
            interval_reason="one run",
            marks=[tiny, odd],
        ),
    ]


def test_an_instruments_figures_are_its_figure_rows(
    yes_plug_in: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    card = figures(RECORD)  # the default: its card rows
    assert list(card[0]) == ["share", "share_lower", "share_upper"] and card[1] == []
    monkeypatch.setattr(YesInstrument, "figures", _figures)
    values, caveats = figures(RECORD)
    names = ["share", "share_lower", "share_upper", "asked", "spread", "spread_lower", "spread_upper"]
    assert list(values) == names  # an n/a interval keeps its names (NaN): the same names every run
    assert values["share"] == pytest.approx(2 / 3) and values["asked"] == 3.0
    assert (values["share_lower"], values["share_upper"]) == pytest.approx(wilson(2, 3))
    assert all(math.isnan(values[n]) for n in ("spread", "spread_lower", "spread_upper"))
    # a row's caveats are notes; its marks keep their kind when it is a caveat code, else are notes
    assert caveats == [
        ("note", "asked thrice"),
        ("tiny-sample", "tiny sample: only 3 replies"),
        ("note", "odd: some replies say neither"),
    ]


def test_a_tasks_defaults_arguments_and_summary_are_the_instruments(
    yes_plug_in: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert "census" in TASKS and inspect.signature(TASKS["census"]).parameters["task"].default == "diseases"
    assert inspect.signature(TASKS["recall"]).parameters["kb"].default == "go"
    assert make_config("recall", {"kb": "go", "per_bucket": 3}).select == "stratified"  # type: ignore[attr-defined]
    monkeypatch.setattr(YesInstrument, "task_summary", "Ask whether water is wet.")
    monkeypatch.setattr(YesInstrument, "task_defaults", lambda self: {"queries": 2})
    monkeypatch.setattr(
        YesInstrument,
        "task_args",
        lambda self, given: {("queries" if k == "times" else k): v for k, v in given.items()},
    )
    assert register_plug_ins() == ["yes"]
    yes = TASKS["yes"]
    assert inspect.signature(yes).parameters["queries"].default == 2
    assert (yes.__doc__ or "").startswith("Ask whether water is wet.")
    assert make_config("yes", {"times": 5}).queries == 5  # type: ignore[attr-defined]
    task = yes()
    assert len(task.dataset) == 2  # its default: two requests


def _items(self: YesInstrument, config: Any) -> Any:
    def items(text: str, index: int) -> list[dict[str, Any]]:
        valid = "yes" in text.lower()
        return [{"text": text, "status": "valid" if valid else "not yes", "key": "yes", "name": "agrees"}]

    return items


def test_epochs_are_draws_and_each_reply_is_itemized_when_the_instrument_says_so(
    yes_plug_in: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``draws = "queries"``: epoch 2 of sample index i is the request of index i + Q, so 2 epochs of 3
    queries read back as 6 queries; ``reply_items``: the scorer keeps each reply's items."""
    monkeypatch.setattr(YesInstrument, "draws", "queries")
    monkeypatch.setattr(YesInstrument, "reply_items", _items)
    assert register_plug_ins() == ["yes"] and get_instrument("yes").draws == "queries"
    drawn = make_config("yes", {"queries": 6})  # the seeds of both epochs' requests
    model = _by_seed("yes", drawn, lambda i: "No." if i in (0, 4) else "Yes.")
    (log,) = inspect_eval(
        "knowsum/yes",
        task_args={"queries": 3},
        epochs=2,
        model=model,
        log_dir=str(tmp_path / "l"),
        display="none",
    )
    got = _metrics(log)
    assert got["share"] == pytest.approx(4 / 6) and got["caveat_epochs"] == 0.0
    assert log.samples is not None
    first = next(s for s in log.samples if s.metadata["sample_index"] == 0 and s.epoch == 1)
    score = next(iter((first.scores or {}).values()))
    assert score.value == 0 and score.explanation == "0 of 1 items verified"  # "No." is not yes
    done, _ = run_from_log(log.location, "yes", out=tmp_path / "run")
    assert done.record.n == 6 and done.record.yes == 4  # type: ignore[attr-defined]
    assert_same_metrics(log, done.record)


def test_an_instruments_own_caveat_codes_are_metrics_of_every_task(
    yes_plug_in: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``caveat_codes``: a mark of that kind keeps its code, and every log has its ``caveat_<code>``."""
    monkeypatch.setattr(YesInstrument, "figures", _figures)
    monkeypatch.setattr(YesInstrument, "caveat_codes", ("odd-replies",))
    codes = caveat_codes()
    assert codes[-3:] == ("popularity-na", "type-not-asked", "odd-replies")  # recall's, genebench's, its own
    values, caveats = figures(RECORD)
    assert ("odd-replies", "odd: some replies say neither") in caveats
    metrics = metric_values((values, caveats))
    assert metrics["caveat_odd_replies"] == 1.0 and metrics["caveat_popularity_na"] == 0.0
