"""A run folder is one unit: only the command writing a run writes inside its folder.

Real runs (``census score`` of tiny item files) are pointed at by every kind of output of other
commands: each is refused in one line naming the run, and every file of the run is byte-identical
afterwards. ``--overwrite`` never deletes what a run does not write, and a study stopped half-way
resumes into its own leftovers.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from knowsum.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _score(tmp_path: Path, name: str, n: int = 6) -> Path:
    items = tmp_path / f"{name}.jsonl"
    items.write_text(
        "".join(
            json.dumps({"query": f"q{i}", "items": ["a", f"{name}{i}", f"b{i % 2}"]}) + "\n" for i in range(n)
        )
    )
    run = tmp_path / name
    args = ["census", "score", str(items), "--out", str(run), "--n-bootstrap", "5", "--name", name]
    assert main(args) == 0
    return run


@pytest.fixture
def runs(tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Path]:
    made = {name: _score(tmp_path, name) for name in ("a", "b", "c")}
    (made["c"] / "plots" / "curve.png").write_bytes(
        (made["c"] / "plots").glob("*.png").__next__().read_bytes()
    )
    made["obs"] = tmp_path / "obs.txt"
    made["obs"].write_text("x\t3\ny\t1\nz\t1\n")
    made["store"] = tmp_path / "s.sqlite"
    assert main(["ask", "-m", "mock", "hello", "--store", str(made["store"])]) == 0
    capsys.readouterr()
    return made


def _refused(args: list[str], run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _hashes(run)
    assert main(args) == 2, args
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("knowsum: error: "), err
    assert str(run.resolve()) in err or str(run) in err, err
    assert _hashes(run) == before


def test_an_input_run_given_by_its_record_is_protected_as_its_folder(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`census compare RUN/result.json OTHER --html RUN/report.html` once turned RUN's page into a
    comparison page, and `--figure RUN/plots/curve.png` replaced its curve."""
    a, b = runs["a"], runs["b"]
    compare = ["census", "compare", str(a / "result.json"), str(b), "--allow-mixed"]
    _refused([*compare, "--html", str(a / "report.html")], a, capsys)
    _refused([*compare, "--figure", str(a / "plots" / "curve.png")], a, capsys)


@pytest.mark.parametrize(
    "args",
    [
        ["store", "export", "--store", "{store}", "-o", "{c}/items.jsonl"],
        ["census", "compare", "{a}", "{b}", "--allow-mixed", "--html", "{c}/report.html"],
        ["census", "compare", "{a}", "{b}", "--allow-mixed", "--figure", "{c}/plots/ranking.png"],
        ["estimate", "{obs}", "--curve", "--plot", "{c}/plots/curve.png"],
        ["estimate", "{obs}", "--curve", "--plot", "{c}/plots/new.png"],
        ["census", "backtest", "{a}", "--out", "{c}/backtest", "--t", "1", "--repeats", "2"],
        ["census", "backtest", "{a}", "--out", "{c}", "--t", "1", "--repeats", "2"],
        ["census", "score", "{a}/items.jsonl", "--out", "{c}/plots"],
        ["census", "score", "{a}/items.jsonl", "--out", "{c}/deeper/run"],
    ],
)
def test_no_output_lands_in_another_runs_folder(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    """Each output kind of each command, pointed inside another run's folder: refused, that run's
    files byte-identical (they were replaced whenever the file kind matched)."""
    fill = {k: str(v) for k, v in runs.items()}
    _refused([a.format(**fill) for a in args], runs["c"], capsys)
    assert not (runs["c"] / "deeper").exists() and not (runs["c"] / "backtest").exists()


def test_a_back_test_goes_into_its_own_run_and_resumes_into_its_leftovers(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The default `RUN/backtest` is written (the command is adding to that run); a back-test killed
    after its figure but before `backtest.json` is rerun, not refused as 'a folder holding other
    files'; a folder holding anything else still is."""
    a = runs["a"]
    args = ["census", "backtest", str(a), "--t", "1", "--repeats", "2", "--n-bootstrap", "2"]
    assert main(args) == 0
    (a / "backtest" / "backtest.json").unlink()
    (a / "backtest" / "report.html").unlink()
    assert (a / "backtest" / "plots" / "backtest.png").is_file()
    capsys.readouterr()
    assert main(args) == 0
    assert json.loads((a / "backtest" / "backtest.json").read_text())["run"] == str(a)
    (a / "backtest" / "notes.md").write_text("keep me")
    assert main(args) == 2
    assert "holding other files" in capsys.readouterr().err
    assert (a / "backtest" / "notes.md").read_text() == "keep me"


def test_overwrite_never_deletes_what_the_run_did_not_write(
    runs: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """`cp -r RUN ow; cp s.sqlite ow/precious.sqlite; census score … --out ow --overwrite` once left
    only the new run's files: now refused, like `profile run` does; a folder of run files only is
    still replaced."""
    ow = tmp_path / "ow"
    assert main(["census", "score", str(tmp_path / "a.jsonl"), "--out", str(ow), "--name", "x"]) == 0
    for extra in ("precious.sqlite", "notes.txt", "sub/data.json"):
        (ow / extra).parent.mkdir(exist_ok=True)
        (ow / extra).write_bytes(runs["store"].read_bytes())
        before = _hashes(ow)
        capsys.readouterr()
        args = ["census", "score", str(tmp_path / "b.jsonl"), "--name", "other", "--out", str(ow)]
        assert main([*args, "--overwrite"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "holds files that are not a knowsum run" in err
        assert _hashes(ow) == before
        (ow / extra).unlink()
        if extra.startswith("sub/"):
            (ow / "sub").rmdir()
    assert main([*args, "--overwrite"]) == 0
    assert json.loads((ow / "result.json").read_text())["task"] == "other"
