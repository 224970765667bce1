"""One type for a paper's published value (``knowsum.records.PublishedRow``): its label, and the
published points of a ``profile.json`` written before (schema version 2) read back as such rows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from knowsum.caveats import Caveat, CaveatKind
from knowsum.instrument import get_instrument
from knowsum.profile import load_profile
from knowsum.records import PublishedRow, published_label, split_label
from knowsum.records.profile import PROFILE_VERSION, Measure

V2 = Path(__file__).resolve().parents[1] / "fixtures" / "profile" / "v2_profile.json"


@pytest.mark.parametrize(
    ("model", "paper", "table"),
    [
        ("GPT-4", "Bombieri et al.", "Table 1"),
        ("GPT-3.5", "Bombieri et al.", "Table 3(a)"),
        ("Pythia-12B", "Bombieri et al.", "§6.3"),
        ("ChatGPT-4o-chat", "KnowSum", "Table 1"),
        ("GPT-5", "SciHorizon-GENE", "Table 2"),
        ("M · x", "A Paper", "Figure 2"),
    ],
)
def test_a_label_splits_back_into_its_paper_and_table(model: str, paper: str, table: str) -> None:
    row = PublishedRow(model, paper, table, "m", 0.5)
    assert row.label == published_label(model, paper, table) == f"{model} · {paper} {table}"
    assert split_label(row.label, model) == (paper, table)


def test_a_label_without_a_table_word_is_all_paper() -> None:
    paper, table = split_label("M · Someone's blog post", "M")
    assert (paper, table) == ("Someone's blog post", "")
    assert published_label("M", paper, table) == "M · Someone's blog post"


def test_a_version_2_profile_loads_with_its_points_as_published_rows(tmp_path: Path) -> None:
    old = json.loads(V2.read_text(encoding="utf-8"))
    assert old["version"] == 2 and PROFILE_VERSION == 4
    shutil.copy(V2, tmp_path / "profile.json")
    r = load_profile(tmp_path)
    assert r.version == PROFILE_VERSION
    for name, part in old["instruments"].items():
        new = r.instruments[name].measures
        assert [m.key for m in new] == [m["key"] for m in part["measures"]]
        for m_old, m_new in zip(part["measures"], new, strict=True):
            assert all(isinstance(p, PublishedRow) for p in m_new.published)
            assert [(p.label, p.model, p.value) for p in m_new.published] == [
                (p["label"], p["model"], p["value"]) for p in m_old["published"]
            ]
            assert {p.measure for p in m_new.published} == {m_old["key"].removeprefix(f"{name}/")}
            assert m_new.notes == m_old["caveats"]  # the plain sentences, now caveats of kind note
            assert [c.model_dump() for c in m_new.marks] == m_old["marks"]  # the typed ones, as they were
            assert [c.kind for c in m_new.caveats] == ["note"] * len(m_old["caveats"]) + [
                c["kind"] for c in m_old["marks"]
            ]
    points = r.instruments["recall"].measures[1].published
    assert (points[0].paper, points[0].table) == ("Bombieri et al.", "Table 3(a)")
    census = r.instruments["census"].measures[0].published[0]
    assert census == PublishedRow("ChatGPT-4o-chat", "KnowSum", "Table 1", "diseases/relaxed/n_seen", 589.0)


def test_the_migrated_profile_is_written_in_the_new_form(tmp_path: Path) -> None:
    shutil.copy(V2, tmp_path / "profile.json")
    r = load_profile(tmp_path)
    point = json.loads(r.model_dump_json())["instruments"]["genebench"]["measures"][0]["published"][0]
    assert point == {
        "model": "GPT-5",
        "paper": "SciHorizon-GENE",
        "table": "Table 2",
        "measure": "overall",
        "value": 0.6192,
    }
    (tmp_path / "profile.json").write_text(r.model_dump_json(), encoding="utf-8")
    assert load_profile(tmp_path) == r


def test_a_card_row_holds_one_list_of_caveats() -> None:
    """``measure(caveats=…)`` sentences become notes (listed under the comparison, not marked on the
    value); a ``Caveat`` there and ``marks=`` are kept typed, marked on the value; one list, in that
    order, round-tripping through ``profile.json``'s JSON."""
    clamped, tiny = Caveat(CaveatKind.CLAMPED, "Û clamped at 0: …"), Caveat(CaveatKind.TINY_SAMPLE, "tiny: …")
    row = get_instrument("census").measure(
        "k", "label", 1.0, "how", run="r", caveats=["N_query = 3 here", clamped], marks=[tiny]
    )
    assert [c.kind for c in row.caveats] == ["note", "clamped", "tiny-sample"]
    assert row.notes == ["N_query = 3 here"] and row.marks == [clamped, tiny]
    assert Measure.model_validate_json(row.model_dump_json()) == row
