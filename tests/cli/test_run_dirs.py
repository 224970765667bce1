"""A run directory holds one run: another run is refused before anything is asked, ``--overwrite``
empties it first, and a rerun of the same run (same instrument, what, model and settings) is allowed.

Through ``main([...])`` on the mock backend, the 11-term ``mini_go.obo`` and the theorems KB fixture.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench import write_questions
from knowsum.kb import install
from knowsum.records import claim_run_dir
from tests.cli.test_census_cli import theorems_home  # noqa: F401  (a fixture)
from tests.genebench._mixture import QUESTIONS, write_predictions

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
POP = str(FIX / "mini_go_popularity.csv")


@pytest.fixture
def mini_go(tmp_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    install(["go"], from_files=[FIX / "mini_go.obo"])
    monkeypatch.chdir(tmp_path)
    return tmp_home


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _recall_run(tmp_path: Path, *extra: str) -> list[str]:
    return [
        "recall",
        "run",
        "go",
        "-m",
        "mock",
        "--popularity",
        POP,
        "--n-buckets",
        "3",
        "--n-perm",
        "50",
        "--store",
        str(tmp_path / "store.sqlite"),
        *extra,
    ]


def _predictions(tmp_path: Path) -> Path:
    path = tmp_path / "preds.csv"
    path.write_text("id,prediction\nGO:0008150,GO:0008150\nGO:0003674,GO:0008150\n")
    return path


def test_recall_score_into_a_census_run_is_refused_and_overwrite_leaves_no_old_file(
    theorems_home: Path,  # noqa: F811
    mini_go: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "census-run"
    census = ["census", "run", "theorems", "-m", "mock", "--queries", "6", "--n-bootstrap", "0"]
    assert main([*census, "--out", str(out), "--store", str(tmp_path / "c.sqlite")]) == 0
    before = _files(out)
    assert "items.jsonl" in before and "result.json" in before
    capsys.readouterr()

    score = ["recall", "score", "--kb", "go", "--predictions", str(_predictions(tmp_path)), "--out", str(out)]
    assert main(score) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"knowsum: error: {out} holds a census run of theorems (instrument=census here, recall asked): "
        "give another --out or --overwrite to replace it"
    )
    assert _files(out) == before  # untouched, byte for byte

    assert main([*score, "--overwrite"]) == 0
    after = _files(out)
    assert "items.jsonl" not in after and not any(name.startswith("plots/kb_") for name in after)
    assert {"predictions.jsonl", "report.html", "result.json"} <= set(after)
    record = json.loads(after["result.json"])
    assert record["kind"] == "recall"
    digest = hashlib.sha256((tmp_path / "preds.csv").read_bytes()).hexdigest()[:12]
    assert record["identity"]["what"] == f"predictions #{digest}"  # named by content, not path


def test_a_rerun_of_the_same_run_is_allowed_and_another_setting_is_refused_before_asking(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_recall_run(tmp_path, "--sample", "4")) == 0
    out = tmp_path / "recall-runs" / "go-mock"
    first = json.loads((out / "result.json").read_text())
    assert first["identity"]["selection"] == "sample 4" and first["identity"]["model"] == "mock"
    assert main(_recall_run(tmp_path, "--sample", "4")) == 0  # the same run again: allowed
    capsys.readouterr()
    with sqlite3.connect(tmp_path / "store.sqlite") as db:
        stored = db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    before = _files(out)
    assert main(_recall_run(tmp_path, "--sample", "5", "-t", "0.7")) == 2
    err = capsys.readouterr().err
    assert "recall-runs/go-mock holds a recall run of go (temperature=0.0 here, 0.7 asked)" in err
    assert _files(out) == before
    with sqlite3.connect(tmp_path / "store.sqlite") as db:  # refused before anything was asked
        assert db.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == stored

    assert main(_recall_run(tmp_path, "--sample", "5", "-t", "0.7", "--overwrite")) == 0
    assert json.loads((out / "result.json").read_text())["identity"]["selection"] == "sample 5"


def test_a_record_written_before_identities_compares_by_instrument_and_model(
    mini_go: Path, tmp_path: Path
) -> None:
    out = tmp_path / "old"
    assert main(_recall_run(tmp_path, "--sample", "3", "--out", str(out))) == 0
    record = json.loads((out / "result.json").read_text())
    del record["identity"]
    (out / "result.json").write_text(json.dumps(record))
    identity = {"what": "go", "model": "mock", "temperature": "1.0"}
    assert claim_run_dir(out, "recall", identity) == out  # same kind and model: nothing else is known
    with pytest.raises(Exception, match=r"holds a recall run of go \(model=mock here, other asked\)"):
        claim_run_dir(out, "recall", {**identity, "model": "other"})
    with pytest.raises(Exception, match=r"instrument=recall here, census asked"):
        claim_run_dir(out, "census", identity)


def test_overwrite_never_deletes_a_folder_that_is_not_a_run(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.md").write_text("keep me")
    for overwrite in (False, True):
        with pytest.raises(Exception, match="holds files that are not a knowsum run"):
            claim_run_dir(folder, "recall", {"what": "go", "model": "m"}, overwrite=overwrite)
    assert (folder / "notes.md").read_text() == "keep me"
    unfinished = tmp_path / "unfinished"
    (unfinished / "plots").mkdir(parents=True)
    (unfinished / "predictions.jsonl").write_text("{}\n")
    with pytest.raises(Exception, match=r"holds an unfinished run \(no result.json\)"):
        claim_run_dir(unfinished, "recall", {"what": "go", "model": "m"})
    claim_run_dir(unfinished, "recall", {"what": "go", "model": "m"}, overwrite=True)
    assert list(unfinished.iterdir()) == []
    assert claim_run_dir(tmp_path / "absent", "recall", {}) == tmp_path / "absent"
    assert not (tmp_path / "absent").exists()  # nothing is created before the run is written


def test_genebench_score_into_a_recall_run_is_refused(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r"
    assert main(_recall_run(tmp_path, "--sample", "3", "--out", str(out))) == 0
    questions = tmp_path / "questions.jsonl"
    write_questions(questions, QUESTIONS)
    preds = write_predictions(tmp_path / "answers.jsonl")
    capsys.readouterr()
    args = ["genebench", "score", "--questions", str(questions), "--predictions", str(preds)]
    args += ["--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert f"{out} holds a recall run of go (instrument=recall here, genebench asked)" in err
    assert main([*args, "--overwrite"]) == 0
    assert not (out / "plots" / "accuracy_per_bucket.png").exists()
    assert main(args) == 0  # the same scoring again


def test_a_setting_left_unset_reads_not_given_never_as_a_value(mini_go: Path, tmp_path: Path) -> None:
    """A scored file without --popularity stores it empty; asking ``--popularity none`` into that folder
    names the two apart ("none" is a value a user can give)."""
    preds = tmp_path / "p.csv"
    preds.write_text("id,prediction,popularity\nGO:0001822,GO:0001822,5\n", encoding="utf-8")
    out = tmp_path / "scored"
    assert main(["recall", "score", "--kb", "go", "--predictions", str(preds), "--out", str(out)]) == 0
    identity = json.loads((out / "result.json").read_text())["identity"]
    assert identity["popularity"] == ""
    with pytest.raises(Exception, match=r"popularity=\(not given\) here, none asked"):
        claim_run_dir(out, "recall", {**identity, "popularity": "none"})


def test_genebench_score_names_its_files_by_content(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy of the same answers under another name scores into the same folder; other answers
    under the same name are another run, refused unless --overwrite (never replaced quietly)."""
    questions = tmp_path / "questions.jsonl"
    write_questions(questions, QUESTIONS)
    preds = write_predictions(tmp_path / "answers.jsonl")
    out = tmp_path / "g"
    args = ["genebench", "score", "--questions", str(questions), "--out", str(out), "--predictions"]
    assert main([*args, str(preds)]) == 0
    copy = tmp_path / "elsewhere.jsonl"
    copy.write_bytes(preds.read_bytes())
    assert main([*args, str(copy)]) == 0  # the same content: the same run
    lines = preds.read_text(encoding="utf-8").splitlines()
    preds.write_text("\n".join(reversed(lines)) + "\n\n", encoding="utf-8")  # other bytes, same name
    capsys.readouterr()
    assert main([*args, str(preds)]) == 2
    assert f"{out} holds a genebench run of predictions #" in capsys.readouterr().err
    assert main([*args, str(preds), "--overwrite"]) == 0
