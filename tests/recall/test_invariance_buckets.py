"""``recall score --per-bucket K --invariance-file``: prediction invariance (§6) buckets the rows by
position (K per bucket, the authors' §6.2 layout) while the popularity analysis (§5) buckets them by
their popularity; where the two disagree the record carries a typed caveat saying how many concepts
agree, shown on every surface (terminal, ``--json``, report.html, compare), and the published
values stay as they were.

On ``tests/fixtures/recall/invariance`` (the hand-made 6 concepts, the authors' GPT-3.5 release).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.recall._invariance import TWO_BUCKETINGS

INV = Path(__file__).resolve().parents[1] / "fixtures" / "recall" / "invariance"


def _score(out: Path, *extra: str) -> list[str]:
    answers = f"pi1={INV / 'answers_m3.txt'}"
    concepts = str(INV / "concepts.csv")
    args = ["recall", "score", "--kb", "go", "--predictions", concepts, "--per-bucket", "2"]
    return [*args, "--invariance-file", answers, "--n-perm", "50", "--out", str(out), *extra]


def test_two_bucketings_are_a_caveat_on_every_surface(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The 6 rows have 6 distinct popularity values (1, 2, 10, 12, 100, 150): 50 buckets asked make
    one bucket of each, while K = 2 puts rows 1–2, 3–4, 5–6 together: only row 1 is in bucket 1
    under both."""
    out = tmp_path / "s"
    assert main(_score(out, "--json")) == 0
    data = json.loads(capsys.readouterr().out)
    [caveat] = [c for c in data["caveats"] if c["kind"] == TWO_BUCKETINGS]
    assert caveat["mark"] == "RQ2 and RQ3 bucket differently"
    assert "only 1 of the 6 concepts are in the same bucket under both" in caveat["message"]
    assert "(release file, 6 buckets of consecutive distinct values)" in caveat["message"]
    assert "--per-bucket 2: row i in bucket i // 2 + 1" in caveat["message"]
    saved = json.loads((out / "result.json").read_text())
    assert [c["kind"] for c in saved["caveats"]] == [c["kind"] for c in data["caveats"]]
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "only 1 of the 6 concepts are in the same bucket under both" in html
    assert main(_score(tmp_path / "t")) == 0
    assert "caveat: RQ2 and RQ3 bucket differently: " in capsys.readouterr().out
    # compare: said in the titles of the tables that bucket (Table 4(a), §6.3), not on every column
    assert main(["recall", "compare", str(out), "--json"]) == 0
    tables = {t["title"].split(".")[0]: t for t in json.loads(capsys.readouterr().out)["tables"]}
    note = "RQ2 and RQ3 bucket differently for concepts.csv"
    assert note in tables["Table 4(a)"]["title"] and note in tables["§6"]["title"]
    assert note not in tables["Table 1"]["title"] and tables["Table 1"]["headers"] == [
        "Dataset",
        "concepts.csv",
    ]


def test_no_caveat_when_the_two_bucketings_agree(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With 3 popularity buckets (floor(6 distinct / 3) = 2 values each: 1–2, 10–12, 100–150) every
    row is in its positional bucket: nothing to say."""
    assert main(_score(tmp_path / "s", "--n-buckets", "3", "--json")) == 0
    assert TWO_BUCKETINGS not in {c["kind"] for c in json.loads(capsys.readouterr().out)["caveats"]}


def test_the_authors_sample_agrees_for_528_of_1000_and_its_rho_is_unchanged(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The authors' sample re-bucketed by its own popularity column (docs/recall.md: 528 of 1,000),
    while the §6.3 values read as before (PI-2 ρ .9507 / .9508, positional buckets)."""
    for name in ("extracted_labels.csv", "2_different_temperatures_output.txt"):
        (tmp_path / name).write_bytes(gzip.decompress((INV / f"{name}.gz").read_bytes()))
    args = ["recall", "score", "--kb", "go", "--predictions", str(tmp_path / "extracted_labels.csv")]
    pi2 = f"pi2={tmp_path / '2_different_temperatures_output.txt'}"
    assert main([*args, "--per-bucket", "20", "--invariance-file", pi2, "--n-perm", "500", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [caveat] = [c for c in data["caveats"] if c["kind"] == TWO_BUCKETINGS]
    assert "only 528 of the 1,000 concepts are in the same bucket under both" in caveat["message"]
    assert data["invariance"]["pi2"]["avpi_spearman"] == pytest.approx(0.9507, abs=5e-5)
    assert data["invariance"]["pi2"]["knowsum"]["avpi_spearman"] == pytest.approx(0.9508, abs=5e-5)
