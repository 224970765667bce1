"""Models side by side, in the layout of the paper's Tables 1–3 (rows: ontologies, columns: models)."""

from __future__ import annotations

from collections.abc import Sequence

from knowsum.recall._result import RecallResult

__all__ = ["compare_tables"]

Table = tuple[str, list[str], list[list[object]]]


def _column(result: RecallResult) -> str:
    """Column name: the model, marked when it was probed with completion prompts (base models)."""
    return f"{result.model} (completion)" if result.api == "completions" else result.model


def compare_tables(results: Sequence[RecallResult]) -> list[Table]:
    """Tables 1 (accuracy), 2 (Levenshtein / Jaccard of errors) and 3 (unique IDs, % invented,
    % of wrong predictions due to invented IDs) for a set of runs.

    Returns:
        ``(title, headers, rows)`` per table; a missing (KB, model) pair is ``None``. A model probed
        with completion prompts gets its own column; for a repeated (KB, model) the last run wins.
    """
    models = list(dict.fromkeys(_column(r) for r in results))
    kbs = list(dict.fromkeys(r.kb for r in results))
    cell = {(r.kb, _column(r)): r.scores for r in results}

    def get(kb: str, model: str, attr: str) -> object:
        s = cell.get((kb, model))
        return None if s is None else getattr(s, attr)

    t1 = [[kb, *(get(kb, m, "accuracy") for m in models)] for kb in kbs]
    t2: list[list[object]] = []
    for kb in kbs:
        t2.append([f"Levenshtein d. ({kb})", *(get(kb, m, "mean_levenshtein") for m in models)])
        t2.append([f"Jaccard s. ({kb})", *(get(kb, m, "mean_jaccard") for m in models)])
    t3_headers = ["Dataset"] + [f"{m} {h}" for m in models for h in ("Unq", "%Inv", "%WrongInv")]
    t3 = [
        [kb]
        + [
            v
            for m in models
            for v in (
                get(kb, m, "n_unique_predicted"),
                get(kb, m, "invented_unique_pct"),
                get(kb, m, "wrong_due_to_invented_pct"),
            )
        ]
        for kb in kbs
    ]
    return [
        ("Table 1. Accuracy", ["Dataset", *models], t1),
        ("Table 2. Mean similarity of wrong predictions", ["Measure", *models], t2),
        (
            "Table 3. Unique predicted IDs, % invented, % of wrong predictions due to invented IDs",
            t3_headers,
            t3,
        ),
    ]
