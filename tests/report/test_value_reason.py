"""A card row without a value says why, ``n/a: REASON``, on every surface (terminal card, --json, the
profile page, profile compare), never a bare dash: the census's N̂_tot and SKR of a census with no
verified item give the census report's own reason. A profile.json written before the field loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.cli import main
from knowsum.instrument import get_instrument
from knowsum.records.profile import Measure, ProfileRecord
from knowsum.report.profile import card_rows, compare_table
from tests.census.conftest import kb_home
from tests.instrument._yes import INSTRUMENT as YES

__all__ = ["kb_home"]

NOTHING = "n/a: nothing to estimate (N_seen = 0)"
PLAN = '[census]\ntasks = ["theorems"]\ncriteria = ["strict"]\nqueries = 3\nn_bootstrap = 0\n'


def test_a_row_without_a_value_prints_its_reason() -> None:
    m = YES.measure("share", "share of yes", None, "m", run="r", percent=True, value_reason="not asked")
    assert card_rows([m]) == [["yes: share of yes", "n/a: not asked", "–", "–"]]
    bare = YES.measure("share", "share of yes", None, "m", run="r")  # no reason given: the dash it was
    assert card_rows([bare])[0][1] == "–"


def test_an_older_profile_row_loads_without_a_reason() -> None:
    old = {"key": "yes/share", "instrument": "yes", "label": "l", "value": None, "method": "m", "run": "r"}
    assert Measure.model_validate(old).value_reason is None


def test_a_census_with_nothing_seen_says_why_on_every_surface(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "plan.toml").write_text(PLAN, encoding="utf-8")
    out = tmp_path / "runs"
    args = ["run", "census", "-m", "mock", "--plan", str(tmp_path / "plan.toml")]
    args += ["--store", str(tmp_path / "s.sqlite"), "--out", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    for label in ("N̂_tot", "SKR"):
        line = next(x for x in text.splitlines() if x.startswith(f"census: theorems (strict) {label}"))
        assert NOTHING in line, line
    run = out / "census-theorems-strict"
    assert load_result(run).n_seen == 0
    rows = get_instrument("census").measures(load_result(run), "r")
    assert [m.value_reason for m in rows] == [None, NOTHING[5:], NOTHING[5:]]  # N_seen is 0: a value
    assert main([*args, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["runs"][0]["measures"]
    assert [(m["value"], m["value_reason"]) for m in shown[1:]] == [(None, NOTHING[5:])] * 2
    profile = tmp_path / "profile"
    assert main(["profile", "page", str(run), "--out", str(profile)]) == 0
    capsys.readouterr()
    page = (profile / "index.html").read_text(encoding="utf-8")
    card = page.split('id="card"')[1].split("</section>")[0]
    assert card.count(NOTHING) == 2
    record = ProfileRecord.model_validate_json((profile / "profile.json").read_text(encoding="utf-8"))
    _, compared = compare_table([record])
    assert [r[1] for r in compared if r[0].endswith(("N̂_tot", "SKR"))] == [NOTHING, NOTHING]
