"""The paper's published values, transcribed for ``knowsum recall compare --published``.

Source: Bombieri, Fiorini, Ponzetto, Rospocher, *Do LLMs Dream of Ontologies?*, Table 1 (accuracy),
Table 3 ((a) unique predicted IDs "Unq" and % invented "%Inv", (b) % of wrong predictions
caused by invented IDs), §4.3, and Table 4(a) (Spearman ρ of Web popularity vs accuracy), §5 —
copied from the paper's text (shared/papers/003_507f8d83487961c7.txt, lines 112–140 and 206–207),
digits as printed. Dataset keys are knowsum KB names where one exists (``go``,
``uberon``, ``icd10``); the paper's Wikidata setting is a 30,000-concept QRank sample with no
knowsum KB of its own, keyed ``wikidata``. Table 3's values follow the paper's comparability rules
(``scores.paper`` of a knowsum result), not knowsum's ontology-aware ones.

Also §6.3 "Results" (same text, lines 293 and 309; no table: the values are in the prose): the
Spearman ρ of AvPI vs accuracy of PI-2 and PI-3 for Pythia-12B, Gemini-1.5F and GPT-3.5 on the
Gene Ontology and ICD-10, under the paper's reading of the answers (:data:`PUBLISHED_INVARIANCE`).
"""

from __future__ import annotations

from knowsum.recall.record import PopularityScores
from knowsum.records import PublishedRow

__all__ = [
    "NO_CORRELATION",
    "PAPER",
    "PUBLISHED",
    "PUBLISHED_INVARIANCE",
    "PUBLISHED_INVARIANCE_MODELS",
    "PUBLISHED_MODELS",
    "TABLE4A_BUCKETS",
    "TABLE4A_KBS",
    "TABLE4A_SOURCES",
    "TABLE_MEASURES",
    "percent",
    "popularity_setting",
    "unlike_table4a",
]

PAPER = "Bombieri et al."
"""How a published column names the paper (:func:`knowsum.records.published_label`)."""

PUBLISHED_MODELS = ("Pythia-12B", "Gemini-1.5F", "GPT-3.5", "GPT-4")


# dataset | Table 1 accuracy | Table 3a Unq | Table 3a %Inv | Table 3b — each for Pythia-12B,
# Gemini-1.5F, GPT-3.5, GPT-4, digits as printed in the paper
_TABLES = """
go       | .0067 .0140 .0611 .1270 | 1353 5558 7182 12308 | 10.64 16.61 7.64 9.60  | 6.85 11.84 6.35 7.63
uberon   | .0000 .0003 .0035 .0129 | 30 237 641 2971      | 30.00 5.06 10.92 33.52 | 12.10 1.96 2.34 15.94
icd10    | .0061 .0648 .2487 .3749 | 1002 3288 5593 6633  | 61.98 44.65 27.50 20.08 | 53.62 43.51 32.59 30.18
wikidata | .0000 .0001 .0026 .0073 | 125 8817 7734 15539  | 26.40 28.16 16.89 19.31 | 2.76 28.91 11.55 15.13
"""

TABLE_MEASURES = (
    ("Table 1", "accuracy", 1),
    ("Table 3(a)", "unique_answers", 1),
    ("Table 3(a)", "invented", 100),
    ("Table 3(b)", "wrong_due_to_invented", 100),
)
"""Where each column of ``_TABLES`` is printed, the measure it becomes (``{dataset}/{measure}``)
and what its printed digits are divided by (a percentage becomes a fraction, as in every
:class:`~knowsum.records.PublishedRow`)."""


def percent(fraction: float) -> float:
    """A transcribed percentage back as the paper printed it (two decimals at most), exactly."""
    return round(100 * fraction, 2)


def _parse(text: str) -> list[PublishedRow]:
    out: list[PublishedRow] = []
    for line in text.strip().splitlines():
        name, *columns = (cell.split() for cell in line.split("|"))
        for i, model in enumerate(PUBLISHED_MODELS):
            out += [
                PublishedRow(model, PAPER, table, f"{name[0]}/{measure}", float(cells[i]) / scale)
                for (table, measure, scale), cells in zip(TABLE_MEASURES, columns, strict=True)
            ]
    return out


# Table 4(a) (shared/papers/003_507f8d83487961c7.txt, lines 206–207): Spearman ρ between the Web
# occurrences of the (ID, label) pairs and accuracy over the popularity buckets, each marked
# significant (p ≤ .05); digits as printed, models in PUBLISHED_MODELS' order.
_TABLE4A = """
go    | .850 .924 .993 .982
icd10 | .692 .901 .933 .919
"""


