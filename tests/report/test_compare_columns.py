"""``profile compare`` of two profiles of one model at one budget names each column apart: by its
folder where ``model (budget)`` would read alike (the rank column too), by its place without folders."""

from __future__ import annotations

from pathlib import Path

from knowsum.records.profile import InstrumentProfile, Measure, PlanSummary, ProfileRecord
from knowsum.report.profile import column_names, compare_table, compare_text, write_profile_compare


def _profile(model: str, asked: float, right: float) -> ProfileRecord:
    def m(key: str, value: float, **fields: str) -> Measure:
        return Measure(
            key=f"capitals/{key}",
            instrument="capitals",
            label=key,
            value=value,
            method="m",
            run="r",
            **fields,
        )

    plan = PlanSummary.model_validate(
        dict.fromkeys(("requests", "stored", "prompt_tokens", "completion_tokens"), 0)
        | dict.fromkeys(("completion_tokens_expected", "seconds_expected", "cost_usd", "cost_expected_usd"))
        | {"budget": "smoke", "tokens_source": "", "time_source": "", "instruments": {}}
    )
    measures = [m("asked", asked), m("right", right, ranked_by="capitals/asked")]
    return ProfileRecord(
        model=model, budget="smoke", plan=plan, instruments={"capitals": InstrumentProfile(measures=measures)}
    )


def test_alike_columns_add_their_folder(tmp_path: Path) -> None:
    a, b, c = _profile("m", 2, 1), _profile("m", 1, 2), _profile("other", 3, 3)
    folders = [tmp_path / "prof1", tmp_path / "prof2" / "profile.json", tmp_path / "prof3"]
    headers, rows = compare_table([a, b, c], folders=folders)
    assert headers[1:4] == ["m (smoke, prof1)", "m (smoke, prof2)", "other (smoke)"]
    assert rows[-1][-1] == "m (smoke, prof1): 2 → 3; m (smoke, prof2): 3 → 2"  # each ranked apart
    assert "m (smoke, prof2)" in compare_text([a, b], folders=folders[:2], markdown=True)
    page = write_profile_compare(tmp_path / "cmp.html", [a, b], folders=folders[:2]).read_text(
        encoding="utf-8"
    )
    assert "m (smoke, prof1)" in page and "m (smoke, prof2)" in page


def test_alike_folder_names_are_shown_as_given_and_no_folders_by_place(tmp_path: Path) -> None:
    a, b = _profile("m", 2, 1), _profile("m", 1, 2)
    given = [tmp_path / "x" / "prof", tmp_path / "y" / "prof"]
    assert column_names([a, b], given) == [f"m (smoke, {given[0]})", f"m (smoke, {given[1]})"]
    assert column_names([a, b]) == ["m (smoke, #1)", "m (smoke, #2)"]
    assert column_names([a]) == ["m (smoke)"]
