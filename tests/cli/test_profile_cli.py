"""``knowsum profile plan|run|compare`` through ``main([...])``: outputs, exit codes, one-line errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from knowsum.cli import main
from tests.profile._tiny import tiny_plan

pytestmark = pytest.mark.realdata


def _run(tmp_path: Path, out: str, model: str = "mock", *extra: str) -> list[str]:
    plan = tiny_plan(tmp_path)
    return [
        "profile",
        "run",
        "-m",
        model,
        "--plan",
        str(plan),
        "--store",
        str(tmp_path / "s.sqlite"),
        "--out",
        str(tmp_path / out),
        *extra,
    ]


def test_plan_json_counts_requests_and_tokens(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plan = tiny_plan(tmp_path)
    code = main(
        [
            "profile",
            "plan",
            "-m",
            "mock",
            "--plan",
            str(plan),
            "--store",
            str(tmp_path / "s.sqlite"),
            "--price-in",
            "0.5",
            "--price-out",
            "1.5",
            "--json",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["instruments"]) == {"census", "recall", "genebench"}
    for part in data["instruments"].values():
        assert {"requests", "prompt_tokens", "completion_tokens", "stored", "cost_usd"} <= set(part)
    assert data["requests"] == sum(p["requests"] for p in data["instruments"].values())
    assert data["price_in"] == 0.5 and data["cost_usd"] > 0
    assert not (tmp_path / "s.sqlite").exists()  # a plan never creates a store


def test_run_then_compare(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(_run(tmp_path, "a")) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == f"report: {tmp_path / 'a' / 'index.html'}"
    assert any(line.startswith("recall: go accuracy") for line in out)  # the card, as text
    assert main(_run(tmp_path, "b", "mock:other")) == 0
    capsys.readouterr()
    page = tmp_path / "cmp.html"
    args = ["profile", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--published", "--markdown"]
    assert main([*args, "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "| measure |" in out and "mock (tiny#" in out and "other (tiny#" in out  # a plan: stem#hash
    assert "rank N_seen → N̂_tot" in out
    html = page.read_text(encoding="utf-8")
    assert 'data-plot="compare"' in html and "<script" not in html
    # two profiles of one model and budget: each column names its folder
    assert main(_run(tmp_path, "c")) == 0
    capsys.readouterr()
    assert main(["profile", "compare", str(tmp_path / "a"), str(tmp_path / "c"), "--markdown"]) == 0
    header = capsys.readouterr().out.splitlines()[0]
    assert re.search(r"\| mock \(tiny#[0-9a-f]{8}, a\) \| mock \(tiny#[0-9a-f]{8}, c\) \|", header), header
    # one comparability check: the same profile twice is refused, and so are different budgets
    assert main(["profile", "compare", str(tmp_path / "a"), str(tmp_path / "a")]) != 0
    assert "the same run twice" in capsys.readouterr().err
    record = tmp_path / "b" / "profile.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    record.write_text(json.dumps({**data, "budget": "smoke"}), encoding="utf-8")
    pair = ["profile", "compare", str(tmp_path / "a"), str(tmp_path / "b")]
    assert main(pair) != 0
    err = capsys.readouterr().err
    assert (
        "not comparable (budget tiny#" in err and " vs smoke)" in err and len(err.strip().splitlines()) == 1
    )
    assert main([*pair, "--allow-mixed"]) == 0
    assert re.search(r"differs: budget tiny#[0-9a-f]{8} vs smoke", capsys.readouterr().err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--budget", "huge"], "'huge' is not one of"),
        (["--price-in", "cheap", "--price-out", "1"], "--price-in must be a number >= 0, got 'cheap'"),
        (["--price-in", "nan", "--price-out", "1"], "--price-in must be a number >= 0, got 'nan'"),
        (["--price-in", "1", "--price-out", "inf"], "--price-out must be a number >= 0, got 'inf'"),
        (["--budget", "quick", "--plan", "mine.toml"], "give --budget quick or --plan mine.toml, not both"),
        (["--price-in", "1"], "give both --price-in and --price-out"),
        (["-m", "no-such-model"], "no-such-model"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    base = ["profile", "run", "--store", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out")]
    code = main([*base, *(["-m", "mock"] if "-m" not in args else []), *args])
    err = capsys.readouterr().err.strip()
    assert code != 0 and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "out").exists()


def test_a_plan_file_with_an_unknown_instrument_names_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = tmp_path / "mine.toml"
    plan.write_text("[census]\nqueries = 2\n[genebnech]\nper_type = 1\n", encoding="utf-8")
    code = main(["profile", "plan", "-m", "mock", "--plan", str(plan)])
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1
    assert str(plan) in err and "'genebnech'" in err


def test_plan_probe_answers_a_few_requests_and_stores_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plan, store = tiny_plan(tmp_path), str(tmp_path / "s.sqlite")
    assert (
        main(["profile", "plan", "-m", "mock", "--plan", str(plan), "--store", store, "--probe", "--json"])
        == 0
    )
    probed = json.loads(capsys.readouterr().out)
    stored = {name: part["stored"] for name, part in probed["instruments"].items()}
    assert all(2 <= n <= 8 for n in stored.values())  # a few per instrument, kept in the store
    assert "arrival times" in probed["time_source"] and probed["seconds_expected"] is not None
    assert main(["profile", "plan", "-m", "mock", "--plan", str(plan), "--store", store, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert {name: part["stored"] for name, part in again["instruments"].items()} == stored
