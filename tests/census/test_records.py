"""The census record in the one instrument shape: every schema version on disk still loads, a run
returns a CensusRun and writes plots/, report.html and result.json, and published rows are marked
one way."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import (
    RESULT_VERSION,
    CensusConfig,
    CensusRecord,
    CensusRun,
    compare_results,
    load_result,
    prepare_census,
    run_census,
)
from knowsum.errors import InputFileError
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from knowsum.records import load_record
from tests.census.zipf import disease_names

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.mark.parametrize("version", [1, 2, 3])
def test_every_earlier_schema_version_loads(version: int, tmp_path: Path) -> None:
    path = FIXTURES / f"result_v{version}.json"
    old = json.loads(path.read_text())
    assert old["version"] == version and old["kind"] == "text"  # the task kind, before version 4
    result = load_record(path, CensusRecord)
    assert load_result(path) == result
    assert (result.version, result.kind, result.task_kind) == (RESULT_VERSION, "census", "text")
    assert (result.model, result.backend, result.knowsum_version) == ("old-model", "items", "")
    assert (result.task, result.n_seen, result.n_total) == ("score:items", old["n_seen"], old["n_total"])
    assert result.config == old["parameters"]  # stored as parameters before version 6
    assert result.n_unseen_raw == old["n_unseen"]  # positive: reported as computed
    assert all(p.unseen_raw == p.unseen for p in result.curve)
    if version == 1:  # written with percentile intervals, incidence counting unless count_duplicates
        assert (result.interval_method, result.counting) == ("percentile", "incidence")
    else:
        assert (result.interval_method, result.counting) == ("lognormal", "mention")
        assert result.sensitivity is not None
        assert [p.n_unseen_raw for p in result.sensitivity.k_points] == [
            p["n_unseen"] for p in old["sensitivity"]["k_points"]
        ]
    # an old run directory still gets its page
    from knowsum.census.page import write_census_report

    written = write_census_report(tmp_path, result)
    assert written[-1] == tmp_path / "report.html" and all(p.is_file() for p in written)
    assert {p.parent.name for p in written[:-1]} == {"plots"}


def test_a_version_5_record_reads_its_parameters_as_config(tmp_path: Path) -> None:
    path = FIXTURES / "result_v5.json"
    old = json.loads(path.read_text())
    assert old["version"] == 5 and "config" not in old and old["parameters"]["k"] == 2
    result = load_result(path)
    assert (result.version, result.kind, result.model) == (RESULT_VERSION, "census", "old-model")
    assert result.config == old["parameters"]
    assert (result.config["n_bootstrap"], result.config["k"]) == (20, 2)  # as the fixture was made
    assert (result.n_seen, result.n_total, result.k) == (old["n_seen"], old["n_total"], 2)
    # what a run compares with the record's stored settings reads the renamed field
    from knowsum.census._instrument import INSTRUMENT

    assert INSTRUMENT.recorded(result) == old["parameters"]
    # written back, the record holds one config field and reads the same
    again = tmp_path / "result.json"
    again.write_text(result.model_dump_json())
    written = json.loads(again.read_text())
    assert "parameters" not in written and written["config"] == old["parameters"]
    assert load_result(again) == result


def test_another_instruments_record_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "result.json"
    path.write_text(json.dumps({"version": 1, "kind": "recall", "model": "m"}))
    with pytest.raises(InputFileError, match=r"not a census result\.json"):
        load_result(path)


def test_a_run_returns_its_census_run_and_writes_the_run_directory(
    kb_home: Path, tmp_path: Path, store: ResponseStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    names = [name for _, name in disease_names(load_ontology("doid"), 6)]
    texts = ["\n".join(names[i : i + 3]) for i in range(4)]
    backend = MockBackend(lambda r: texts[r.sample_index % 4], model_id="org/tiny-model")
    cfg = CensusConfig(task="diseases", queries=4, n_bootstrap=20)
    monkeypatch.chdir(tmp_path)
    run = run_census(cfg, backend, store=store)
    assert isinstance(run, CensusRun)
    assert run.out_dir == Path("census-runs") / "diseases-tiny-model"  # the default folder
    assert run.report == run.out_dir / "report.html" and run.report.is_file()
    assert {p.name for p in run.out_dir.iterdir()} == {"items.jsonl", "plots", "report.html", "result.json"}
    assert (run.out_dir / "plots" / "prevalence.png").is_file()
    assert load_result(run.out_dir) == run.record
    r = run.record
    assert (r.kind, r.task_kind, r.backend, r.model) == ("census", "diseases", "mock", "org/tiny-model")
    assert set(r.kb_releases) == {"doid"} and r.kb_releases["doid"]
    assert "model" not in r.config and "out" not in r.config  # the method's settings only
    # a plan made for another configuration is refused
    with pytest.raises(ValueError, match="another configuration"):
        run_census(cfg, backend, store=store, plan=prepare_census(cfg.model_copy(update={"queries": 3})))


def test_published_rows_are_marked_one_way() -> None:
    run = FIXTURES / "result_v3.json"
    mixed = compare_results([run], published=True)
    assert mixed.missing == ["score:items relaxed"] and len(mixed.rows) == 1
    assert mixed.reports == [(FIXTURES / "report.html").resolve()]
    from knowsum.census import published_rows

    row = published_rows("diseases", "strict")[6]  # three values per model: the third model's N_seen
    assert row.label == "LLaMA-V3-70B-instruct · KnowSum Table 1"
    assert (row.measure, row.value) == ("diseases/strict/n_seen", 875.0)


def test_the_compare_table_is_headers_and_rows_like_the_profiles() -> None:
    """Both compare tables return ``(headers, rows)``; ``compare_text`` renders one."""
    from knowsum.census import published_rows
    from knowsum.census.page import compare_table, compare_text

    run = load_result(FIXTURES / "result_v4.json")
    published = published_rows("diseases", "strict")[:6]  # two models' N_seen, N̂_tot and SKR
    rows = [run, *published]
    headers, cells = compare_table(rows)
    assert headers[:3] == ["model", "task", "N_seen"] and len(cells) == 3
    assert all(len(row) == len(headers) for row in cells)
    seen = [run.n_seen, *(r.value for r in published if r.measure.endswith("/n_seen"))]
    assert sorted(row[2] for row in cells) == sorted(seen)
    text = compare_text(rows)
    assert all(str(row[0]) in text for row in cells)
    assert compare_text(rows, markdown=True).startswith("| model | task |")


def test_a_models_three_published_values_rank_as_one_row() -> None:
    """The one published type: a model's N_seen, N̂_tot and SKR of a column are one ranked row with
    the paper's numbers; a column missing one of the three is refused, naming what is missing."""
    from knowsum.census import PUBLISHED, published_rows
    from knowsum.census.page import compare_data
    from knowsum.errors import ConfigError
    from knowsum.records import PublishedRow

    assert all(type(r) is PublishedRow for r in PUBLISHED)
    run = load_result(FIXTURES / "result_v4.json")
    data = compare_data([run, *published_rows("theorems", "relaxed")])
    assert len(data) == 10 and sum(d["published"] for d in data) == 9
    llama = next(d for d in data if d["model"] == "LLaMA-V3-70B-instruct · KnowSum Table 1")
    assert (llama["task"], llama["criterion"]) == ("theorems", "relaxed")
    assert (llama["n_seen"], llama["n_total"], llama["skr"]) == (2289, 2645.0, 0.87)
    assert isinstance(llama["n_seen"], int) and llama["rank_total"] == 1
    no_skr = [r for r in published_rows("diseases", "strict") if not r.measure.endswith("/skr")]
    with pytest.raises(
        ConfigError, match=r"ChatGPT-4o-chat · KnowSum Table 1: no published diseases/strict/skr"
    ):
        compare_data([run, *no_skr])
