"""`knowsum census score ITEMS` (issue 10 item 4): bring-your-own per-query items, end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result, read_items
from knowsum.cli import main
from knowsum.stats import Prevalence, estimate_unseen
from knowsum.stats.bootstrap import ZERO_REASON


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


# MeSH-like keywords recovered per BioASQ-like question (App. 2 shape); Q3 recovered nothing
JSONL = [
    {"query": "Q1", "items": ["Humans", "COVID-19", "Antiviral Agents"]},
    {"query": "Q2", "items": ["Humans", "Molnupiravir", "COVID-19", "Humans"]},
    {"query": "Q3", "items": []},
    {"query": 4, "items": ["Humans", "SLAMF7", "Antibodies, Monoclonal"]},
]


@pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")  # Û < 0 on this tiny sample
def test_jsonl_and_tsv_give_the_same_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    jsonl = tmp_path / "mesh.jsonl"
    jsonl.write_text("\n".join(json.dumps(r) for r in JSONL) + "\n")
    tsv = tmp_path / "mesh.tsv"
    tsv.write_text("# query<TAB>item\n" + "".join(f"{r['query']}\t{x}\n" for r in JSONL for x in r["items"]))
    assert read_items(jsonl)[0] == "jsonl" and read_items(tsv)[0] == "tsv"
    runs = []
    for path in (jsonl, tsv):
        out = tmp_path / f"run-{path.suffix[1:]}"
        code, stdout, err = _main(
            [
                "census",
                "score",
                str(path),
                "--model",
                "m1",
                "--n-bootstrap",
                "50",
                "--k",
                "6",
                "--out",
                str(out),
            ],
            capsys,
        )
        assert code == 0, err
        assert f"report: {out / 'report.html'}" in stdout
        assert {p.name for p in out.iterdir()} >= {"result.json", "items.jsonl", "report.html", "plots"}
        runs.append(load_result(out))
    a, b = runs
    # per-mention counting: Humans 4 (twice in Q2), COVID-19 2, the 4 others once
    assert a.prevalence == [(1, 4), (2, 1), (4, 1)] and a.n_observations == 10 and a.n_seen == 6
    assert a.counting == "mention" and a.model == "m1" and a.backend == "items"
    assert a.task == "score:mesh" and a.task_kind == "text" and a.k == 6
    assert (b.prevalence, b.n_seen, b.n_unseen) == (a.prevalence, a.n_seen, a.n_unseen)
    assert (a.n_queries, b.n_queries) == (4, 3)  # JSONL keeps Q3, asked with nothing recovered
    ref = estimate_unseen(Prevalence.from_table({1: 4, 2: 1, 4: 1}), "et", t=100, k=6)
    assert a.n_unseen == pytest.approx(ref.estimate, rel=1e-12)
    # raw Û = -5.33 is clamped at 0: a log-normal interval around Û = 0 is a point, shown as n/a
    assert ref.raw < 0 and a.interval_total is None and a.interval_reason == ZERO_REASON


def test_kb_verification_clusters_synonyms_and_compare(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [
        {"query": "a", "items": ["asthma", "Alzheimer disease", "banana"]},
        {"query": "b", "items": ["Alzheimer's disease", "diabetes mellitus", "asthma"]},
        {"query": "c", "items": ["Asthma"]},
    ]
    path = tmp_path / "diseases.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    out = tmp_path / "kb-run"
    args = ["census", "score", str(path), "--kb", "doid", "--n-bootstrap", "40", "--out", str(out)]
    code, _, err = _main([*args, "--count", "incidence"], capsys)
    assert code == 0, err
    result = load_result(out)
    assert result.task_kind == "ontology" and result.counting == "incidence"
    assert dict((t.key, t.count) for t in result.top_items) == {
        "DOID:2841": 3,
        "DOID:10652": 2,
        "DOID:9351": 1,
    }
    assert (result.counts.valid, result.counts.invalid) == (6, 1)
    items = [json.loads(x) for x in (out / "items.jsonl").read_text().splitlines()]
    assert [i["status"] for i in items if i["text"] == "banana"] == ["invalid"]
    other = tmp_path / "other"
    assert (
        _main(
            ["census", "score", str(path), "--model", "m2", "--out", str(other), "--n-bootstrap", "0"], capsys
        )[0]
        == 0
    )
    page = tmp_path / "cmp.html"
    code, stdout, err = _main(["census", "compare", str(out), str(other), "--html", str(page)], capsys)
    assert code == 2 and "not comparable" in err and "counting incidence vs mention" in err
    mixed = ["census", "compare", str(out), str(other), "--html", str(page), "--allow-mixed"]
    code, stdout, err = _main(mixed, capsys)
    assert code == 0, err
    assert "m2" in stdout and "items" in stdout and page.is_file()
    assert "differs: knowledge base doid" in stdout and "differs: knowledge base doid" in page.read_text()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ('{"query": "Q1", "items": ["a"]}\n{"query": "Q2"}\n', ':2: expected {"query": …, "items": […]}'),
        ('{"query": "Q1", "items": ["a", 3]}\n', ":1: items must be strings"),
        ('{"query": "Q1", "items": ["a"]}\n{not json\n', ":2: not a JSON object"),
        ("q1\ta\nq2\n", ":2: expected QUERY<TAB>ITEM, got 1 tab-separated fields"),
        ("q1\ta\tb\n", ":1: expected QUERY<TAB>ITEM, got 3 tab-separated fields"),
        # issue 18: a two-field row with an empty item is named as such, not as a field count
        ("q1\ta\nq2\t \n", ":2: the item (after the tab) is blank"),
        ("\ta\n", ":1: the query (before the tab) is blank"),
        # ... and a blank JSONL item is the same error, not silently dropped
        ('{"query": "Q1", "items": ["a", "  "]}\n', ":1: item 2 is blank"),
    ],
)
def test_bad_items_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(text)
    code, out, err = _main(["census", "score", str(path), "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


def test_unknown_kb_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "x.tsv"
    path.write_text("q\ta\n")
    code, _, err = _main(["census", "score", str(path), "--kb", "nope"], capsys)
    assert code == 2 and "nope" in err


def test_another_items_file_of_the_same_name_is_another_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The run folder names the items it was scored from: the same file again is the same run, a
    file of the same name with other items is refused (nothing replaced) unless --overwrite."""
    a, b = tmp_path / "a" / "x.jsonl", tmp_path / "b" / "x.jsonl"
    for path, rows in ((a, JSONL[:2]), (b, JSONL)):
        path.parent.mkdir()
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "run"
    args = ["census", "score", "--n-bootstrap", "0", "--k", "6", "--out", str(out)]
    assert _main([*args, str(a)], capsys)[0] == 0
    first = load_result(out)
    assert first.n_queries == 2 and "x.jsonl, jsonl, sha256 " in first.prompt
    assert _main([*args, str(a)], capsys)[0] == 0  # the same items again: the same run
    first = load_result(out)
    code, stdout, err = _main([*args, str(b)], capsys)
    assert code == 2 and stdout == "" and "--overwrite" in err and "prompt" in err
    assert load_result(out).n_queries == 2 and load_result(out).run_id == first.run_id
    assert _main([*args, str(b), "--overwrite"], capsys)[0] == 0
    assert load_result(out).n_queries == 4


