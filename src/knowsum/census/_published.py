"""The KnowSum paper's published census figures (Li, Xin, Long, Su 2025, §4.1, Table 1).

Nine models, four criteria, ``N_seen``, ``N̂_tot`` and ``SKR`` at ``t = 100`` with the held-out
``k ∈ {6, 8, 10}``; ``(N_query, N_ans) = (30,000, 20)`` for theorems and ``(3,000, 50)`` for diseases,
temperature 1. Transcribed from the paper's Table 1 (the ``SKR`` as printed, two decimals).
Each value is one :class:`knowsum.records.PublishedRow` (the one published-value type of every
instrument), its measure ``TASK/CRITERION/n_seen``, ``…/n_total`` or ``…/skr`` as on the card;
``knowsum census compare --published`` ranks a model's three values of a column as one row beside a
user's runs, marked ``MODEL · KnowSum Table 1`` (:attr:`knowsum.records.PublishedRow.label`).
"""

from __future__ import annotations

from knowsum.records import PublishedRow

__all__ = ["PAPER", "PUBLISHED", "TABLE", "TABLE1_COLUMNS", "published_rows"]

PAPER = "KnowSum"
"""How a published row names the paper (:func:`knowsum.records.published_label`)."""
TABLE = "Table 1"

TABLE1_COLUMNS: dict[tuple[str, str], str] = {
    ("theorems", "strict"): "Theorem only",
    ("theorems", "relaxed"): "All math concepts",
    ("diseases", "strict"): "Anatomical disease",
    ("diseases", "relaxed"): "Human diseases",
}
"""``(task, criterion)`` → the Table 1 column with that criterion."""


# model, then (N_seen, N̂_tot, SKR) for: theorem only, all math concepts, anatomical disease,
# human diseases — KnowSum Table 1, row by row
_TABLE1: tuple[tuple[str, tuple[tuple[int, int, float], ...]], ...] = (
    ("ChatGPT-4o-chat", ((702, 1189, 0.59), (974, 2410, 0.40), (277, 732, 0.38), (589, 1096, 0.54))),
    ("ChatGPT-3.5-turbo-chat", ((868, 1064, 0.82), (1266, 1703, 0.74), (268, 278, 0.96), (523, 706, 0.74))),
    (
        "LLaMA-V3-70B-instruct",
        ((1432, 1706, 0.84), (2289, 2645, 0.87), (875, 3372, 0.26), (1777, 7564, 0.23)),
    ),
    ("LLaMA-V3-3B-instruct", ((1035, 1331, 0.78), (1717, 2640, 0.65), (780, 1375, 0.57), (1374, 3002, 0.46))),
    (
        "Mistral-7B-instruct-V0.1",
        ((753, 1194, 0.63), (1313, 2481, 0.53), (489, 1723, 0.28), (859, 1276, 0.67)),
    ),
    ("Qwen2.5-7B-instruct", ((444, 1162, 0.38), (663, 1385, 0.48), (426, 521, 0.82), (763, 763, 1.00))),
    ("Claude-3.7-Sonnet", ((120, 201, 0.60), (147, 293, 0.50), (115, 462, 0.25), (213, 686, 0.31))),
    ("DeepSeek-V3", ((148, 241, 0.61), (162, 203, 0.80), (86, 334, 0.26), (193, 752, 0.26))),
    ("Gemini-1.5-flash", ((100, 515, 0.19), (122, 478, 0.26), (139, 143, 0.97), (298, 306, 0.97))),
)

PUBLISHED: tuple[PublishedRow, ...] = tuple(
    PublishedRow(model, PAPER, TABLE, f"{task}/{criterion}/{what}", float(value))
    for model, cells in _TABLE1
    for (task, criterion), cell in zip(TABLE1_COLUMNS, cells, strict=True)
    for what, value in zip(("n_seen", "n_total", "skr"), cell, strict=True)
)
"""All 108 values (9 models × 4 criteria × ``N_seen``, ``N̂_tot``, ``SKR``), row by row of Table 1."""


def published_rows(task: str, criterion: str) -> list[PublishedRow]:
    """The values of the Table 1 column with ``task`` and ``criterion``, three per model (``N_seen``,
    ``N̂_tot``, ``SKR``), in the paper's order (``[]`` when the paper has no such column, e.g. an
    ontology census)."""
    return [r for r in PUBLISHED if r.measure.startswith(f"{task}/{criterion}/")]
