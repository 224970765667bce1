"""Option values that once ran wrong or ended in a traceback are one line each.

``census backtest RUN --seed -1`` and ``census plan PILOT --seed -1`` (a ``ValueError`` traceback),
``--t "1,,3"`` (accepted as 1,3), ``census plan``'s one message for three options and
``census sensitivity``'s for two (neither named the option or the value at fault), ``-T queries=true``
under inspect (taken as 1 query) and a recall error that named the command line's ``--popularity``
under inspect (which takes ``-T popularity=``). Every ``--seed`` of the command tree is walked.
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.harness._spec import as_task_args, make_config
from knowsum.recall import RecallConfig
from tests._cli_tree import leaf_commands

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

PILOT = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study" / "theorems-0.5b.jsonl"


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
        (
            ["census", "sensitivity", "{run}", "--k-grid", "0,5"],
            "--k-grid: 0 is not a whole number in [1, 50] (in '0,5')",
        ),
        (["census", "sensitivity", "{run}", "--k-grid", "3,51"], "--k-grid: 51 is not a whole number"),
        (["census", "sensitivity", "{run}", "--t-grid", "1,-2"], "--t-grid: -2 is not a number > 0"),
        (["census", "sensitivity", "{run}", "--t-grid", "nan"], "--t-grid: nan is not a number > 0"),
        (
            ["census", "plan", "{pilot}", "--seed", "-1"],
            "Invalid value for '--seed': -1 is not in the range x>=0",
        ),
        (["census", "plan", "{pilot}", "--t", "0"], "Invalid value for '--t': 0 is not in the range x>0"),
        (["census", "plan", "{pilot}", "--t", "nan"], "Invalid value for '--t': nan is not a finite number"),
        (
            ["census", "plan", "{pilot}", "--error", "1"],
            "Invalid value for '--error': 1 is not in the range 0<x<1",
        ),
        (
            ["census", "plan", "{pilot}", "--replicates", "19"],
            "Invalid value for '--replicates': 19 is not in the range x>=20",
        ),
    ],
)
def test_a_bad_value_is_one_line(
    run: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    assert main([a.format(run=run, pilot=PILOT) for a in args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and message in err and "Traceback" not in err, err
    assert not (run / "backtest").exists()


def test_census_plan_help_states_every_limit(capsys: pytest.CaptureFixture[str]) -> None:
    """The limits the command enforces are on its --help, each beside its option."""
    assert main(["census", "plan", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    for shown in (
        "[default: 100.0; x>0]",
        "[default: 0.2; 0<x<1]",
        "[default: 100; x>=20]",
        "[default: 0; x>=0]",
    ):
        assert shown in text, text


def _with_option(flag: str) -> list[tuple[str, ...]]:
    """The path of every command with the option ``flag``."""
    return [
        path
        for path, command in leaf_commands()
        if any(flag in p.opts for p in command.params if isinstance(p, click.Option))
    ]


SEEDED = _with_option("--seed")


def test_the_walk_finds_the_seeded_commands() -> None:
    assert {("census", "plan"), ("census", "backtest"), ("census", "run"), ("estimate",)} <= set(SEEDED)


@pytest.mark.parametrize("command", SEEDED, ids=" ".join)
def test_every_seed_refuses_a_negative_value_in_one_line(
    tmp_home: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    """Every --seed is the shared option (a whole number >= 0): ``--seed -1`` is click's one line naming
    the option and the value, exit 2, before any argument is looked at (click checks the options in the
    order given), never a NumPy traceback."""
    assert main([*command, "--seed", "-1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("knowsum: error: Invalid value for '--seed': -1 is not in the range x>=0"), err


RESAMPLED = _with_option("--n-bootstrap")


def test_the_walk_finds_the_resampled_commands() -> None:
    assert {("census", "backtest"), ("census", "run"), ("census", "score"), ("estimate",)} <= set(RESAMPLED)


@pytest.mark.parametrize("command", RESAMPLED, ids=" ".join)
def test_every_n_bootstrap_refuses_one_resample_in_one_line(
    tmp_home: Path, capsys: pytest.CaptureFixture[str], command: tuple[str, ...]
) -> None:
    """One bootstrap resample has no spread (its interval is a point, its standard error undefined):
    every --n-bootstrap of the command tree refuses 1 in click's one line, before any argument is
    read, where it used to pass as a "degenerate" sample or end in a statistics error without the
    option's name. The configuration files and the library refuse it by the same rule."""
    assert main([*command, "--n-bootstrap", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("knowsum: error: Invalid value for '--n-bootstrap': 1 "), err
    # census backtest needs resamples on every split (x>=2); the others also take 0 for no interval
    assert (
        "1 is not in the range x>=2" if command == ("census", "backtest") else "has no spread: give 0"
    ) in err


def test_one_resample_is_refused_by_the_configs_and_the_library() -> None:
    from pydantic import ValidationError

    from knowsum.census import CensusConfig
    from knowsum.estimate import EstimateConfig
    from knowsum.stats import Prevalence, StatsError, summarize

    for config in (CensusConfig, EstimateConfig):
        with pytest.raises(
            ValidationError, match=r"n_bootstrap must be 0 \(no interval\) or a whole number >= 2"
        ):
            config(task="diseases", n_bootstrap=1) if config is CensusConfig else config(n_bootstrap=1)
        assert config(task="diseases", n_bootstrap=2) if config is CensusConfig else config(n_bootstrap=2)
    with pytest.raises(StatsError, match="got 1: one resample has no spread"):
        summarize(Prevalence.from_counts([3, 2, 1, 1]), n_bootstrap=1)


def test_a_yes_no_value_for_a_number_is_refused_under_inspect() -> None:
    with pytest.raises(ConfigError, match=r"-T queries=true is a yes/no value"):
        make_config("census", {"task": "diseases", "queries": True})
    assert make_config("census", {"task": "diseases", "queries": 3}).queries == 3  # type: ignore[attr-defined]


def test_an_option_is_named_as_a_task_argument_under_inspect() -> None:
    text = "stratified selection needs popularity (use --popularity web|FILE|annotations); see --help"
    assert as_task_args(text, RecallConfig) == (
        "stratified selection needs popularity (use -T popularity=web|FILE|annotations); see --help"
    )
