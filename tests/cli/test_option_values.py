"""Option values that once ran wrong or ended in a traceback are one line each.

``census backtest RUN --seed -1`` (a ``ValueError`` traceback), ``--t "1,,3"`` (accepted as 1,3),
``-T queries=true`` under inspect (taken as 1 query) and a recall error that named the command
line's ``--popularity`` under inspect (which takes ``-T popularity=``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.harness._spec import as_task_args, make_config
from knowsum.recall import RecallConfig

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


@pytest.fixture
def run(tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": ["a", f"b{i}", f"c{i % 3}"]}) + "\n" for i in range(8))
    )
    out = tmp_path / "run"
    assert main(["census", "score", str(items), "--out", str(out), "--n-bootstrap", "5"]) == 0
    capsys.readouterr()
    return out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["census", "backtest", "{run}", "--seed", "-1"],
            "Invalid value for '--seed': -1 is not in the range x>=0",
        ),
        (["census", "backtest", "{run}", "--t", "1,,3"], "--t: an empty value in '1,,3'"),
        (["census", "backtest", "{run}", "--t", "1,"], "--t: an empty value in '1,'"),
        (["census", "sensitivity", "{run}", "--t-grid", "1,,3"], "--t-grid: an empty value"),
    ],
)
def test_a_bad_value_is_one_line(
    run: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main([a.format(run=run) for a in args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not (run / "backtest").exists()


def test_a_yes_no_value_for_a_number_is_refused_under_inspect() -> None:
    with pytest.raises(ConfigError, match=r"-T queries=true is a yes/no value"):
        make_config("census", {"task": "diseases", "queries": True})
    assert make_config("census", {"task": "diseases", "queries": 3}).queries == 3  # type: ignore[attr-defined]


def test_an_option_is_named_as_a_task_argument_under_inspect() -> None:
    text = "stratified selection needs popularity (use --popularity web|FILE|annotations); see --help"
    assert as_task_args(text, RecallConfig) == (
        "stratified selection needs popularity (use -T popularity=web|FILE|annotations); see --help"
    )
