"""A census record whose numbers are out of their domain is refused when it is read: one
InputFileError naming the file and the field, never a traceback or a back-test of nonsense."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from knowsum.census import load_result
from knowsum.cli import main
from knowsum.errors import InputFileError
from tests.census.test_backtest import _score, _zipf_queries

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

OWN = {
    "counts",
    "prevalence",
    "n_queries",
    "n_observations",
    "n_seen",
    "n_unseen",
    "n_unseen_raw",
    "n_total",
    "skr",
    "interval",
    "interval_total",
    "interval_skr",
    "prediction_interval",
    "prediction_interval_total",
    "level",
    "t",
    "k",
    "k_errors",
    "curve",
    "heldout",
    "top_items",
    "concept_words",
    "timings",
    "horizon",
}
"""The numbers the census record's own module defines, and its trust horizon (its sub-records from
other modules, the richness, stop rule, own-t check…, are checked by theirs)."""

SIGNED = {"n_unseen_raw", "unseen_raw", "unseen_lower", "unseen_upper", "unseen_pred_lower"}
SIGNED |= {"unseen_pred_upper", "estimated", "interval", "interval_total", "prediction_interval"}
SIGNED |= {"prediction_interval_total", "bias"}
"""Where a negative number is a legitimate value: Û as computed, a bias, and interval ends (a
re-centred percentile interval may reach below 0)."""


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    run = _score(tmp_path_factory.mktemp("corrupt"), _zipf_queries(30))
    data: dict[str, Any] = json.loads((run / "result.json").read_text())
    return data


def _leaves(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[tuple[Any, ...], float]]:
    """Every number under ``value`` (the first of each list), by its path."""
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _leaves(inner, (*path, key))
    elif isinstance(value, list) and value:
        yield from _leaves(value[0], (*path, 0))
        if isinstance(value[0], int | float) and len(value) == 2:  # an (s, n_s) pair, an interval
            yield from _leaves(value[1], (*path, 1))
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield path, value


def _set(data: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(data))
    here = copy
    for step in path[:-1]:
        here = here[step]
    here[path[-1]] = value
    return dict(copy)


def _refused(tmp_path: Path, data: dict[str, Any], field: str) -> str:
    file = tmp_path / "result.json"
    file.write_text(json.dumps(data))
    with pytest.raises(InputFileError) as caught:
        load_result(file)
    message = str(caught.value)
    assert str(file) in message and f"field {field}:" in message
    return message


def test_every_number_of_the_record_is_refused_out_of_its_domain(
    record: dict[str, Any], tmp_path: Path
) -> None:
    """Walk every number of the census record's own fields: a negative count, size, factor or share
    is refused by name, except where a negative value is legitimate (:data:`SIGNED`)."""
    walked = [(path, v) for path, v in _leaves({k: record[k] for k in OWN}, ()) if path[0] in OWN]
    assert {p[0] for p, _ in walked} >= {"counts", "prevalence", "curve", "heldout", "top_items", "horizon"}
    for path, _ in walked:
        bad = _set(record, path, -1)
        if SIGNED & {str(p) for p in path}:
            load_result_ok(tmp_path, bad)
        else:
            _refused(tmp_path, bad, ".".join(str(p) for p in path))


def load_result_ok(tmp_path: Path, data: dict[str, Any]) -> None:
    file = tmp_path / "result.json"
    file.write_text(json.dumps(data))
    load_result(file)


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("t",), 0),
        (("t",), math.nan),
        (("t",), math.inf),
        (("k",), 0),
        (("level",), 0),
        (("level",), 1),
        (("skr",), 0),
        (("skr",), 1.5),
        (("curve", 0, "t"), 0),
        (("curve", 0, "skr_upper"), 1.5),
        (("heldout", 0, "r_obs"), 1.5),
        (("top_items", 0, "count"), 0),
        (("top_items", 0, "fraction"), 1.5),
        (("prevalence", 0, 1), 0),
        (("horizon", "target_t"), 0),
        (("horizon", "coverage"), 1.5),
    ],
)
def test_zero_nonfinite_and_too_large_values_are_refused(
    record: dict[str, Any], tmp_path: Path, path: tuple[Any, ...], value: float
) -> None:
    _refused(tmp_path, _set(record, path, value), ".".join(str(p) for p in path))


@pytest.mark.parametrize(("field", "value"), [("t", -5), ("t", 0), ("k", 0)])
def test_backtest_of_a_corrupt_record_names_the_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, value: int
) -> None:
    run = _score(tmp_path, _zipf_queries(30))
    data = json.loads((run / "result.json").read_text())
    (run / "result.json").write_text(json.dumps({**data, field: value}))
    capsys.readouterr()
    assert main(["census", "backtest", str(run), "--t", "1", "--estimator", "sgt-k6", "--repeats", "2"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'result.json'}: invalid census result field {field}:" in err and "Traceback" not in err
    assert not (run / "backtest").exists()
