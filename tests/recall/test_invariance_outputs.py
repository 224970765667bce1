"""Prediction invariance in the record, the report (Fig. 4), the compare table (§6.3) and the
exact AvPI of a run's summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.recall import (
    Concept,
    RecallRecord,
    compare_tables,
    load_result,
    score_predictions,
    summarize_invariance,
)
from knowsum.records import published_label

INV = Path(__file__).resolve().parents[1] / "fixtures" / "recall" / "invariance"
OLD = INV.parent / "old_results"


def _scored(out: Path) -> RecallRecord:
    run = score_predictions(
        "go",
        INV / "concepts.csv",
        n_perm=200,
        out=out,
        invariance_files=[("pi1", INV / "answers_m3.txt")],
        per_bucket=2,
    )
    return run.record


def test_record_holds_both_readings_and_reads_back(mini_go: Path, tmp_path: Path) -> None:
    result = _scored(tmp_path / "s")
    assert [(s.method, s.reading, s.per_bucket) for s in result.invariance] == [
        ("pi1", "paper", 2),
        ("pi1", "knowsum", 2),
    ]
    assert all(s.source.endswith("answers_m3.txt") for s in result.invariance)
    readings = result.invariance_readings()
    assert list(readings) == ["pi1"] and list(readings["pi1"]) == ["paper", "knowsum"]
    assert load_result(tmp_path / "s") == result  # version 3 with the new fields round-trips
    assert json.loads((tmp_path / "s" / "result.json").read_text())["version"] == 4


@pytest.mark.parametrize("name", ["v1_run", "v2_run"])
def test_old_invariance_summaries_are_knowsums_reading(name: str) -> None:
    [summary] = load_result(OLD / f"{name}.json").invariance
    assert (summary.reading, summary.source, summary.per_bucket) == ("knowsum", "", None)


def test_report_draws_fig4_for_each_reading(mini_go: Path, tmp_path: Path) -> None:
    _scored(tmp_path / "s")
    plots = tmp_path / "s" / "plots"
    assert (plots / "invariance_per_bucket.png").stat().st_size > 1000  # the paper's reading
    assert (plots / "invariance_per_bucket_knowsum.png").stat().st_size > 1000
    html = (tmp_path / "s" / "report.html").read_text(encoding="utf-8")
    assert "Prediction invariance (RQ3, paper §6)" in html and "ρ paper" in html and "ρ knowsum" in html
    assert "K = 2 per bucket in row order" in html


def test_summarize_invariance_ties_buckets_exactly() -> None:
    """Buckets with the same U values in another order have the same AvPI: with M = 11,
    U = (3, 10, 2, 5) gives AvPI 1 − (20 − 4)/40 = .6 exactly, where ``np.mean`` of the float PIs
    gives .6 in one order and .6000000000000001 in the other."""
    m = 11

    def answers(u: int) -> list[str | None]:
        return ["GO:0000001"] * (m - u + 1) + [f"GO:{k:07d}" for k in range(2, u + 1)]

    us = [3, 10, 2, 5, 5, 2, 10, 3]
    concepts = [Concept(f"GO:{i:07d}", "x", None, 1 + i // 4) for i in range(8)]
    got = summarize_invariance(
        "pi2",
        [f"T={t / 10:g}" for t in range(m)],
        concepts,
        [answers(u) for u in us],
        [[False] * m for _ in us],
        n_perm=50,
    )
    assert [b.avpi for b in got.buckets] == [0.6, 0.6]
    assert got.mean_pi == 0.6 and got.reading == "knowsum"


def test_compare_published_has_the_section_6_3_rows() -> None:
    """§6.3 (lines 293 and 309 of the paper's text): PI-2 / PI-3 ρ per model, PI-1 "n.s."."""
    title, headers, rows = compare_tables([], published=True)[-1]
    assert title.startswith("§6.3. Spearman ρ of AvPI vs accuracy")
    models = ("Pythia-12B", "Gemini-1.5F", "GPT-3.5")
    assert headers == [
        "Dataset",
        "Method",
        "Reading",
        *(published_label(m, "Bombieri et al.", "§6.3") for m in models),
    ]
    assert rows == [
        ["go", "PI-1 (repetitions)", "paper", "n.s.", "n.s.", "n.s."],
        ["go", "PI-2 (temperatures)", "paper", 0.795, 0.813, 0.950],
        ["go", "PI-3 (languages)", "paper", 0.581, 0.743, 0.850],
        ["icd10", "PI-1 (repetitions)", "paper", "n.s.", "n.s.", "n.s."],
        ["icd10", "PI-2 (temperatures)", "paper", 0.613, 0.700, 0.874],
        ["icd10", "PI-3 (languages)", "paper", 0.609, 0.535, 0.774],
    ]


def test_compare_puts_a_runs_rho_in_the_same_table(mini_go: Path, tmp_path: Path) -> None:
    scored = _scored(tmp_path / "s")
    title, headers, rows = compare_tables([scored])[-1]
    assert title.startswith("§6.3.") and headers == ["Dataset", "Method", "Reading", "concepts.csv"]
    assert [r[:3] for r in rows] == [
        ["go", "PI-1 (repetitions)", "paper"],
        ["go", "PI-1 (repetitions)", "knowsum"],
    ]
    assert rows[0][3] == pytest.approx(3**0.5 / 2) and rows[1][3] == pytest.approx(1.0)
    with_paper = compare_tables([scored], published=True)[-1]
    assert with_paper[1][3:] == [
        "concepts.csv",
        *(f"{m} · Bombieri et al. §6.3" for m in ("Pythia-12B", "Gemini-1.5F", "GPT-3.5")),
    ]
    assert with_paper[2][1][3:] == [pytest.approx(1.0), None, None, None]  # knowsum's reading: no paper value
    assert len(compare_tables([load_result(OLD / "v2_score.json")])) == 4  # no invariance: no §6.3 table
