"""Every caveat kind on every surface: a record carrying a caveat shows its mark wherever the record is
shown — the census table, ``--json``, page and compare tables, the equal-coverage and overlap tables,
the estimate table and ``--json``, the profile card, page and compare, a recall and a genebench run's
terminal summary, ``--json`` and page, and the recall and genebench compare tables. Enumerated (kinds ×
surfaces), so a new kind or a new surface cannot slip past: a kind is one ``CaveatKind`` member and one
mark, and the surfaces print what the record carries.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from knowsum.census import page as rc
from knowsum.census.record import (
    CensusRecord,
    CoverageRank,
    EqualCoverage,
    Overlap,
    SharedValue,
    load_result,
)
from knowsum.cli import main
from knowsum.estimate import EstimateConfig, estimate
from knowsum.estimate import page as re
from knowsum.genebench import compare_tables as genebench_tables
from knowsum.genebench import page as rg
from knowsum.harness._figures import figures
from knowsum.recall import compare_tables as recall_tables
from knowsum.recall import page as rr
from knowsum.records import DIFFERS
from knowsum.records.profile import InstrumentProfile, Measure, ProfileRecord
from knowsum.report import profile as rp
from knowsum.stats import CAVEAT_MARKS, Caveat, CaveatKind, Prevalence
from tests._profiles import empty_plan
from tests.recall.test_compare import _result as recall_result
from tests.report.test_genebench_report import _records as gene_records
from tests.report.test_genebench_report import _result as gene_result

KINDS = [*CaveatKind, DIFFERS]
"""Every caveat kind of the statistics layer, and the comparability check's ``differs``."""


def _note(kind: str) -> Caveat:
    if kind == DIFFERS:
        return Caveat(kind=DIFFERS, mark="differs: task a vs b", message="differs: task a vs b (test)")
    caveat = Caveat(CaveatKind(kind), f"{CAVEAT_MARKS[CaveatKind(kind)]}: a test sentence", "shared")
    return Caveat.of(caveat)


def test_every_kind_has_one_mark() -> None:
    assert set(CAVEAT_MARKS) == set(CaveatKind)
    assert len(set(CAVEAT_MARKS.values())) == len(CaveatKind)  # each mark names one kind


@pytest.fixture(scope="module")
def census(tmp_path_factory: pytest.TempPathFactory) -> CensusRecord:
    """A real census record: ``census score`` of a small items file (no caveat of its own is needed)."""
    folder = tmp_path_factory.mktemp("census")
    items = folder / "items.tsv"
    skewed = [int(60 * (((q * 3 + j) * 0.6180339) % 1) ** 2) for q in range(40) for j in range(3)]
    rows = [f"Q{i // 3}\titem{k}" for i, k in enumerate(skewed)]
    items.write_text("\n".join(rows) + "\n", encoding="utf-8")
    args = ["census", "score", str(items), "--out", str(folder / "run"), "--n-bootstrap", "50", "--t", "1"]
    assert main(args) == 0
    result = load_result(folder / "run")
    # every census carries its simulated error at its own t beside N̂_tot (no longer the back-test's
    # horizon verdict), set aside so that every mark below is the test's
    assert [c.kind for c in result.caveats] == ["own-t-error"] and result.interval_reason is None
    return result.model_copy(update={"caveats": []})


def _census_surfaces(r: CensusRecord, tmp: Path) -> dict[str, str]:
    other = r.model_copy(update={"model": "other", "caveats": []})
    eq = EqualCoverage(
        coverage=0.5,
        source="given",
        level=0.95,
        n_bootstrap=0,
        rows=[
            CoverageRank(
                model=r.model,
                task=r.task,
                data="abundance",
                size=10,
                coverage=0.4,
                coverage_double=0.6,
                n_total=r.n_total,
                t=r.t,
                at_size=5.0,
                method="rarefaction",
                beyond_double=False,
                richness=3.0,
                caveats=r.caveats,
            )
        ],
    )
    overlap = Overlap(
        runs=("a", "b"),
        models=(r.model, "other"),
        task=r.task,
        criterion=r.criterion,
        data="abundance",
        sizes=(10, 10),
        n_seen=(5, 5),
        observed_shared=2,
        level=0.95,
        caveats=r.caveats,
        estimates=[SharedValue(name="shared", method="m", estimate=9.0, std_error=None, interval=None)],
    )
    page = rc.write_census_compare(tmp / "compare.html", [r, other])
    return {
        "census table": rc.summary_table(r),
        "census --json": json.dumps(rc.summary_data(r), ensure_ascii=False),
        "census page": rc.render_report(r, {}, {}),
        "compare table": rc.compare_text([r, other]),
        "compare markdown": rc.compare_text([r, other], markdown=True),
        "compare --json": json.dumps(rc.compare_data([r, other]), ensure_ascii=False),
        "compare page": page.read_text(encoding="utf-8"),
        "coverage table": rc.coverage_table(eq),
        "coverage --json": json.dumps(rc.coverage_data(eq), ensure_ascii=False),
        "coverage page": str(rc.coverage_html(eq)),
        "overlap table": rc.overlap_table(overlap),
        "overlap --json": json.dumps(rc.overlap_data(overlap), ensure_ascii=False),
        "inspect log caveats": "\n".join(f"{code}: {sentence}" for code, sentence in figures(r)[1]),
    }


