"""Refused outputs are named for what they are: a path below a regular file names that file (the old
message blamed a read-only folder), and a single run's folder given where a folder of runs goes
(`knowsum run --out`) says so (the old message called its files foreign). Nothing is asked or
written."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (
            ["census", "run", "--config", str(ROOT / "examples/census/echo.toml"), "-m", "mock", "--out"],
            "--out",
        ),
        (["estimate", str(ROOT / "examples/fisher_butterflies.tsv"), "--curve", "--plot"], "--plot"),
    ],
)
def test_a_path_below_a_file_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], option: str
) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder\\n", encoding="utf-8")
    target = blocker / "sub" / "x.png"
    code = main(
        [*args, str(target), "--store", str(tmp_path / "s.sqlite")]
        if option == "--out"
        else [*args, str(target)]
    )
    err = capsys.readouterr().err
    assert code != 0 and f"{option} {target}: {blocker} is a file, not a folder" in err
    assert "read-only" not in err and blocker.read_text(encoding="utf-8") == "not a folder\\n"
    assert not (tmp_path / "s.sqlite").exists()


def test_a_single_run_is_not_a_folder_of_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "ce"
    store = ["--store", str(tmp_path / "s.sqlite")]
    config = ["--config", str(ROOT / "examples/census/echo.toml")]
    assert main(["census", "run", *config, "-m", "mock", "--queries", "3", "--out", str(run), *store]) == 0
    before = sorted(p.name for p in run.iterdir())
    capsys.readouterr()
    for extra in ([], ["--overwrite"]):
        code = main(["run", "census", "-m", "mock", "--budget", "smoke", "--out", str(run), *store, *extra])
        err = capsys.readouterr().err
        assert code != 0 and f"{run}: holds one run (its result.json), not a folder of runs" in err
    assert sorted(p.name for p in run.iterdir()) == before
