"""A summary score computed on cut text says so: per instance (``summary_flags``), as the record's caveat,
and on every surface of the run (terminal, ``--json``, page, profile card).

BERTScore matches at most 512 word pieces of an answer (as ``bert-score`` truncates) and the perplexity
reads at most 1,023 tokens, so an answer of 1,200 words is scored on its first part. The released-layout
summary pair (fixture README) is answered once with its gold (nothing cut) and once with such an answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench import INSTRUMENT, load_result
from knowsum.genebench._aggregate import SUMMARY_CUT, summary_caveats
from knowsum.genebench.record import InstanceRecord
from tests.genebench.conftest import GB_FIX

RELEASED = GB_FIX / "released_layout.jsonl"


def _summary(flags: list[str] | None, *, scored: bool = True) -> InstanceRecord:
    return InstanceRecord(
        question_index="1",
        task="Q8",
        question_type="summary",
        knowledge="summary",
        perspective="p",
        flag="no_ref",
        response="r",
        score=0.5,
        rouge_l=0.5 if scored else None,
        summary_flags=flags,
    )


def test_no_caveat_without_cut_text() -> None:
    assert summary_caveats([]) == []
    assert summary_caveats([_summary(None), _summary(["empty candidate"])]) == []  # empty: 0 by the rule


def test_the_caveat_counts_the_cut_scores_of_the_scored_summaries() -> None:
    records = [
        _summary(["bertscore truncated"]),
        _summary(["bertscore truncated", "perplexity truncated"]),
        _summary(None),
        _summary(["empty candidate"]),
        _summary(None, scored=False),  # a format error: no summary score, not counted
    ]
    (note,) = summary_caveats(records)
    assert (note.kind, note.mark, note.figure) == (SUMMARY_CUT, "summary inputs cut", "summary score")
    assert note.message.startswith("summary inputs cut: 2 of 4 summary scores read cut text")
    assert "(bertscore truncated 2, perplexity truncated 1)" in note.message


def test_instance_flags_round_trip_through_the_jsonl_line() -> None:
    rec = _summary(["bertscore truncated"])
    line = json.loads(rec.to_json())
    assert line["summary_flags"] == ["bertscore truncated"] and InstanceRecord.from_dict(line) == rec
    assert "summary_flags" not in json.loads(_summary(None).to_json())


@pytest.mark.slow
def test_a_cut_summary_is_marked_on_every_surface(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("sentence_transformers", reason="needs pip install 'knowsum[embed]'")
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    from knowsum.genebench import _textmetrics as tm
    from knowsum.models import is_installed, model_spec

    if not is_installed(model_spec(tm.PPL_REGISTRY_MODEL)):
        pytest.skip(f"run `knowsum models install {tm.PPL_REGISTRY_MODEL}`")
    lines = [ln for ln in RELEASED.read_text(encoding="utf-8").splitlines() if '"summary"' in ln]
    questions = tmp_path / "summaries.jsonl"
    questions.write_text("".join(ln + "\n" for ln in lines), encoding="utf-8")
    pair = [json.loads(ln) for ln in lines]
    long = " ".join(["the gene encodes a ribosomal protein of the large subunit"] * 120)  # > 512 pieces
    replies = {"no_ref": str(pair[0]["answer"]), "with_ref": long}
    preds = tmp_path / "p.jsonl"
    preds.write_text(
        "".join(
            json.dumps(
                {"question_index": q["question_index"], "flag": q["flag"], "response": replies[q["flag"]]}
            )
            + "\n"
            for q in pair
        ),
        encoding="utf-8",
    )
    args = ["genebench", "score", "--questions", str(questions), "--predictions", str(preds)]

    assert main([*args, "--out", str(tmp_path / "text")]) == 0
    text = capsys.readouterr().out
    assert "caveats: summary inputs cut" in text and "1 of 2 summary scores read cut text" in text
    assert "(bertscore truncated 1, perplexity truncated 1)" in text

    assert main([*args, "--out", str(tmp_path / "json"), "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert [c["kind"] for c in shown["caveats"]] == [SUMMARY_CUT]

    run = tmp_path / "json"
    result = load_result(run)
    assert [c.kind for c in result.caveats] == [SUMMARY_CUT]
    rows = [json.loads(x) for x in (run / "predictions.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["flag"]: r.get("summary_flags") for r in rows} == {
        "no_ref": None,
        "with_ref": ["bertscore truncated", "perplexity truncated"],  # 1,200 words: past 1,023 tokens too
    }
    assert "summary inputs cut" in (run / "report.html").read_text(encoding="utf-8")

    marked = {m.key: [n.kind for n in m.marks] for m in INSTRUMENT.measures(result, "genebench-run")}
    assert marked["genebench/overall"] == marked["genebench/knowledge/summary"] == [SUMMARY_CUT]
    assert marked["genebench/knowledge/chromosome"] == []  # a type the summary does not enter