def _estimate_surfaces(notes: list[Caveat]) -> dict[str, str]:
    found = estimate(Prevalence.from_counts([1, 1, 2, 3, 5, 8] * 5), EstimateConfig(t=1.0))
    assert found.caveats == () and found.interval_reason is None  # a clean estimate: the marks are the test's
    report = replace(found, caveats=tuple(notes))
    return {
        "estimate table": re.estimate_table(report),
        "estimate --json": json.dumps(re.estimate_json(report), ensure_ascii=False),
    }


def _profile(model: str, notes: list[Caveat], reason: str | None = None) -> ProfileRecord:
    measure = Measure(
        key="census/diseases/relaxed/n_total",
        instrument="census",
        label="N_tot",
        value=14.0,
        lower=3.0,
        upper=102.0,
        method="m",
        run="r",
        marks=notes,
        interval_reason=reason,
    )
    plan = empty_plan()
    census = InstrumentProfile(measures=[measure])
    return ProfileRecord(model=model, budget="b", plan=plan, instruments={"census": census})


def _profile_surfaces(notes: list[Caveat], tmp: Path) -> dict[str, str]:
    mine, other = _profile("m", notes), _profile("o", [])
    return {
        "profile card": "\n".join(" | ".join(row) for row in rp.card_rows(mine)),
        "profile page": rp.write_profile_page(tmp / "index.html", mine).read_text(encoding="utf-8"),
        "profile compare": rp.compare_text([mine, other]),
    }


def _compare_surfaces(notes: list[Caveat]) -> dict[str, str]:
    recall = [
        recall_result("go", "a", 0.5).model_copy(update={"caveats": notes}),
        recall_result("go", "b", 0.4),
    ]
    records = gene_records()
    gene = [
        gene_result(records, model="a").model_copy(update={"caveats": notes}),
        gene_result(records, model="b"),
    ]
    return {
        "recall compare": json.dumps(recall_tables(recall), ensure_ascii=False, default=str),
        "genebench compare": json.dumps(genebench_tables(gene), ensure_ascii=False, default=str),
    }


def _run_surfaces(notes: list[Caveat]) -> dict[str, str]:
    recall = recall_result("go", "a", 0.5).model_copy(update={"caveats": notes})
    records = gene_records()
    gene = gene_result(records, model="a").model_copy(update={"caveats": notes})
    return {
        "recall summary": rr.recall_summary(recall),
        "recall --json": json.dumps(rr.recall_json(recall), ensure_ascii=False),
        "recall page": rr.recall_page(recall, [], {}),
        "genebench summary": rg.summary_text(gene),
        "genebench --json": json.dumps(rg.result_numbers(gene), ensure_ascii=False),
        "genebench page": rg.genebench_page(gene, records, {}),
    }


SURFACES: dict[str, Callable[[CensusRecord, list[Caveat], Path], dict[str, str]]] = {
    "census": lambda r, notes, tmp: _census_surfaces(
        r.model_copy(update={"caveats": notes, "notes": []}), tmp
    ),
    "estimate": lambda r, notes, tmp: _estimate_surfaces(notes),
    "profile": lambda r, notes, tmp: _profile_surfaces(notes, tmp),
    "compare": lambda r, notes, tmp: _compare_surfaces(notes),
    "runs": lambda r, notes, tmp: _run_surfaces(notes),
}


