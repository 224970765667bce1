"""``knowsum run INSTRUMENT`` through ``main([...])`` on knowsum's census and on a plug-in (the yes
instrument of tests/instrument/_yes.py): its part of a budget or of a plan, each step a run folder
OUT/STEP/ exactly as a profile writes it, its card rows; and the one-line refusals (an unknown
instrument, a plan without its table, a budget it ships no table of). ``knowsum score`` on inspect
logs is tested beside the other inspect tests (tests/harness/test_inspect_generic.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import load_result
from knowsum.cli import main
from tests.census.conftest import kb_home
from tests.instrument._registered import yes_plug_in

__all__ = ["kb_home", "yes_plug_in"]

CENSUS_PLAN = """\
description = "the census part only"
[census]
tasks = ["diseases"]
criteria = ["relaxed", "strict"]
queries = 3
answers = 5
n_bootstrap = 50
"""


def _plan(tmp_path: Path, text: str) -> str:
    path = tmp_path / "plan.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_run_census_alone_writes_each_step_as_a_profile_does(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "alone"
    args = ["run", "census", "-m", "mock", "--plan", _plan(tmp_path, CENSUS_PLAN), "--store"]
    assert main([*args, str(tmp_path / "s.sqlite"), "--out", str(out), "--json"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert shown["instrument"] == "census"
    assert [r["name"] for r in shown["runs"]] == ["census-diseases-relaxed", "census-diseases-strict"]
    for run in shown["runs"]:
        assert run["out_dir"] == str(out / run["name"]) and Path(run["report"]).is_file()
        record = load_result(Path(run["out_dir"]))
        assert record.task == "diseases" and record.n_queries == 3 and record.model == "mock"
        assert run["measures"] and all(m["key"].startswith("census/diseases/") for m in run["measures"])
    assert captured.err.count("report: ") == 2  # one line per run (stderr under --json)
    # a rerun asks nothing more and rewrites the same folders (each its own run)
    assert main([*args, str(tmp_path / "s.sqlite"), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "census: " in text and f"report: {out / 'census-diseases-strict' / 'report.html'}" in text


def test_run_a_plug_in_from_a_plan_and_its_default_folder(
    yes_plug_in: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    plan = _plan(tmp_path, "[yes]\nqueries = 3\n")
    assert main(["run", "yes", "-m", "mock", "--plan", plan, "--store", "s.sqlite"]) == 0
    out = capsys.readouterr().out
    assert "yes: share of yes" in out and "0.0%" in out  # the mock echoes the question: no "yes" reply
    record = json.loads((tmp_path / "yes-runs/plan-mock/yes/result.json").read_text(encoding="utf-8"))
    assert record["kind"] == "yes" and record["n"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "cencus"], "unknown instrument 'cencus'; known: census, genebench, recall, yes"),
        (["score", "cencus", "--inspect-log", "x.eval"], "unknown instrument 'cencus'; known: census,"),
        (["run", "yes"], "yes ships no smoke budget (budgets/smoke.toml of its package): give --plan FILE"),
        (["run", "yes", "--plan", "PLAN"], "has no [yes] table: add one"),
        (["run", "yes", "--plan", "PLAN", "--budget", "quick"], "give --budget quick or --plan"),
    ],
)
def test_refusals_are_one_line_with_exit_2(
    yes_plug_in: None, tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    plan = _plan(tmp_path, '[census]\ntasks = ["diseases"]\n')
    argv = [plan if a == "PLAN" else a for a in args]
    assert main([*argv, "-m", "mock"] if args[0] == "run" else argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "s.sqlite").exists()


def test_a_run_stopped_while_writing_its_folder_continues_on_the_rerun(
    kb_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while a step's folder is written (its data and page there, no result.json yet): the
    same command again finishes it, as the interruption message says; another model is refused."""
    from knowsum.records import _rundir

    write = _rundir._write

    def stop_before_the_record(path: Path, body: object) -> None:
        if path.name == "result.json":
            raise KeyboardInterrupt
        write(path, body)  # type: ignore[arg-type]

    out, store = tmp_path / "alone", str(tmp_path / "s.sqlite")
    args = [
        "run",
        "census",
        "-m",
        "mock",
        "--plan",
        _plan(tmp_path, CENSUS_PLAN),
        "--store",
        store,
        "--out",
        str(out),
    ]
    monkeypatch.setattr(_rundir, "_write", stop_before_the_record)
    assert main(args) == 130  # "rerun the same command to continue where it stopped"
    step = out / "census-diseases-relaxed"
    assert (step / "items.jsonl").is_file() and not (step / "result.json").exists()
    monkeypatch.setattr(_rundir, "_write", write)
    assert main(args) == 0
    assert load_result(step).model == "mock" and not (step / ".knowsum-writing.json").exists()
    # a stopped write is another run's for a run of other settings: refused, naming what is there
    solo = tmp_path / "solo"
    census = [
        "census",
        "run",
        "diseases",
        "-m",
        "mock",
        "--queries",
        "3",
        "--store",
        store,
        "--out",
        str(solo),
    ]
    monkeypatch.setattr(_rundir, "_write", stop_before_the_record)
    assert main([*census, "--answers", "5"]) == 130
    monkeypatch.setattr(_rundir, "_write", write)
    capsys.readouterr()
    assert main([*census, "--answers", "6"]) == 2
    err = capsys.readouterr().err
    assert f"{solo} holds an unfinished census run of diseases (prompt=" in err  # the first difference
    assert main([*census, "--answers", "5"]) == 0  # its own rerun finishes it


