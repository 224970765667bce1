"""Every recall ``result.json`` schema on disk still loads, and ``predictions.jsonl`` reads back typed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.errors import InputFileError
from knowsum.recall import RESULT_VERSION, RecallRecord, load_predictions, load_result
from knowsum.recall.page import write_recall_report
from knowsum.records import load_record

OLD = Path(__file__).resolve().parents[1] / "fixtures" / "recall" / "old_results"


@pytest.mark.parametrize("name", ["v1_run", "v1_score", "v2_run", "v2_score"])
def test_every_old_schema_loads(name: str, tmp_path: Path) -> None:
    path = OLD / f"{name}.json"
    written = json.loads(path.read_text())
    assert written["version"] == int(name[1])
    result = load_record(path, RecallRecord)
    assert result == load_result(path)
    assert (result.version, result.kind, result.kb, result.knowsum_version) == (
        RESULT_VERSION,
        "recall",
        "go",
        "",
    )
    assert result.created == written["created"] and result.model == written["model"]
    assert result.kb_release == "recall-test-fixture"
    assert result.kb_releases == {"go": "recall-test-fixture"}
    scored = name.endswith("score")
    assert result.backend == ("file" if scored else "")  # a run before version 3 did not record it
    assert result.api == ("file" if scored else "chat")
    now = result.scores.model_dump(mode="json")
    assert {k: now[k] for k, v in written["scores"].items() if not isinstance(v, dict)} == {
        k: v for k, v in written["scores"].items() if not isinstance(v, dict)
    }
    assert now["popularity"]["buckets"][0]["n"] == written["scores"]["popularity"]["buckets"][0]["n"]
    assert (result.scores.paper is None) == (name.startswith("v1"))
    assert result.notes == []
    if not scored:
        assert [i.method for i in result.invariance] == ["pi1"] and result.invariance[
            0
        ].title == "PI-1 (repetitions)"
    # the page of an old record renders (a version-1 record says it predates the paper rules)
    write_recall_report(tmp_path, result, [])
    html = (tmp_path / "report.html").read_text()
    assert ("predates the paper-rule figures" in html) == name.startswith("v1")


def test_a_version_3_records_warnings_load_as_notes(tmp_path: Path) -> None:
    path = OLD / "v3_score.json"
    written = json.loads(path.read_text())
    assert written["version"] == 3 and "notes" not in written and len(written["warnings"]) == 1
    result = load_result(path)
    assert (result.version, result.kb, result.api, result.backend) == (RESULT_VERSION, "go", "file", "file")
    assert result.notes == written["warnings"]
    assert "2 gold IDs not well-formed go IDs" in result.notes[0]
    assert result.scores.accuracy == pytest.approx(2 / 3) == written["scores"]["accuracy"]
    # --json names them as the record does (notes), like every instrument; written back: notes only
    from knowsum.recall.page import recall_json

    shown = recall_json(result)
    assert shown["notes"] == written["warnings"] and "warnings" not in shown
    again = tmp_path / "result.json"
    again.write_text(result.model_dump_json())
    assert "warnings" not in json.loads(again.read_text()) and load_result(again) == result


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    data = json.loads((OLD / "v2_run.json").read_text())
    data["version"] = RESULT_VERSION + 1
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputFileError, match=f"unsupported recall result version {RESULT_VERSION + 1}"):
        load_result(tmp_path)


def test_load_predictions_names_a_bad_line(tmp_path: Path) -> None:
    good = {"id": "GO:1", "label": "x", "text": "GO:1", "predicted": "GO:1", "status": "correct"}
    path = tmp_path / "predictions.jsonl"
    path.write_text(json.dumps(good) + "\n\n" + json.dumps({**good, "status": "maybe"}) + "\n")
    with pytest.raises(InputFileError, match=r"predictions.jsonl:3: not a recall prediction record"):
        load_predictions(tmp_path)
    path.write_text(json.dumps(good) + "\n")
    [record] = load_predictions(tmp_path)
    assert record.correct and record.answers == {}
    with pytest.raises(InputFileError, match="cannot read recall predictions"):
        load_predictions(tmp_path / "missing")


def test_identity_from_reads_the_config_and_takes_what_is_derived() -> None:
    """``identity_from``: each IDENTITY setting from the config's attribute of that name, unless given."""
    from knowsum.recall import RecallConfig
    from knowsum.recall._run import run_identity

    config = RecallConfig(kb="go", select="sample", sample=7, temperature=0.5, invariance=("pi1", "pi2"))
    ident = run_identity(config, "m")
    assert list(ident) == ["what", "model", *RecallRecord.IDENTITY]
    assert (ident["kb"], ident["temperature"], ident["invariance"]) == ("go", "0.5", "pi1,pi2")
    assert (ident["selection"], ident["polysemy"]) == ("sample 7", "False")  # derived, not config fields
    with pytest.raises(AttributeError):  # a derived setting left out is not read from elsewhere
        RecallRecord.identity_from("go", "m", config, polysemy=False)
