"""Every command's ``--json`` is enumerated from the command tree, not listed by hand.

A command with ``--json`` either prints figures of a record — then its JSON carries the record's
caveats (``"caveats"``), checked here by running it on a real run that has one (40 queries do not
back-test t = 1: the run's own ``beyond-horizon`` caveat) — or prints no figure (a listing, a plan),
or is covered by the named test. A new ``--json`` command fails here until it is classified.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowsum.census.record import load_result
from knowsum.cli import main
from tests.cli.test_write_guard import COMMANDS

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

RUN_HERE = "run here"
JSON_COMMANDS: dict[str, str] = {
    "census run": "the summary of census score (one summary_data): run here through census score",
    "census score": RUN_HERE,
    "census compare": RUN_HERE,
    "census overlap": RUN_HERE,
    "census sensitivity": RUN_HERE,
    "estimate": RUN_HERE,
    "census sweep": "tests/census/test_comparability.py (each cell's caveats and horizon, sweep.json too)",
    "census backtest": "tests/census/test_backtest.py (the back-test record and its horizon)",
    "recall run": "tests/report/test_caveat_surfaces.py (recall --json: recall_json)",
    "recall score": "tests/report/test_caveat_surfaces.py (recall --json: recall_json)",
    "recall compare": "tests/report/test_caveat_surfaces.py (recall compare tables)",
    "genebench run": "tests/report/test_caveat_surfaces.py (genebench --json: result_numbers)",
    "genebench score": "tests/report/test_caveat_surfaces.py (genebench --json: result_numbers)",
    "genebench compare": "tests/report/test_caveat_surfaces.py (genebench compare tables)",
    "profile run": "tests/report/test_caveat_surfaces.py (profile card: each measure's marks)",
    "profile page": "tests/report/test_caveat_surfaces.py (profile card: each measure's marks)",
    "profile compare": "tests/census/test_comparability.py (differs marks) and the caveat surfaces",
    "run": "tests/cli/test_run_score.py (each run's card rows, marks included: Measure)",
    "score": "tests/harness/test_inspect_generic.py (each run's card rows, marks included: Measure)",
    "census tasks": "a listing: no figure",
    "instruments": "a listing: no figure",
    "kb list": "a listing: no figure",
    "kb show": "a knowledge base's term: no figure",
    "kb match": "a match: no figure",
    "kb search": "matches: no figure",
    "kb categories": "category counts of a knowledge base: no estimate",
    "profile plan": "a plan (requests, tokens, time): no figure",
    "census plan": "a size plan simulated from a pilot's fitted community: tests/census/test_plan.py",
    "genebench build": "a question file: no figure",
    "store info": "a store's counts and size: no figure (tests/cli/test_help_and_json.py)",
    "batch import": "an import's counts: no figure (tests/cli/test_help_and_json.py)",
}


def test_every_json_command_is_classified() -> None:
    found = {" ".join(path) for path, command in COMMANDS if any(p.name == "as_json" for p in command.params)}
    assert found == set(JSON_COMMANDS), (found - set(JSON_COMMANDS), set(JSON_COMMANDS) - found)


def _marks(data: Any) -> list[str]:
    """Every caveat mark anywhere in a JSON value (each ``caveats`` list's objects)."""
    if isinstance(data, dict):
        own = [c["mark"] for c in data.get("caveats", []) if isinstance(c, dict)]
        return own + [m for k, v in data.items() if k != "caveats" for m in _marks(v)]
    if isinstance(data, list):
        return [m for v in data for m in _marks(v)]
    return []


def _run(tmp_path: Path, name: str, seed: int) -> Path:
    items = tmp_path / f"{name}.tsv"
    skewed = [int(60 * (((q * seed + j) * 0.6180339) % 1) ** 2) for q in range(40) for j in range(3)]
    items.write_text("\n".join(f"Q{i // 3}\titem{k}" for i, k in enumerate(skewed)) + "\n", encoding="utf-8")
    out = tmp_path / name
    args = ["census", "score", str(items), "--out", str(out), "--n-bootstrap", "20", "--t", "1"]
    assert main([*args, "--name", "zipf"]) == 0
    return out


def test_every_record_json_carries_the_records_caveats(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _run(tmp_path, "a", 3), _run(tmp_path, "b", 7)
    own = {c.mark for c in load_result(a).caveats}
    assert own  # the run's own caveat, for every surface below to carry
    obs = tmp_path / "obs.txt"
    obs.write_text("x\t1\ny\t1\nz\t2\n")
    score = [
        "census",
        "score",
        str(tmp_path / "a.tsv"),
        "--out",
        str(a),
        "--t",
        "1",
        "--n-bootstrap",
        "20",
        "--name",
        "zipf",
    ]
    lines = {
        "census score": score,
        "census compare": ["census", "compare", str(a), str(b), "--allow-mixed"],
        "census overlap": ["census", "overlap", str(a), str(b)],
        "census sensitivity": ["census", "sensitivity", str(a), "--t-grid", "1,2", "--k-grid", "4,8"],
        "estimate": ["estimate", str(obs)],
    }
    assert {k for k, v in JSON_COMMANDS.items() if v == RUN_HERE} == set(lines)
    for command, args in lines.items():
        capsys.readouterr()
        assert main([*args, "--json"]) == 0, command
        data = json.loads(capsys.readouterr().out)
        assert "caveats" in json.dumps(data), command  # a caveats field, empty or not
        if command in ("census score", "census compare", "census sensitivity"):
            assert own <= set(_marks(data)), (command, own, _marks(data))
