"""``compare_tables``: the paper's Tables 1–3 layout (rows: ontologies, columns: models)."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.recall import PaperScores, RecallRecord, RecallScores, compare_tables
from knowsum.records import published_label


def _result(kb: str, model: str, accuracy: float, api: str = "chat") -> RecallRecord:
    paper = PaperScores(
        existence="study",
        n_study=100,
        unique_answers=45,
        invented_unique=9,
        invented_pct=20.0,
        n_wrong=90,
        n_wrong_invented=18,
        wrong_due_to_invented_pct=20.0,
        mean_levenshtein=4.5,
        mean_jaccard=0.25,
        averaging="buckets",
    )
    scores = RecallScores(
        n=100,
        n_correct=int(accuracy * 100),
        accuracy=accuracy,
        n_no_id=5,
        n_wrong=100 - int(accuracy * 100),
        n_invented=10,
        n_unique_predicted=40,
        n_invented_unique=4,
        invented_unique_pct=10.0,
        wrong_due_to_invented_pct=12.5,
        mean_levenshtein=4.0,
        n_levenshtein=80,
        mean_jaccard=0.3,
        n_jaccard=70,
        paper=paper,
    )
    return RecallRecord(kb=kb, model=model, api=api, created="2026-01-01T00:00:00+00:00", scores=scores)


def test_tables_layout() -> None:
    runs = [
        _result("go", "gpt-4", 0.127),
        _result("go", "gpt-3.5", 0.0611),
        _result("icd10", "gpt-4", 0.3749),
        _result("go", "pythia", 0.0067, api="completions"),
    ]
    (t1, h1, r1), (t2, h2, r2), (t3, h3, r3), (t3k, h3k, r3k) = compare_tables(runs)
    assert t2.startswith("Table 2 (paper rules)") and t3.startswith("Table 3 (paper rules)")
    assert t3k.startswith("Table 3 (knowsum rules)")
    assert t1.startswith("Table 1") and h1 == ["Dataset", "gpt-4", "gpt-3.5", "pythia (completion)"]
    assert r1 == [["go", 0.127, 0.0611, 0.0067], ["icd10", 0.3749, None, None]]
    assert h2[0] == "Measure" and [r[0] for r in r2] == [
        "Levenshtein d. (go)",
        "Jaccard s. (go)",
        "Levenshtein d. (icd10)",
        "Jaccard s. (icd10)",
    ]
    assert r2[0][1:] == [4.5, 4.5, 4.5] and r2[2][2:] == [None, None]
    assert h3[:4] == ["Dataset", "gpt-4 Unq", "gpt-4 %Inv", "gpt-4 %WrongInv"] and len(h3) == 10
    assert r3[1] == ["icd10", 45, 20.0, 20.0, None, None, None, None, None, None]
    assert h3k == h3 and r3k[1] == ["icd10", 40, 10.0, 12.5, None, None, None, None, None, None]


def test_published_columns_are_the_paper_tables() -> None:
    """Values as printed in the paper (Table 1; Table 3a GO row; Table 3b ICD row)."""
    (t1, h1, r1), (t3, _, r3), (t4, h4, r4), (t6, _, _) = compare_tables([], published=True)  # t6: §6.3's ρ
    assert t6.startswith("§6.3.")  # its rows: test_invariance_outputs.py
    # Table 4(a), as printed (shared/papers/003_507f8d83487961c7.txt, lines 206-207)
    assert t4.startswith("Table 4(a)") and h4[1] == published_label(
        "Pythia-12B", "Bombieri et al.", "Table 4(a)"
    )
    assert r4[0] == ["go", 0.850, 0.924, 0.993, 0.982] and r4[2] == ["icd10", 0.692, 0.901, 0.933, 0.919]
    assert r4[1] == ["uberon", None, None, None, None]  # the paper has no Uberon row
    assert t1.startswith("Table 1") and t3.startswith("Table 3 (paper rules)")
    models = ("Pythia-12B", "Gemini-1.5F", "GPT-3.5", "GPT-4")
    assert h1 == ["Dataset", *(published_label(m, "Bombieri et al.", "Table 1") for m in models)]
    assert r1[0] == ["go", 0.0067, 0.0140, 0.0611, 0.1270]
    assert r1[2] == ["icd10", 0.0061, 0.0648, 0.2487, 0.3749]
    assert [r[0] for r in r1] == ["go", "uberon", "icd10", "wikidata"]
    assert r3[0] == ["go", 1353, 10.64, 6.85, 5558, 16.61, 11.84, 7182, 7.64, 6.35, 12308, 9.60, 7.63]
    assert r3[2][3::3] == [53.62, 43.51, 32.59, 30.18]
    assert all(type(v) is int for row in r3 for v in row[1::3])  # Unq prints as a count
    # every percentage printed exactly as transcribed (the rows hold fractions)
    assert r3[3][1:] == [125, 26.40, 2.76, 8817, 28.16, 28.91, 7734, 16.89, 11.55, 15539, 19.31, 15.13]
    runs = [_result("go", "mine", 0.05)]
    tables = compare_tables(runs, published=True)
    assert tables[0][1][1] == "mine" and tables[0][2][0][:2] == ["go", 0.05]
    assert tables[0][2][1][:2] == ["uberon", None]


def test_published_rows_are_the_one_published_type() -> None:
    """The transcribed tables are ``PublishedRow`` values, percentages as fractions, one per cell."""
    from knowsum.recall import PUBLISHED
    from knowsum.recall._instrument import INSTRUMENT
    from knowsum.records import PublishedRow, by_model

    assert all(isinstance(r, PublishedRow) for r in PUBLISHED)
    gpt4 = by_model(PUBLISHED)["GPT-4"]
    assert gpt4["go/accuracy"] == 0.1270 and gpt4["go/unique_answers"] == 12308
    assert gpt4["go/invented"] == pytest.approx(0.0960) and gpt4["icd10/wrong_due_to_invented"] == 0.3018
    assert "go/pi2_rho" not in gpt4 and by_model(PUBLISHED)["GPT-3.5"]["icd10/pi3_rho"] == 0.774
    assert {r.table for r in PUBLISHED if r.measure.endswith("wrong_due_to_invented")} == {"Table 3(b)"}
    # the card shows accuracy, % invented and §6.3's ρ: a selection of the same rows
    assert set(INSTRUMENT.published) < set(PUBLISHED)
    card = {r.measure.split("/")[1] for r in INSTRUMENT.published}
    assert card == {"accuracy", "invented", "popularity_rho", "pi2_rho", "pi3_rho"}
    assert by_model(PUBLISHED)["GPT-3.5"]["go/popularity_rho"] == 0.993  # Table 4(a)


def test_compare_published_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "result.json").write_text(_result("go", "mine", 0.05).model_dump_json())
    assert main(["recall", "compare", str(run), "--published", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "GPT-4 · Bombieri et al. Table 1" in out and "| go | 0.05 |" in out.replace("0.0500", "0.05")
    assert "GPT-4 · Bombieri et al. Table 3 Unq" in out
    assert main(["recall", "compare"]) != 0


def _write(folder: Path, result: RecallRecord) -> Path:
    folder.mkdir()
    (folder / "result.json").write_text(result.model_dump_json())
    return folder


def test_compare_asks_the_comparability_check(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """One KB judged against two releases is refused (or marked with --allow-mixed); two KBs are the
    paper's rows and stand side by side; a run given twice is refused."""
    old = _write(tmp_path / "old", _result("go", "a", 0.1).model_copy(update={"kb_release": "2024-01"}))
    new = _write(tmp_path / "new", _result("go", "b", 0.2).model_copy(update={"kb_release": "2025-01"}))
    doid = _write(tmp_path / "doid", _result("doid", "c", 0.3).model_copy(update={"kb_release": "2025-01"}))
    assert main(["recall", "compare", str(old), str(new)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{old} and {new} are not comparable (go release 2024-01 vs 2025-01)" in err
    assert main(["recall", "compare", str(old), str(new), "--allow-mixed"]) == 0
    assert "b [differs: go release 2024-01 vs 2025-01]" in capsys.readouterr().out
    assert main(["recall", "compare", str(old), str(doid)]) == 0
    out = capsys.readouterr().out
    assert "differs" not in out and "a" in out and "c" in out
    assert main(["recall", "compare", str(old), str(old / "result.json")]) == 2
    assert "are the same run twice" in capsys.readouterr().err
