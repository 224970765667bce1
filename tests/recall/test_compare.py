"""``compare_tables``: the paper's Tables 1–3 layout (rows: ontologies, columns: models)."""

from __future__ import annotations

from knowsum.recall import RecallResult, RecallScores, compare_tables


def _result(kb: str, model: str, accuracy: float, api: str = "chat") -> RecallResult:
    scores = RecallScores(
        n=100, n_correct=int(accuracy * 100), accuracy=accuracy, n_no_id=5, n_wrong=100 - int(accuracy * 100),
        n_invented=10, n_unique_predicted=40, n_invented_unique=4, invented_unique_pct=10.0,
        wrong_due_to_invented_pct=12.5, mean_levenshtein=4.0, n_levenshtein=80, mean_jaccard=0.3,
        n_jaccard=70,
    )  # fmt: skip
    return RecallResult(kb=kb, model=model, api=api, created="2026-01-01T00:00:00+00:00", scores=scores)


def test_tables_layout() -> None:
    runs = [
        _result("go", "gpt-4", 0.127),
        _result("go", "gpt-3.5", 0.0611),
        _result("icd10", "gpt-4", 0.3749),
        _result("go", "pythia", 0.0067, api="completions"),
    ]
    (t1, h1, r1), (t2, h2, r2), (t3, h3, r3) = compare_tables(runs)
    assert t2.startswith("Table 2") and t3.startswith("Table 3")
    assert t1.startswith("Table 1") and h1 == ["Dataset", "gpt-4", "gpt-3.5", "pythia (completion)"]
    assert r1 == [["go", 0.127, 0.0611, 0.0067], ["icd10", 0.3749, None, None]]
    assert h2[0] == "Measure" and [r[0] for r in r2] == [
        "Levenshtein d. (go)", "Jaccard s. (go)", "Levenshtein d. (icd10)", "Jaccard s. (icd10)"
    ]  # fmt: skip
    assert r2[0][1:] == [4.0, 4.0, 4.0] and r2[2][2:] == [None, None]
    assert h3[:4] == ["Dataset", "gpt-4 Unq", "gpt-4 %Inv", "gpt-4 %WrongInv"] and len(h3) == 10
    assert r3[1] == ["icd10", 40, 10.0, 12.5, None, None, None, None, None, None]
