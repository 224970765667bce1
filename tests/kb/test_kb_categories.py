"""One category per DO term (issue 18): every rule on a hand-written DO fixture, the CLI, the strict
criterion that uses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig
from knowsum.census._tasks import resolve_task
from knowsum.census._verify import KBVerifier
from knowsum.cli import main
from knowsum.errors import UnknownNameError
from knowsum.kb import CATEGORY_RULES, Ontology, assign_categories, category_counts, install
from knowsum.kb._store import write_store
from knowsum.kb.loaders import obo

ANAT, PROLIF, GENETIC, INFECT, SYNDROME = "DOID:7", "DOID:14566", "DOID:630", "DOID:0050117", "DOID:225"
CATEGORIES = (ANAT, PROLIF, GENETIC, INFECT, SYNDROME)

# Assigned by hand from the fixture's parents (tests/fixtures/kb/doid_categories.obo):
#   9000002 organ cancer          is_a organ disease (→ 7), cancer (→ 14566)      one path each
#   9000004 genetic organ disease is_a genetic disease (630), organ disease (→ 7)  one path each
#   9000005 syndromic disorder    is_a syndrome (225), organ subdisease (→ 7), organ disease (→ 7)
#                                 two paths to 7, one to 225
#   9000007 organ infection       is_a organ disease (→ 7), infectious agent (0050117)
# precedence: infectious, proliferation, (mental, metabolism,) anatomical, genetic, (physical,)
# syndrome; anatomical-last moves anatomical to the end; most-paths breaks ties by precedence.
HAND: dict[str, dict[str, tuple[str, ...]]] = {
    "DOID:9000001": {r: (ANAT,) for r in CATEGORY_RULES},
    "DOID:9000002": {
        "any-path": (PROLIF, ANAT),
        "first-parent": (ANAT,),
        "most-paths": (PROLIF,),
        "anatomical-last": (PROLIF,),
        "precedence": (PROLIF,),
    },
    "DOID:9000003": {r: (PROLIF,) for r in CATEGORY_RULES},
    "DOID:9000004": {
        "any-path": (GENETIC, ANAT),
        "first-parent": (GENETIC,),
        "most-paths": (ANAT,),
        "anatomical-last": (GENETIC,),
        "precedence": (ANAT,),
    },
    "DOID:9000005": {
        "any-path": (SYNDROME, ANAT),
        "first-parent": (SYNDROME,),
        "most-paths": (ANAT,),
        "anatomical-last": (SYNDROME,),
        "precedence": (ANAT,),
    },
    "DOID:9000006": {r: (ANAT,) for r in CATEGORY_RULES},
    "DOID:9000007": {
        "any-path": (INFECT, ANAT),
        "first-parent": (ANAT,),
        "most-paths": (INFECT,),
        "anatomical-last": (INFECT,),
        "precedence": (INFECT,),
    },
    "DOID:9000009": {r: () for r in CATEGORY_RULES},  # no path to the root
}


@pytest.fixture
def mini_do(kb_fix: Path, tmp_path: Path) -> Ontology:
    data = obo.load_obo(kb_fix / "doid_categories.obo", "doid")
    data.meta["roots"] = "DOID:4"
    write_store(data, tmp_path / "doid.sqlite")  # through the store, as an install: file order kept
    return Ontology.open("doid", tmp_path / "doid.sqlite")


@pytest.mark.parametrize("rule", CATEGORY_RULES)
def test_each_rule_assigns_the_hand_assigned_categories(mini_do: Ontology, rule: str) -> None:
    got = assign_categories(mini_do, rule)  # type: ignore[arg-type]
    # every non-obsolete term below the root, the categories themselves included (as themselves)
    assert set(got) == set(HAND) | set(CATEGORIES) and "DOID:9000008" not in got and "DOID:4" not in got
    assert {t: got[t] for t in HAND} == {t: cats[rule] for t, cats in HAND.items()}
    assert all(got[c] == (c,) for c in CATEGORIES)


def test_counts_one_category_per_term_except_any_path(mini_do: Ontology) -> None:
    counts, total = category_counts(assign_categories(mini_do, "precedence"))
    assert total == 13 and sum(counts.values()) == 13
    # anatomical: DOID:7, 9000001, 9000004, 9000005, 9000006
    assert counts == {ANAT: 5, PROLIF: 3, INFECT: 2, GENETIC: 1, SYNDROME: 1, "(none)": 1}
    any_path, _ = category_counts(assign_categories(mini_do, "any-path"))
    assert any_path[ANAT] == 7 and sum(any_path.values()) == 13 + 4  # four terms reach two categories
    with pytest.raises(UnknownNameError, match="unknown category rule 'widest'"):
        assign_categories(mini_do, "widest")  # type: ignore[arg-type]


def test_strict_disease_criterion_uses_one_category_per_term(mini_do: Ontology) -> None:
    task = resolve_task(CensusConfig(task="diseases"))
    names = [
        "organ disease",
        "organ cancer",
        "genetic organ disease",
        "syndromic organ disorder",
        "organ infection",
        "stray term",
    ]
    strict = KBVerifier(task, "strict", mini_do, 0.9).verify(names, [None] * len(names))
    relaxed = KBVerifier(task, "relaxed", mini_do, 0.9).verify(names, [None] * len(names))
    assert [v.status for v in strict] == ["valid", "excluded", "valid", "valid", "excluded", "excluded"]
    assert [v.status for v in relaxed] == ["valid"] * 5 + ["excluded"]
    record = KBVerifier(task, "strict", mini_do, 0.9).category_record()
    assert (
        record.rule == "precedence" and record.total == 13 and record.strict == "disease of anatomical entity"
    )
    assert record.counts["disease of anatomical entity"] == 5
    assert record.paper == {"disease of anatomical entity": 6036, "total": 11872}


def test_kb_categories_cli(registry_cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On the 610-term DO slice installed through the registry path: JSON shape, one category per
    term, every rule side by side."""
    install(["doid"])
    assert main(["kb", "categories", "doid", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["rule"] == "precedence" and record["kb"] == "doid"
    assert sum(record["categories"].values()) == record["total"] == 609  # 610 terms minus the root
    assert record["paper"] == {"disease of anatomical entity": 6036, "total": 11872}
    assert main(["kb", "categories", "doid", "--rule", "all"]) == 0
    out = capsys.readouterr().out
    for rule in CATEGORY_RULES:
        assert f"{rule} rule" in out
    assert "6,036 (50.8 %)" in out and "not in the text" in out
    assert main(["kb", "categories", "doid", "--rule", "widest"]) == 2


def _per_term(onto: Ontology) -> dict[str, tuple[str, ...]]:
    roots = set(onto.roots)
    return {t: onto.category(t) for t in onto if not onto[t].obsolete and t not in roots}


def test_one_pass_reached_categories_equal_the_per_term_search(mini_do: Ontology) -> None:
    # any-path is computed for all terms in one pass over the is_a edges; it must give exactly what
    # Ontology.category's ancestor search gives term by term
    assert assign_categories(mini_do, "any-path") == _per_term(mini_do)


@pytest.mark.realdata
def test_one_pass_reached_categories_on_the_installed_do() -> None:
    from knowsum.kb import installed, load_ontology

    if installed("doid") is None:
        pytest.skip("DOID not installed (make data)")
    doid = load_ontology("doid")
    fast = assign_categories(doid, "any-path")
    assert len(fast) > 11_000 and fast == _per_term(doid)
    counts, total = category_counts(assign_categories(doid, "precedence"))
    assert round(100 * counts["DOID:7"] / total, 1) == 50.8  # the module docstring's figure


def test_an_is_a_cycle_ends_with_every_rule(tmp_path: Path) -> None:
    # a malformed file whose terms A and B are each other's parents (B also under DOID:7)
    src = tmp_path / "cycle.obo"
    src.write_text(
        "format-version: 1.2\nontology: doid\n\n[Term]\nid: DOID:4\nname: disease\n\n"
        "[Term]\nid: DOID:7\nname: disease of anatomical entity\nis_a: DOID:4\n\n"
        "[Term]\nid: DOID:9100001\nname: a\nis_a: DOID:9100002\n\n"
        "[Term]\nid: DOID:9100002\nname: b\nis_a: DOID:9100001\nis_a: DOID:7\n"
    )
    data = obo.load_obo(src, "doid")
    data.meta["roots"] = "DOID:4"
    write_store(data, tmp_path / "doid.sqlite")
    onto = Ontology.open("doid", tmp_path / "doid.sqlite")
    for rule in CATEGORY_RULES:  # every rule ends; first-parent goes round the loop and gives up
        got = assign_categories(onto, rule)
        assert got["DOID:9100002"] == (() if rule == "first-parent" else (ANAT,)), rule
    assert assign_categories(onto, "any-path") == _per_term(onto)


def test_doid_installed_from_an_obo_file_keeps_the_do_root(
    kb_fix: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `kb install doid --from FILE.obo` records DOID:4 as the root, as the packaged install does;
    # without it, the fixture's orphan DOID:9000009 would be a second root with categories of its own
    monkeypatch.setenv("KNOWSUM_HOME", str(tmp_path / "home"))
    assert main(["kb", "install", "doid", "--from", str(kb_fix / "doid_categories.obo")]) == 0
    from knowsum.kb import load_ontology

    doid = load_ontology("doid")
    assert doid.roots == ("DOID:4",)
    got = assign_categories(doid, "precedence")
    assert {t: got[t] for t in HAND} == {t: cats["precedence"] for t, cats in HAND.items()}
