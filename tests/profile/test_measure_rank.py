"""The rank column of a comparison is named by the ranked measure (``Measure.rank_label``): a
plug-in's measure is printed and ranked the way a built-in's is, whatever its key; a profile written
before these fields existed loads with the values it was shown with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from knowsum.profile import load_profile
from knowsum.records.profile import InstrumentProfile, Measure, PlanSummary, ProfileRecord
from knowsum.report.profile import card_rows, compare_table

V2 = Path(__file__).resolve().parents[1] / "fixtures" / "profile" / "v2_profile.json"


def test_an_old_profile_gets_its_counts_ranking_and_rank_column_from_the_migration(tmp_path: Path) -> None:
    old = json.loads(V2.read_text(encoding="utf-8"))
    assert not any(
        "count" in m or "rank_label" in m for p in old["instruments"].values() for m in p["measures"]
    )
    shutil.copy(V2, tmp_path / "profile.json")
    r = load_profile(tmp_path)
    by = {m.key: m for m in r.measures()}
    seen, total = by["census/diseases/relaxed/n_seen"], by["census/diseases/relaxed/n_total"]
    assert (seen.count, seen.ranked_by, seen.rank_label) == (True, None, "")
    assert (total.count, total.ranked_by, total.rank_label) == (True, seen.key, "N_seen → N̂_tot")
    accuracy = by["recall/go/accuracy"]
    assert accuracy.percent and not accuracy.count and accuracy.ranked_by is None
    headers, _ = compare_table([r])
    assert headers[-1] == "rank N_seen → N̂_tot"
    printed = {row[0]: row[1] for row in card_rows(r)}
    assert printed[f"census: {seen.label}"] == f"{seen.value:,.0f}"  # a count: 1,234
    assert printed[f"recall: {accuracy.label}"] == f"{100 * accuracy.value:.1f}%"  # type: ignore[operator]


def _m(key: str, label: str, value: float, **fields: Any) -> Measure:
    return Measure(
        key=f"capitals/{key}", instrument="capitals", label=label, value=value, method="m", run="r", **fields
    )


def _plug_in(model: str, asked: float, right: float, share: float) -> ProfileRecord:
    """A plug-in instrument's profile whose keys follow no built-in's naming."""
    measures = [
        _m("asked", "capitals asked", asked, count=True),
        _m(
            "right",
            "capitals right",
            right,
            count=True,
            ranked_by="capitals/asked",
            rank_label="asked → right",
        ),
        _m("n_total", "share right", share, percent=True, count=False),  # stated: no old-file migration
    ]
    plan = PlanSummary.model_validate(
        dict.fromkeys(("requests", "stored", "prompt_tokens", "completion_tokens"), 0)
        | dict.fromkeys(("completion_tokens_expected", "seconds_expected", "cost_usd", "cost_expected_usd"))
        | {"budget": "b", "tokens_source": "", "time_source": "", "instruments": {}}
    )
    return ProfileRecord(
        model=model, budget="b", plan=plan, instruments={"capitals": InstrumentProfile(measures=measures)}
    )


def test_a_plug_in_measure_formats_and_ranks_by_its_own_fields_not_its_key() -> None:
    a, b = _plug_in("a", 1200, 15, 0.75), _plug_in("b", 900, 18, 0.5)
    assert [row[1] for row in card_rows(a)] == ["1,200", "15", "75.0%"]
    headers, rows = compare_table([a, b])
    assert headers[-1] == "rank asked → right"
    got = {row[0]: row[-1] for row in rows}
    # ranked by asked: a 1, b 2; by right: b 1, a 2
    assert got == {"capitals asked": "=", "capitals right": "a (b): 1 → 2; b (b): 2 → 1", "share right": "="}
    by = {m.key: m for m in a.measures()}
    assert (
        by["capitals/n_total"].ranked_by is None and not by["capitals/n_total"].count
    )  # its key says nothing


def test_without_a_ranked_measure_the_rank_column_is_plain() -> None:
    a = _plug_in("a", 1, 2, 0.5)
    a.instruments["capitals"].measures[1] = (
        a.instruments["capitals"].measures[1].model_copy(update={"ranked_by": None, "rank_label": ""})
    )
    headers, rows = compare_table([a])
    assert headers[-1] == "rank" and all(row[-1] == "" for row in rows)


def test_with_published_the_papers_models_whose_rank_changes_are_listed_too() -> None:
    """Ranks are taken among the profiles and the papers' models; each that moves is named (a papers'
    model too), so ``=`` is printed only where nobody moves."""
    from knowsum.records import PublishedRow

    def rows(measure: str, x: float, y: float) -> list[PublishedRow]:
        return [PublishedRow("X", "P", "T1", measure, x), PublishedRow("Y", "P", "T1", measure, y)]

    a = _plug_in("a", 1000, 10, 0.5)
    ms = a.instruments["capitals"].measures
    ms[0] = ms[0].model_copy(update={"published": rows("asked", 2000, 500)})  # by asked: X, a, Y
    ms[1] = ms[1].model_copy(update={"published": rows("right", 5, 20)})  # by right: Y, a, X
    _, plain = compare_table([a])
    assert {row[0]: row[-1] for row in plain}["capitals right"] == "="  # alone, a keeps its rank
    _, listed = compare_table([a], published=True)
    change = {row[0]: row[-1] for row in listed}["capitals right"]
    x, y = (f"{p.label}: {r}" for p, r in zip(ms[1].published, ("1 → 3", "3 → 1"), strict=True))
    assert change == f"{y}; {x}"  # in the order of the new rank
