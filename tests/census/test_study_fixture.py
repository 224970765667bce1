"""The back-test study's fixture (docs/foresee.md) scores as the census it came from.

Its provenance is in tests/fixtures/census/study/README.md: the census itself reported 935 verified
mentions of N_seen = 106 theorems over 1,000 queries; ``census score`` on the fixture must give the
same, and ``census backtest`` runs on it (the page's tables come from bench/foresee_study.py). The
second real census, 112 disease queries, reported 477 verified mentions of N_seen = 157 diseases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.cli import main

STUDY = Path(__file__).resolve().parents[1] / "fixtures" / "census" / "study"
FIXTURE = STUDY / "theorems-0.5b.jsonl"


def test_the_study_fixture_scores_as_its_census(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 1000 and [x["query"] for x in lines] == [f"q{i}" for i in range(1000)]
    run = tmp_path / "run"
    assert main(["census", "score", str(FIXTURE), "--out", str(run), "--n-bootstrap", "20"]) == 0
    result = load_result(run)
    assert (result.n_queries, result.n_seen, result.counts.valid) == (1000, 106, 935)
    assert sum(len(x["items"]) for x in lines) == 935
    capsys.readouterr()
    out = tmp_path / "bt"
    args = ["census", "backtest", str(run), "--out", str(out), "--t", "1,99", "--repeats", "5"]
    assert main(args) == 0
    data = json.loads((out / "backtest.json").read_text(encoding="utf-8"))
    assert data["n_queries"] == 1000 and data["n_seen"] == 106 and (out / "report.html").is_file()


def test_the_disease_fixture_scores_as_its_census(tmp_path: Path) -> None:
    lines = [
        json.loads(line) for line in (STUDY / "diseases-0.5b.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert [x["query"] for x in lines] == [f"q{i}" for i in range(112)]
    run = tmp_path / "run"
    args = ["census", "score", str(STUDY / "diseases-0.5b.jsonl"), "--out", str(run), "--n-bootstrap", "20"]
    assert main(args) == 0
    result = load_result(run)
    assert (result.n_queries, result.n_seen, result.counts.valid) == (112, 157, 477)
    assert all(key.startswith("DOID:") for x in lines for key in x["items"])