def test_run_refuses_a_folder_of_another_models_profile(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OUT holds one model's runs at one budget, a profile's folder too: another model's is refused
    before anything is asked (was: its steps written beside the profile's)."""
    from knowsum._util import claim_folder

    out = tmp_path / "prof"
    claim_folder(out, {"model": "someone-else", "budget": "smoke"}, owns=lambda _: False)
    args = ["run", "census", "-m", "mock", "--plan", _plan(tmp_path, CENSUS_PLAN), "--store"]
    assert main([*args, str(tmp_path / "s.sqlite"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out} holds a run of model=someone-else (mock asked)" in err
    assert [p.name for p in out.iterdir()] == [".knowsum-run.json"]


def test_run_never_writes_into_or_empties_a_folder_of_other_files(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """OUT holding the user's own files, or another kind of run (a scored census), is refused in one
    line naming the first such file, with or without --overwrite, before anything is asked; the files
    stay (was: the runs were written beside them, and a later --overwrite deleted them all)."""
    mine = tmp_path / "mine"
    (mine / "sub").mkdir(parents=True)
    (mine / "notes.txt").write_text("precious\n")
    (mine / "sub" / "data.csv").write_text("p2\n")
    items = tmp_path / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"query": f"q{i}", "items": ["a", f"b{i}"]}) + "\n" for i in range(6))
    )
    scored = tmp_path / "scored"
    assert main(["census", "score", str(items), "--out", str(scored), "--n-bootstrap", "0"]) == 0
    before = sorted(p.name for p in scored.iterdir())
    args = ["run", "census", "-m", "mock", "--plan", _plan(tmp_path, CENSUS_PLAN)]
    refusals = {  # the user's files are foreign; a scored census is one run, not a folder of runs
        mine: "holds notes.txt, which knowsum did not write here: give another --out",
        scored: "holds one run (its result.json), not a folder of runs: give another --out",
    }
    for out, why in refusals.items():
        for extra in ([], ["--overwrite"]):
            capsys.readouterr()
            assert main([*args, "--store", str(tmp_path / "s.sqlite"), "--out", str(out), *extra]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"{out}: {why}" in err, err
    assert (mine / "notes.txt").read_text() == "precious\n" and (mine / "sub" / "data.csv").is_file()
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt", "sub"]
    assert sorted(p.name for p in scored.iterdir()) == before
    assert not (tmp_path / "s.sqlite").exists()


def test_hidden_entries_are_neither_refused_nor_deleted(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hidden entry knowsum did not write (a Finder ``.DS_Store``, a ``.git`` folder) does not make
    OUT foreign, and ``--overwrite`` (here: another plan's runs replacing this one's) keeps it."""
    out = tmp_path / "out"
    (out / ".git").mkdir(parents=True)
    (out / ".git" / "HEAD").write_text("ref\n")
    (out / ".DS_Store").write_text("x")
    first = _plan(tmp_path, CENSUS_PLAN)
    other = tmp_path / "other.toml"
    other.write_text(CENSUS_PLAN.replace('["relaxed", "strict"]', '["strict"]'), encoding="utf-8")
    store = ["--store", str(tmp_path / "s.sqlite")]
    assert main(["run", "census", "-m", "mock", "--plan", first, *store, "--out", str(out)]) == 0
    assert main(["run", "census", "-m", "mock", "--plan", str(other), *store, "--out", str(out)]) == 2
    assert (
        main(["run", "census", "-m", "mock", "--plan", str(other), *store, "--out", str(out), "--overwrite"])
        == 0
    )
    assert (out / ".git" / "HEAD").read_text() == "ref\n" and (out / ".DS_Store").read_text() == "x"
    assert not (out / "census-diseases-relaxed").exists() and (out / "census-diseases-strict").is_dir()


def test_a_value_listed_twice_is_refused_before_a_run_is_made_twice(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tasks = ["diseases", "diseases"]`` would run each step twice into one folder and give its card
    rows twice: ``knowsum run`` and ``profile plan`` refuse it in one line naming the table."""
    plan = _plan(tmp_path, CENSUS_PLAN.replace('["diseases"]', '["diseases", "diseases"]'))
    for argv in (["run", "census", "--plan", plan], ["profile", "plan", "--plan", plan]):
        assert main([*argv, "-m", "mock", "--store", str(tmp_path / "s.sqlite")]) == 2
        err = capsys.readouterr().err
        assert (
            "[census] makes the run census-diseases-relaxed twice" in err
            and len(err.strip().splitlines()) == 1
        )
    assert not (tmp_path / "s.sqlite").exists()


def test_a_census_scales_out_through_a_batch_file(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``knowsum run census --export-batch`` writes exactly the requests the census sends; once their
    results are imported, the same command without the option asks the server nothing: its URL is a
    closed loopback port, so any request would fail the run."""
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    store, batch = str(tmp_path / "s.sqlite"), tmp_path / "b.jsonl"
    model = ["-m", "openai:gpt-4o-mini", "--base-url", f"http://127.0.0.1:{port}/v1", "--store", store]
    args = ["run", "census", "--plan", _plan(tmp_path, CENSUS_PLAN), *model, "--out", str(tmp_path / "o")]
    assert main([*args, "--export-batch", str(batch)]) == 0
    assert "exported 3 of the 6 requests" in capsys.readouterr().out  # the two criteria share the draws
    assert not (tmp_path / "o").exists()  # nothing was run
    lines = [json.loads(line) for line in batch.read_text().splitlines()]
    assert all("provide 5 human diseases" in line["body"]["messages"][-1]["content"] for line in lines)
    results = tmp_path / "results.jsonl"
    answer = "- Influenza (DOID:8469)\n- Asthma (DOID:2841)\n- Malaria (DOID:12365)"
    body = {"model": "gpt-4o-mini", "choices": [{"message": {"content": answer}, "finish_reason": "stop"}]}
    results.write_text(
        "".join(
            json.dumps({"custom_id": line["custom_id"], "response": {"status_code": 200, "body": body}})
            + "\n"
            for line in lines
        )
    )
    assert main(["batch", "import", str(results), "--store", store]) == 0
    capsys.readouterr()
    assert main([*args, "--json"]) == 0  # every answer is in the store: nothing is sent
    shown = json.loads(capsys.readouterr().out)
    records = [load_result(Path(r["out_dir"])) for r in shown["runs"]]
    assert [(r.n_queries, r.model) for r in records] == [(3, "gpt-4o-mini")] * 2 and records[0].n_seen > 0
    assert main([*args, "--export-batch", str(tmp_path / "again.jsonl")]) == 0
    assert "nothing to export" in capsys.readouterr().out and not (tmp_path / "again.jsonl").exists()


def test_a_folder_of_runs_given_as_one_runs_folder_is_named_as_such(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`knowsum run`'s OUT (a folder of runs) given to a command that writes one run is refused
    saying what it is (was: "holds files that are not a knowsum run")."""
    out = tmp_path / "alone"
    args = ["run", "census", "-m", "mock", "--plan", _plan(tmp_path, CENSUS_PLAN)]
    assert main([*args, "--store", str(tmp_path / "s.sqlite"), "--out", str(out)]) == 0
    items = tmp_path / "a.jsonl"
    items.write_text('{"query": 0, "items": ["Asthma"]}\n{"query": 1, "items": ["Gout"]}\n', encoding="utf-8")
    capsys.readouterr()
    assert main(["census", "score", str(items), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: holds a folder of runs (a profile's or `knowsum run`'s), not one run" in err