@pytest.mark.parametrize("group", list(SURFACES))
@pytest.mark.parametrize("kind", KINDS)
def test_every_surface_shows_every_caveat(
    group: str, kind: str, census: CensusRecord, tmp_path: Path
) -> None:
    note = _note(kind)
    shown = SURFACES[group](census, [note], tmp_path)
    bare = SURFACES[group](census, [], tmp_path)
    for surface, text in shown.items():
        assert note.mark in text, f"{surface} does not show the {kind!r} mark"
        assert note.mark not in bare[surface], f"{surface} shows {note.mark!r} without the caveat"


def test_an_interval_that_cannot_be_one_is_na_on_every_census_surface(
    census: CensusRecord, tmp_path: Path
) -> None:
    """The clamp case: a record whose interval is a point prints ``n/a: REASON``, never ``[x, x]``."""
    reason = "Û(t) = 0, where a log-normal interval is a point"
    r = census.model_copy(
        update={"interval": None, "interval_total": None, "interval_skr": None, "interval_reason": reason}
    )
    for surface, text in _census_surfaces(r, tmp_path).items():
        if surface.startswith(("census", "compare --json")):
            assert f"n/a: {reason}" in text or '"interval_total": null' in text, surface
    table = rc.summary_table(r)
    assert table.count(f"n/a: {reason}") == 3  # Û(t), N̂_tot and SKR intervals
    # an older record that stored the point itself still prints n/a
    old = census.model_copy(update={"interval_total": (5.0, 5.0), "interval_reason": None})
    assert "[5, 5]" not in rc.summary_table(old) and "n/a: the interval is a point" in rc.summary_table(old)
    card = _profile("m", [], reason)
    assert f"n/a: {reason}" in rp.card_rows(card)[0][2]
    assert "[3, 102]" not in rp.write_profile_page(tmp_path / "p.html", card).read_text(encoding="utf-8")


def test_a_note_copies_any_caveat_by_its_fields() -> None:
    """One caveat type (``knowsum.caveats.Caveat``): ``of`` reads any caveat-shaped object by name."""
    from types import SimpleNamespace

    from pydantic import ValidationError

    caveat = Caveat(CaveatKind.CLAMPED, "Û clamped at 0: the estimator gave −3", "Û(t)")
    note = Caveat.of(caveat)
    assert (note.kind, note.mark) == ("clamped", CAVEAT_MARKS[CaveatKind.CLAMPED])
    assert (note.message, note.figure) == (caveat.message, "Û(t)")
    assert type(note.kind) is str and Caveat.of(note) == note
    assert Caveat.of(caveat, figure="interval").figure == "interval" and note.figure == "Û(t)"
    with pytest.raises(ValidationError, match="mark"):
        Caveat.of(SimpleNamespace(kind="clamped", message="m", figure=""))


def test_one_caveat_type_from_the_estimator_to_the_record(census: CensusRecord) -> None:
    """The statistics layer's caveat is the record's: the same class under every name, kept as it is
    in a record, written and read back equal; the old record name still works, with a warning."""
    import warnings

    import knowsum.caveats
    import knowsum.records
    import knowsum.stats.caveats

    assert knowsum.stats.caveats.Caveat is knowsum.records.Caveat is knowsum.caveats.Caveat is Caveat
    assert knowsum.stats.caveats.CaveatFields is Caveat
    with pytest.warns(DeprecationWarning, match="CaveatNote is now knowsum.caveats.Caveat"):
        assert knowsum.records.CaveatNote is Caveat
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(AttributeError):
            knowsum.records.NoSuchName  # noqa: B018 - the package's __getattr__ refuses other names
    from_stats = Caveat(CaveatKind.CLAMPED, "Û clamped at 0: the estimator gave −3", "Û(t)")
    own = Caveat(kind="odd-replies", mark="odd", message="some replies say neither")
    assert (from_stats.kind, from_stats.mark) == ("clamped", "Û clamped at 0") and own.figure == ""
    with pytest.raises(ValueError, match="pass mark="):
        Caveat(kind="odd-replies", message="a kind of an instrument's own needs its mark")
    held = census.model_copy(update={"caveats": [from_stats, own]})
    back = CensusRecord.model_validate_json(held.model_dump_json())
    assert back.caveats == [from_stats, own] and back.caveats[0] is not from_stats
    # a record written by an earlier release (CaveatNote's layout: kind, mark, message, figure)
    old = {"kind": "clamped", "mark": "Û clamped at 0", "message": "Û clamped at 0: …", "figure": "Û(t)"}
    assert Caveat.model_validate(old).mark == "Û clamped at 0"
    assert knowsum.caveats.unique_caveats([from_stats, own], [from_stats]) == [from_stats, own]
