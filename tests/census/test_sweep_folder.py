"""The folder of `census sweep`: claimed like every multi-run folder (user files refused, another
sweep refused naming what differs unless --overwrite, which removes only the old sweep's files; the
same sweep resumes)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from knowsum._util import CLAIM_NAME
from knowsum.census import CensusConfig, run_sweep, sweep_cells
from knowsum.cli import main
from knowsum.errors import KnowsumNote
from knowsum.kb import load_ontology
from knowsum.models import MockBackend, ResponseStore
from tests.census.zipf import disease_names, make_responses

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _sweep(out: Path, store: Path, *extra: str) -> list[str]:
    """The arguments of a small mock sweep of theorems into ``out``."""
    return [
        "census",
        "sweep",
        "theorems",
        "-m",
        "mock",
        "--queries",
        "3",
        "--n-bootstrap",
        "0",
        "--store",
        str(store),
        "--out",
        str(out),
        *extra,
    ]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _hashes(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_a_folder_of_user_files_is_refused_with_or_without_overwrite(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reviewer's case: a folder holding the user's own sweep.json and notes was written into."""
    ud = tmp_path / "ud"
    ud.mkdir()
    (ud / "sweep.json").write_text('{"my": "data"}\n')
    (ud / "notes.txt").write_text("notes\n")
    before = _hashes(ud)
    store = tmp_path / "s.sqlite"
    for extra in ([], ["--overwrite"]):
        code, out, err = _run(_sweep(ud, store, "--answers", "10", *extra), capsys)
        assert code == 2 and out == ""
        assert "holds notes.txt, which knowsum did not write here" in err and err.count("\n") == 1
        assert _hashes(ud) == before and sorted(p.name for p in ud.iterdir()) == ["notes.txt", "sweep.json"]
    # the user's sweep.json alone is theirs too (not a sweep's record): refused, kept
    (ud / "notes.txt").unlink()
    code, _, err = _run(_sweep(ud, store, "--answers", "10", "--overwrite"), capsys)
    assert code == 2 and "holds sweep.json, which knowsum did not write here" in err
    assert (ud / "sweep.json").read_text() == '{"my": "data"}\n' and [p.name for p in ud.iterdir()] == [
        "sweep.json"
    ]


def test_another_sweep_is_refused_and_overwrite_removes_only_its_files(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, store = tmp_path / "sw", tmp_path / "s.sqlite"
    code, _, err = _run(_sweep(out, store, "--answers", "10,20"), capsys)
    assert code == 0, err
    (out / ".keep").write_text("a hidden file of the user's\n")
    before = _hashes(out)
    # another grid: refused naming the setting that differs, nothing touched
    code, stdout, err = _run(_sweep(out, store, "--answers", "10"), capsys)
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert "answers=10,20 (10 asked)" in err and "--overwrite" in err
    assert _hashes(out) == before
    # another temperature, too
    code, _, err = _run([*_sweep(out, store, "--answers", "10"), "--temperature", "0.7"], capsys)
    assert code == 2 and "temperature=1 (0.7 asked)" in err and _hashes(out) == before
    # the same sweep (its values in another order) resumes: the same cells, rewritten
    code, _, err = _run(_sweep(out, store, "--answers", "20,10"), capsys)
    assert code == 0, err
    cells = [c["cell"] for c in json.loads((out / "sweep.json").read_text())["cells"]]
    assert cells == ["T1-P1-A20-full", "T1-P1-A10-full"]
    # --overwrite: the old sweep's cells and pages go, the hidden file stays, no stale cell is left
    code, _, err = _run(_sweep(out, store, "--answers", "10", "--overwrite"), capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [
        ".keep",
        CLAIM_NAME,
        "T1-P1-A10-full",
        "sweep.html",
        "sweep.json",
    ]
    assert [c["cell"] for c in json.loads((out / "sweep.json").read_text())["cells"]] == ["T1-P1-A10-full"]
    assert "T1-P1-A20-full" not in (out / "sweep.html").read_text()
    assert (out / ".keep").read_text() == "a hidden file of the user's\n"


def test_a_sweep_folder_written_before_claims_is_known_by_its_sweep_json(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep folder without a claim (an older knowsum wrote it) is still that sweep's."""
    out, store = tmp_path / "sw", tmp_path / "s.sqlite"
    assert _run(_sweep(out, store, "--answers", "10,20"), capsys)[0] == 0
    (out / CLAIM_NAME).unlink()
    code, _, err = _run(_sweep(out, store, "--answers", "10"), capsys)
    assert code == 2 and "answers=10,20 (10 asked)" in err
    (out / CLAIM_NAME).unlink()
    code, _, err = _run(_sweep(out, store, "--answers", "10,20"), capsys)
    assert code == 0, err


def test_a_folder_another_command_claimed_is_refused(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "profile"
    folder.mkdir()
    (folder / CLAIM_NAME).write_text('{"budget": "small", "model": "mock"}\n')
    before = _hashes(folder)
    code, _, err = _run(_sweep(folder, tmp_path / "s.sqlite", "--answers", "10", "--overwrite"), capsys)
    assert code == 2 and "names no census sweep" in err and _hashes(folder) == before


def test_a_sweep_that_fails_leaves_no_folder_it_made(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Theorems are not installed here: the first cell fails, and the new folder goes again."""
    out = tmp_path / "sw"
    code, _, err = _run(_sweep(out, tmp_path / "s.sqlite", "--answers", "10"), capsys)
    assert code != 0 and "knowsum kb install theorems" in err
    assert not out.exists()


def test_a_cell_of_a_claimed_sweep_is_still_an_ordinary_run(
    kb_home: Path, tmp_path: Path, store: ResponseStore, capsys: pytest.CaptureFixture[str]
) -> None:
    """The claim makes the sweep folder a run folder to the write guard: its cells are still studied
    in place (`census sensitivity CELL`, `census backtest CELL` into CELL/backtest), and the sweep
    then resumes over them."""
    texts = make_responses(disease_names(load_ontology("doid"), 200), 20, 10)[0]
    backend = MockBackend(lambda r: texts[r.sample_index], model_id="zipf")
    base, cells = (
        CensusConfig(task="diseases", queries=20, n_bootstrap=0),
        sweep_cells([1.0], [1.0], [None], ["full"]),
    )
    out = tmp_path / "sw"
    ((_, first, cell),) = run_sweep(base, cells, backend, store=store, out=out).cells
    code, _, err = _run(["census", "sensitivity", str(cell), "--t-grid", "1,10", "--k-grid", "2,3"], capsys)
    assert code == 0, err
    code, _, err = _run(
        ["census", "backtest", str(cell), "--t", "1", "--repeats", "2", "--n-bootstrap", "2"], capsys
    )
    assert code == 0, err
    assert (cell / "backtest" / "backtest.json").is_file()
    again = MockBackend(lambda r: texts[r.sample_index], model_id="zipf")
    with pytest.warns(KnowsumNote, match="backtest: it studied the run this write replaces"):
        ((_, rerun, _),) = run_sweep(base, cells, again, store=store, out=out).cells
    assert again.calls == [] and rerun.n_total == first.n_total