@pytest.mark.parametrize("estimator", ["osw-binomial", "osw-poisson"])
def test_an_estimator_outside_its_t_domain_is_refused_before_sampling(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], estimator: str
) -> None:
    """Orlitsky–Suresh–Wu is defined for t > 1: `census run` refuses t = 0.5 before a query is sent
    (nothing sampled, no store, no folder)."""
    plan = tmp_path / "osw.toml"
    plan.write_text(
        f'task = "custom"\nprompt = "a; b; {{n}} cakes"\nseparator = ";"\nestimator = "{estimator}"\n'
    )
    store, out = tmp_path / "s.sqlite", tmp_path / "run"
    args = ["--out", str(out), "--t", "0.5"]
    run = [
        "census",
        "run",
        "--config",
        str(plan),
        "-m",
        "mock",
        "--queries",
        "5",
        "--store",
        str(store),
        *args,
    ]
    code, _, err = _main(run, capsys)
    assert code == 2 and f"estimator {estimator} is defined for t > 1, got t = 0.5" in err
    assert not store.exists() and not out.exists()


def test_a_query_on_several_json_lines_is_joined_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One line per retrieved document of a question is one query (items joined); the run's notes say
    so, naming the lines, so a file whose every line repeats one prompt is not silently one query."""
    path = tmp_path / "docs.jsonl"
    rows = [("Q1", ["a", "b"]), ("Q2", ["c"]), ("Q1", ["d"]), ("Q3", ["a"]), ("Q2", [])]
    path.write_text("".join(json.dumps({"query": q, "items": i}) + "\n" for q, i in rows))
    out = tmp_path / "run"
    code, stdout, err = _main(["census", "score", str(path), "--n-bootstrap", "0", "--out", str(out)], capsys)
    assert code == 0, err
    result = load_result(out)
    assert result.n_queries == 3 and result.n_observations == 5
    note = "docs.jsonl: query 'Q1' stands on lines 1, 3 and 1 other query: each query's lines were joined"
    assert any(n.startswith(note) for n in result.notes), result.notes
    assert note in stdout + err


def test_a_repeated_json_line_is_refused_naming_both_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reviewer's case: 20 rows plus exact copies of the first 3 were joined into their queries
    and counted twice (mentions 100 → 115) with exit 0 and only a note."""
    rows = [{"query": f"Q{i}", "items": [f"x{i}", f"y{i % 5}", "z", f"w{i % 3}", "v"]} for i in range(20)]
    path = tmp_path / "items.jsonl"
    out = tmp_path / "run"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows + rows[:3]))
    code, stdout, err = _main(["census", "score", str(path), "--n-bootstrap", "0", "--out", str(out)], capsys)
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert f"{path}:21: repeats line 1 (query 'Q0' with the same items)" in err
    assert "remove one of lines 1 and 21" in err and not out.exists()
    # the same row spelled otherwise (keys reordered, spaces around items) is the same row
    path.write_text(
        json.dumps(rows[0]) + "\n" + json.dumps(rows[1]) + "\n"
        '{"items": [" x0", "y0", "z", "w0", "v "], "query": "Q0"}\n'
    )
    code, _, err = _main(["census", "score", str(path), "--out", str(out)], capsys)
    assert code == 2 and ":3: repeats line 1" in err and not out.exists()
    # a query that recovered nothing, given twice
    path.write_text(
        '{"query": "Q1", "items": []}\n{"query": "Q2", "items": ["a"]}\n{"query": "Q1", "items": []}\n'
    )
    code, _, err = _main(["census", "score", str(path), "--out", str(out)], capsys)
    assert code == 2 and ":3: repeats line 1 (query 'Q1'" in err and not out.exists()
    # without the copies: 20 queries, 100 mentions
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = _main(["census", "score", str(path), "--n-bootstrap", "0", "--out", str(out)], capsys)
    assert code == 0, err
    result = load_result(out)
    assert result.n_queries == 20 and result.n_observations == 100
