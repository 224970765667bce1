"""`census compare --at-coverage`, `census overlap` and `census run --until-coverage`, end to end on
runs made through the CLI (`census score`) and the mock backend, checked against knowsum.stats."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from knowsum.census import CensusConfig, load_result, run_census, sample_of_result
from knowsum.census._overlap import SHARED_METHODS
from knowsum.census.page import coverage_rows
from knowsum.census.record import CoverageRank, EqualCoverage
from knowsum.cli import main
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from knowsum.stats import (
    chao1_shared,
    chao1_shared_bc,
    chao2_shared,
    chao2_shared_bc,
    coverage_at_size,
    observed_shared,
    rarefaction_extrapolation,
)
from tests.census.zipf import disease_names, make_responses

# model A names many items once (low coverage); model B repeats a few (high coverage)
RUN_A = [["a", "b", "c"], ["a", "d", "e"], ["b", "f", "g"], ["a", "h"], ["i", "j", "b"], ["k"]]
RUN_B = [["a", "b"], ["a", "b", "c"], ["a", "b"], ["a", "c", "d"], ["b", "c"], [], ["a", "e"]]


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _score(tmp_path: Path, name: str, queries: list[list[str]], capsys: Any, *extra: str) -> Path:
    items = tmp_path / f"{name}.jsonl"
    items.write_text("".join(json.dumps({"query": i, "items": x}) + "\n" for i, x in enumerate(queries)))
    out = tmp_path / name
    args = ["--model", name, "--name", "bioasq", "--k", "2", "--n-bootstrap", "20", "--out", str(out), *extra]
    code, _, err = _main(["census", "score", str(items), *args], capsys)
    assert code == 0, err
    return out


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_compare_at_default_coverage_is_inext_estimate_d(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = _score(tmp_path, "A", RUN_A, capsys), _score(tmp_path, "B", RUN_B, capsys)
    code, out, err = _main(
        ["census", "compare", str(a), str(b), "--n-bootstrap", "0", "--json", "--at-coverage"], capsys
    )
    assert code == 0, err
    eq = json.loads(out)["at_coverage"]
    samples = {r: sample_of_result(load_result(p)) for r, p in (("A", a), ("B", b))}
    doubled = {r: float(coverage_at_size(d, [2 * d.size])[0]) for r, d in samples.items()}
    assert eq["coverage"] == pytest.approx(min(doubled.values()), rel=1e-12)  # iNEXT's default level
    assert "doubled samples" in eq["source"]
    for row in eq["rows"]:
        ref = rarefaction_extrapolation(samples[row["model"]], 0, coverages=[eq["coverage"]], n_bootstrap=0)
        assert row["richness"] == pytest.approx(float(ref.coverage_based.diversity[0, 0]), rel=1e-9)
        assert row["at_size"] == pytest.approx(float(ref.coverage_based.size[0]), rel=1e-9)
        assert not row["beyond_double"]  # the default C never extrapolates past 2n
    by_c = sorted(eq["rows"], key=lambda r: -r["richness"])
    assert [r["rank_coverage"] for r in by_c] == [1, 2]
    code, out, _ = _main(
        ["census", "compare", str(a), str(b), "--at-coverage", "0.5", "--n-bootstrap", "30"], capsys
    )
    assert code == 0
    assert "ranked at equal sample coverage C = 0.5 (given)" in out and "rank N_tot(t)" in out
    page = tmp_path / "cmp.html"
    args = ["census", "compare", str(a), str(b), "--at-coverage", "0.5", "--json", "--html", str(page)]
    band = json.loads(_main(args, capsys)[1])
    assert "Ranking at equal coverage" in page.read_text() and "rank at C" in page.read_text()
    for row in band["at_coverage"]["rows"]:
        assert row["lower"] <= row["richness"] <= row["upper"]


def test_rank_change_is_marked_where_the_rankings_differ() -> None:
    def row(model: str, n_total: float, richness: float) -> CoverageRank:
        return CoverageRank(
            model=model,
            task="diseases",
            data="abundance",
            size=100,
            coverage=0.8,
            coverage_double=0.9,
            n_total=n_total,
            t=100,
            at_size=80,
            method="rarefaction",
            beyond_double=False,
            richness=richness,
        )

    eq = EqualCoverage(
        coverage=0.7,
        source="given",
        level=0.95,
        n_bootstrap=0,
        rows=[row("m1", 500, 40), row("m2", 300, 60), row("m3", 100, 10)],
    )
    marks = {r[0]: (r[4], r[-2], r[-1]) for r in coverage_rows(eq)}  # the last two: rank at C, change
    assert marks == {"m2": (2, 1, "↑1"), "m1": (1, 2, "↓1"), "m3": (3, 3, "=")}


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_compare_at_coverage_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _score(tmp_path, "A", RUN_A, capsys)
    b = _score(tmp_path, "B", RUN_B, capsys, "--count", "incidence")
    code, _, err = _main(["census", "compare", str(a), str(a), "--at-coverage", "1.5"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "between 0 and 1" in err
    code, _, err = _main(["census", "compare", str(a), str(b), "--at-coverage", "0.5"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "counting mention vs incidence" in err


def _aligned(x: dict[str, int], y: dict[str, int]) -> tuple[list[int], list[int]]:
    keys = list(dict.fromkeys([*x, *y]))
    return [x.get(k, 0) for k in keys], [y.get(k, 0) for k in keys]


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
@pytest.mark.parametrize("count", ["mention", "incidence"])
def test_overlap_estimates_the_shared_items(
    count: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _score(tmp_path, "A", RUN_A, capsys, "--count", count)
    b = _score(tmp_path, "B", RUN_B, capsys, "--count", count)
    code, out, err = _main(["census", "overlap", str(a), str(b), "--json"], capsys)
    assert code == 0, err
    got = json.loads(out)
    if count == "mention":
        ca = {k: sum(q.count(k) for q in RUN_A) for q in RUN_A for k in q}
        cb = {k: sum(q.count(k) for q in RUN_B) for q in RUN_B for k in q}
        x, y = _aligned(ca, cb)
        refs = [observed_shared(x, y), chao1_shared(x, y), chao1_shared_bc(x, y)]
    else:
        ca = {k: sum(k in q for q in RUN_A) for q in RUN_A for k in q}
        cb = {k: sum(k in q for q in RUN_B) for q in RUN_B for k in q}
        x, y = _aligned(ca, cb)
        refs = [
            observed_shared(x, y),
            chao2_shared(x, y, len(RUN_A), len(RUN_B)),
            chao2_shared_bc(x, y, len(RUN_A), len(RUN_B)),
        ]
    assert got["observed_shared"] == 5 and got["models"] == ["A", "B"]  # a b c d e
    assert [e["name"] for e in got["estimates"]] == [r.estimator for r in refs]
    for e, r in zip(got["estimates"], refs, strict=True):
        assert e["estimate"] == pytest.approx(r.estimate, rel=1e-12) and e["estimate"] >= 5
        assert e["std_error"] == (None if r.std_error is None else pytest.approx(r.std_error, rel=1e-12))
    code, out, _ = _main(["census", "overlap", str(a), str(b)], capsys)
    assert code == 0 and out.startswith("shared by A and B · bioasq")
    assert ("Pan et al. 2009" if count == "mention" else "Chao et al. 2000") in out


# shared p (2 and 1 mentions), q (1 and 2) and, in the first pair only, a (2 and 2): without a, no
# shared item is seen twice by both (f22 = 0), and Chao1-shared's classic form divides by f22
CLASSIC_A = [["p", "a"], ["p", "q", "a"], ["x"], ["y", "z"]]
CLASSIC_B = [["p", "q", "a"], ["q", "a"], ["w"]]
NO_F22_A = [["p"], ["p", "q"], ["x"], ["y", "z"]]
NO_F22_B = [["p", "q"], ["q"], ["w"]]


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
@pytest.mark.parametrize(
    ("count", "symbol", "name"), [("mention", "f", "chao1"), ("incidence", "Q", "chao2")]
)
def test_overlap_names_the_bias_corrected_form_when_a_doubleton_count_is_zero(
    count: str, symbol: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """SpadeR's rule computes the classic estimator's bias-corrected form when f2+, f+2 or f22 (Q…)
    is 0: the method printed beside the value says so (it showed the classic formula)."""
    a = _score(tmp_path, "A", NO_F22_A, capsys, "--count", count)
    b = _score(tmp_path, "B", NO_F22_B, capsys, "--count", count)
    x, y = [2, 1, 1, 1, 1, 0], [1, 2, 0, 0, 0, 1]  # p q x y z w
    assert chao1_shared(x, y).bias_corrected_because == "f22 = 0"
    assert chao1_shared(x, y).estimate == chao1_shared_bc(x, y).estimate
    code, out, err = _main(["census", "overlap", str(a), str(b), "--json"], capsys)
    assert code == 0, err
    rows = {e["name"]: e for e in json.loads(out)["estimates"]}
    classic, corrected = rows[f"{name}-shared"], rows[f"{name}-shared-bc"]
    assert classic["estimate"] == pytest.approx(corrected["estimate"], rel=1e-12)
    because = f"because {symbol}22 = 0 (SpadeR's rule)"
    assert classic["method"].startswith("bias-corrected form, ") and because in classic["method"]
    assert classic["method"] != SHARED_METHODS[f"{name}-shared"]
    assert corrected["method"] == SHARED_METHODS[f"{name}-shared-bc"]  # asked for, so no reason
    code, out, _ = _main(["census", "overlap", str(a), str(b)], capsys)
    line = next(x for x in out.splitlines() if x.startswith(f"{name}-shared "))
    assert code == 0 and because in line and SHARED_METHODS[f"{name}-shared"] not in out


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
@pytest.mark.parametrize(("count", "name"), [("mention", "chao1"), ("incidence", "chao2")])
def test_overlap_names_the_classic_formula_when_every_doubleton_count_is_positive(
    count: str, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _score(tmp_path, "A", CLASSIC_A, capsys, "--count", count)
    b = _score(tmp_path, "B", CLASSIC_B, capsys, "--count", count)
    x, y = [2, 1, 2, 1, 1, 1, 0], [1, 2, 2, 0, 0, 0, 1]  # p q a x y z w
    assert chao1_shared(x, y).bias_corrected_because is None
    assert chao2_shared(x, y, 3, 3).bias_corrected_because is None
    assert chao1_shared([1, 3], [1, 1]).bias_corrected_because == "f2+ = 0, f+2 = 0 and f22 = 0"
    assert chao2_shared([2, 1], [1, 1], 3, 3).bias_corrected_because == "Q+2 = 0 and Q22 = 0"
    code, out, err = _main(["census", "overlap", str(a), str(b), "--json"], capsys)
    assert code == 0, err
    rows = {e["name"]: e for e in json.loads(out)["estimates"]}
    assert rows[f"{name}-shared"]["method"] == SHARED_METHODS[f"{name}-shared"]
    assert rows[f"{name}-shared"]["estimate"] != pytest.approx(rows[f"{name}-shared-bc"]["estimate"])
    code, out, _ = _main(["census", "overlap", str(a), str(b)], capsys)
    line = next(x for x in out.splitlines() if x.startswith(f"{name}-shared "))
    assert code == 0 and SHARED_METHODS[f"{name}-shared"] in line and "bias-corrected form" not in out


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_overlap_refuses_runs_that_are_not_the_same_census(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = _score(tmp_path, "A", RUN_A, capsys)
    b = _score(tmp_path, "B", RUN_B, capsys, "--criterion", "strict")
    code, out, err = _main(["census", "overlap", str(a), str(b)], capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "are not comparable (criterion relaxed vs strict)" in err


@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=40))
@settings(max_examples=80, deadline=None)
def test_chao2_shared_invariants(pairs: list[tuple[int, int]]) -> None:
    x, y = [p[0] for p in pairs] + [1], [p[1] for p in pairs] + [1]  # at least one shared species
    t1, t2 = sum(x), sum(y)
    shared = chao2_shared(x, y, t1, t2)
    assert shared.estimate == pytest.approx(chao1_shared(x, y).estimate, rel=1e-12)  # T = n: same formula
    assert shared.observed_shared <= min(shared.s_obs) and shared.estimate >= shared.observed_shared - 1e-9
    assert chao2_shared_bc(x, y, t1 + 5, t2 + 5).estimate >= shared.observed_shared - 1e-9


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_until_coverage_stops_once_coverage_is_reached(
    kb_home: Path, tmp_path: Path, store: ResponseStore
) -> None:
    texts, _ = make_responses(disease_names(load_ontology("doid"), 300), 120, 12)
    empty = 10  # the first ten responses name nothing: no coverage to print yet
    backend = MockBackend(
        lambda r: "I cannot list diseases." if r.sample_index < empty else texts[r.sample_index]
    )
    said: list[str] = []
    cfg = CensusConfig(task="diseases", queries=120, until_coverage=0.85, batch_queries=10, n_bootstrap=0)
    result = run_census(cfg, backend, store=store, out=tmp_path / "run", echo=said.append).record
    stop = result.stop
    assert stop is not None and (stop.reason, stop.rule, stop.threshold) == ("coverage", "coverage", 0.85)
    values = [v for _, v in stop.history]
    assert values[0] == -1.0 and values[-1] >= 0.85 > values[-2] and stop.queries < 120
    assert result.richness is not None and result.richness.coverage == pytest.approx(values[-1], rel=1e-12)
    first = (
        "census: 10 queries, no verified item yet: nothing to estimate the sample coverage from, sampling on"
    )
    assert first in said
    assert not any("inf" in line for line in said)
    assert f"stopped after {stop.queries} queries: sample coverage" in stop.message


def test_until_coverage_outside_0_1_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    for value in ("0", "1", "1.5"):
        code, out, err = _main(["census", "run", "theorems", "-m", "mock", "--until-coverage", value], capsys)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "until_coverage" in err


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_compare_at_coverage_gives_the_prediction_interval_of_an_extrapolated_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """At a coverage above a run's own the run is extrapolated: its row carries the q = 0 prediction
    interval of the richness its further queries show (iNEXT's bootstrap variance + Poisson U), which
    holds the band on the attainable range; a rarefied run's is n/a with the reason."""
    a, b = _score(tmp_path, "A", RUN_A, capsys), _score(tmp_path, "B", RUN_B, capsys)
    args = ["census", "compare", str(a), str(b), "--at-coverage", "0.7", "--n-bootstrap", "50", "--json"]
    code, out, err = _main(args, capsys)
    assert code == 0, err
    rows = json.loads(out)["at_coverage"]["rows"]
    methods = {r["method"] for r in rows}
    assert "extrapolation" in methods
    for row in rows:
        n_seen = load_result(a if row["model"] == "A" else b).n_seen
        if row["method"] != "extrapolation":
            assert row["prediction_interval_total"] is None and row["prediction_reason"].startswith("m ")
            continue
        lo, hi = row["prediction_interval_total"]
        assert row["prediction_interval"] == pytest.approx([lo - n_seen, hi - n_seen])
        assert n_seen <= lo <= max(row["lower"], n_seen) and hi >= row["upper"]
        assert "Poisson U" in row["prediction_method"]
    code, out, _ = _main(args[:-1], capsys)
    assert code == 0 and "95% prediction" in out


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")
def test_equal_coverage_band_holds_the_items_seen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Where a run is extrapolated, its q = 0 band stays in [N_seen, N_seen + (m − n)]; iNEXT's own
    band (cut at 0 only: lower ends 0 and 3.2 here) is kept beside it in the JSON, the table and the page."""
    a, b = _score(tmp_path, "A", RUN_A, capsys), _score(tmp_path, "B", RUN_B, capsys)
    page = tmp_path / "cmp.html"
    args = ["census", "compare", str(a), str(b), "--at-coverage", "0.9", "--n-bootstrap", "50"]
    code, out, err = _main([*args, "--json", "--html", str(page)], capsys)
    assert code == 0, err
    eq = json.loads(out)["at_coverage"]
    assert "cut to the attainable [S_obs, S_obs + (m − N)]" in eq["band_method"]
    seen = {"A": 11, "B": 5}
    for row in eq["rows"]:
        assert row["method"] == "extrapolation"
        assert row["band_inext"][0] < seen[row["model"]] == row["lower"] <= row["richness"] <= row["upper"]
        assert row["upper"] <= seen[row["model"]] + row["at_size"] - row["size"]  # one item per mention
    text = _main(args, capsys)[1]
    note = next(line for line in text.splitlines() if line.startswith("band: cut to the attainable range"))
    for row in eq["rows"]:
        assert f"{row['model']} (bioasq) [" in note
    assert "band: cut to the attainable range" in page.read_text(encoding="utf-8")