TABLE4A_SOURCES = ("web", "release file")
"""The popularity sources of Table 4(a)'s measure: the Web occurrences of the (ID, label) pairs
(§5.1), i.e. knowsum's ``web`` tables and the ``n_web_occurrences`` column of a release-layout file."""

TABLE4A_BUCKETS = 50
"""The buckets of Table 4(a) (§5.2)."""


def popularity_setting(pop: PopularityScores) -> str:
    """What a popularity ρ was measured over: ``"web, 50 buckets"``."""
    return f"{pop.source}, {pop.n_buckets} bucket{'' if pop.n_buckets == 1 else 's'}"


def unlike_table4a(pop: PopularityScores) -> str:
    """Why a run's popularity ρ is not Table 4(a)'s measure (Web occurrences, 50 buckets), or ``""``."""
    why = [f"popularity {pop.source}, not Web occurrences"] if pop.source not in TABLE4A_SOURCES else []
    if pop.n_buckets != TABLE4A_BUCKETS:
        why.append(f"{pop.n_buckets} buckets, not {TABLE4A_BUCKETS}")
    return "; ".join(why)


def _parse_table4a(text: str) -> list[PublishedRow]:
    out: list[PublishedRow] = []
    for line in text.strip().splitlines():
        name, cells = (cell.split() for cell in line.split("|"))
        out += [
            PublishedRow(model, PAPER, "Table 4(a)", f"{name[0]}/popularity_rho", float(v))
            for model, v in zip(PUBLISHED_MODELS, cells, strict=True)
        ]
    return out


PUBLISHED_INVARIANCE_MODELS = ("Pythia-12B", "Gemini-1.5F", "GPT-3.5")
"""The models of §6 (GPT-4 was left out "to minimize experiment costs", §6.2 fn. 14)."""

NO_CORRELATION = "n.s."
"""The cell of PI-1: §6.3 prints no ρ, only "No statistical correlation is observed for PI-1"."""

# §6.3 "Results" (shared/papers/003_507f8d83487961c7.txt, line 293 for the Gene Ontology, line 309
# for ICD-10): Spearman ρ of AvPI vs accuracy over the 50 buckets, K = 20 concepts each, "all
# statistically confirmed (p < .05) by the Permutation test"; digits as printed. Each cell: PI-2, PI-3.
_INVARIANCE = """
go    | .795 .581 | .813 .743 | .950 .850
icd10 | .613 .609 | .700 .535 | .874 .774
"""


def _parse_invariance(text: str) -> dict[str, dict[str, dict[str, float | str]]]:
    out: dict[str, dict[str, dict[str, float | str]]] = {}
    for line in text.strip().splitlines():
        name, *cells = (cell.split() for cell in line.split("|"))
        out[name[0]] = {
            model: {"pi1": NO_CORRELATION, "pi2": float(pi2), "pi3": float(pi3)}
            for model, (pi2, pi3) in zip(PUBLISHED_INVARIANCE_MODELS, cells, strict=True)
        }
    return out


PUBLISHED_INVARIANCE: dict[str, dict[str, dict[str, float | str]]] = _parse_invariance(_INVARIANCE)
"""Dataset → model → method → §6.3's ρ(AvPI, accuracy) (:data:`NO_CORRELATION` for PI-1), the
values of the paper's reading of the answers (the authors' script)."""

PUBLISHED: tuple[PublishedRow, ...] = (
    *_parse(_TABLES),
    *_parse_table4a(_TABLE4A),
    *(
        PublishedRow(model, PAPER, "§6.3", f"{kb}/{method}_rho", v)
        for kb, models in PUBLISHED_INVARIANCE.items()
        for model, cells in models.items()
        for method, v in cells.items()
        if isinstance(v, float)
    ),
)
"""Every value of Tables 1, 3 and 4(a) and §6.3 as :class:`~knowsum.records.PublishedRow` rows: measure
``{dataset}/accuracy`` (Table 1), ``/unique_answers`` and ``/invented`` (Table 3(a)),
``/wrong_due_to_invented`` (Table 3(b)), ``/popularity_rho`` (Table 4(a)), ``/pi2_rho`` and
``/pi3_rho`` (§6.3); percentages as fractions."""

TABLE4A_KBS = frozenset(r.measure.split("/")[0] for r in PUBLISHED if r.table == "Table 4(a)")
"""The datasets Table 4(a) prints a popularity ρ for (``go``, ``icd10``)."""
