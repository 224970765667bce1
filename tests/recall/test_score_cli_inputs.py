"""``recall score`` (and ``recall run``) on inputs that say less than a clean file, through the CLI.

- A popularity source with a value for none of the concepts is refused by ``score`` as by ``run``
  (one check, ``known_popularity``); one covering some of them gets a note with the count.
- Paper-rule Table 2 (§4.3: "averaged over all the wrong predictions") counts every wrong
  prediction: one without a popularity bucket makes the figure the pooled mean, not a mean over
  buckets that leaves it out.
- A bare digit string is read one way in a command: no ID, in the predictions and in an
  ``--invariance-file`` alike (chat answers).
- ``rb_spearman_p`` is a stable ``--json`` key and a line of the summary.
- ``--kb`` and its old spelling ``--ontology`` naming different KBs is refused.
- A predictions file that is not UTF-8 names the bad byte's line.

On the 11-term ``mini_go.obo`` (``tests/fixtures/recall``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import InputFileError
from knowsum.recall import load_predictions

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"
PREDS = str(FIX / "go-preds.csv")  # GO:0001822, GO:0000002, GO:0000003, GO:0000012 (release layout)


def _score(*args: str) -> list[str]:
    """``recall score`` with the test's defaults; an option in ``args`` replaces its default (an option
    given twice is refused)."""
    defaults = [
        word
        for name, value in (("--kb", "go"), ("--n-perm", "50"))
        if name not in args
        for word in (name, value)
    ]
    return ["recall", "score", *defaults, *args]


def _write(path: Path, text: str) -> str:
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- a popularity source that covers none, or some, of the concepts ---------------------------------


def test_a_popularity_source_of_other_ids_is_refused_by_score_as_by_run(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``X;1`` / ``Y;2`` are no GO IDs: no popularity analysis could be made. Was: ``score`` exit 0
    with no popularity analysis and no word, while ``run`` refused."""
    table = _write(tmp_path / "pop_none.csv", "X;1\nY;2\n")
    out = tmp_path / "never"
    assert main(_score("--predictions", PREDS, "--popularity", table, "--out", str(out))) == 2
    scored = capsys.readouterr().err
    run = ["recall", "run", "go", "-m", "mock", "--popularity", table, "--out", str(out)]
    assert main(run) == 2
    ran = capsys.readouterr().err
    words = f"popularity source {table!r} has no value for any go concept here: give a popularity table"
    assert scored == ran and scored.startswith(f"knowsum: error: {words}") and scored.count("\n") == 1
    assert not out.exists()  # nothing written


def test_partial_popularity_gets_a_note_with_the_count(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A table of 3 of the 4 rows (``score``) or of 5 of the 10 probed concepts (``run``): a note on
    stderr, in ``--json`` and in ``result.json`` says how many have a value."""
    table = _write(tmp_path / "pop3.csv", "GO:0001822;5\nGO:0000002;6\nGO:0000003;7\n")
    out = tmp_path / "s"
    assert main(_score("--predictions", PREDS, "--popularity", table, "--json", "--out", str(out))) == 0
    captured = capsys.readouterr()
    note = f"popularity source {table!r} has a value for 3 of the 4 scored concepts; the other 1 has no"
    assert f"warning: {note}" in captured.err
    assert any(n.startswith(note) for n in json.loads(captured.out)["notes"])
    assert any(n.startswith(note) for n in json.loads((out / "result.json").read_text())["notes"])
    lines = (FIX / "mini_go_popularity.csv").read_text().splitlines()
    half = _write(tmp_path / "half.csv", "\n".join(lines[:5]) + "\n")
    run = ["recall", "run", "go", "-m", "mock", "--popularity", half, "--n-buckets", "3", "--n-perm", "50"]
    assert main([*run, "--out", str(tmp_path / "r")]) == 0
    assert (
        f"popularity source {half!r} has a value for 5 of the 10 probed concepts" in capsys.readouterr().err
    )
    # a source covering every concept: no note
    full = ["--popularity", str(FIX / "mini_go_popularity.csv"), "--out", str(tmp_path / "f")]
    assert main([*run[:5], *run[7:], *full]) == 0
    assert "has a value for" not in capsys.readouterr().err


# --- paper-rule Table 2 counts every wrong prediction ----------------------------------------------


def test_paper_table_2_counts_a_wrong_prediction_without_popularity(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Study = the 4 gold IDs. Wrong: GO:0001822 → GO:0000002 (a study ID: Levenshtein 3, Jaccard 0,
    popularity 5) and GO:0000012 → "I dont know" (not a study ID: Levenshtein 10, Jaccard 0, no
    popularity, so no bucket). Table 2 = (3 + 10) / 2 = 6.5, pooled (was 3: the mean over buckets
    left the second out, while Table 3b, 1 of 2 = 50 %, counted it); the bucket keeps its own 3."""
    path = _write(
        tmp_path / "partpop3.csv",
        "id,prediction,popularity\nGO:0001822,GO:0000002,5\nGO:0000002,GO:0000002,6\n"
        "GO:0000003,GO:0000003,7\nGO:0000012,I dont know,\n",
    )
    out = tmp_path / "p"
    assert main(_score("--predictions", path, "--json", "--out", str(out))) == 0
    paper = json.loads(capsys.readouterr().out)["paper"]
    assert paper["mean_levenshtein"] == 6.5 and paper["mean_jaccard"] == 0.0
    assert paper["averaging"] == "pooled" and paper["wrong_due_to_invented_pct"] == 50.0
    buckets = json.loads((out / "result.json").read_text())["scores"]["popularity"]["buckets"]
    assert [b["paper_mean_levenshtein"] for b in buckets] == [3.0, None, None]
    # every wrong prediction in a bucket: the mean over buckets, as the authors' code (unchanged)
    full = _write(tmp_path / "full.csv", Path(path).read_text().replace("I dont know,", "I dont know,8"))
    assert main(_score("--predictions", full, "--json", "--out", str(tmp_path / "f"))) == 0
    paper = json.loads(capsys.readouterr().out)["paper"]
    assert paper["averaging"] == "buckets" and paper["mean_levenshtein"] == 6.5  # (3 + 10) / 2 buckets


# --- one reading of a bare digit string ------------------------------------------------------------


def test_bare_digits_read_alike_in_predictions_and_invariance_files(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same strings, ``0001822`` and ``GO:0060993``, as the predictions and as the M = 2 answers of
    an answers file: the bare digits are no ID in both (was: GO:0001822 and correct in the predictions,
    no ID in the answers file: accuracy 1.0 vs 0.5)."""
    preds = _write(tmp_path / "bare.csv", "id,prediction\nGO:0001822,0001822\nGO:0060993,GO:0060993\n")
    answers = _write(tmp_path / "bare.txt", "0001822\n0001822\nGO:0060993\nGO:0060993\n")
    out = tmp_path / "b"
    args = _score("--predictions", preds, "--per-bucket", "1", "--invariance-file", f"pi1={answers}")
    assert main([*args, "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accuracy"] == data["invariance"]["pi1"]["knowsum"]["overall_accuracy"] == 0.5
    records = load_predictions(out)
    assert records[0].predicted is None and records[0].status == "no_id"
    assert records[0].answers == {"pi1": [None, None]}


# --- the stable --json keys --------------------------------------------------------------------------


def test_rb_spearman_p_is_a_json_key_and_a_summary_line(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The permutation p of ρ(bucket, R_B), shown on the page, is in ``--json`` and the summary too."""
    assert main(_score("--predictions", PREDS, "--json", "--out", str(tmp_path / "j"))) == 0
    data = json.loads(capsys.readouterr().out)
    assert "rb_spearman_p" in data and "rb_spearman" in data
    assert main(_score("--predictions", PREDS, "--out", str(tmp_path / "t"))) == 0
    assert any(line.split()[:1] == ["rb_spearman_p"] for line in capsys.readouterr().out.splitlines())


# --- --kb and its old spelling -----------------------------------------------------------------------


def test_kb_and_the_old_ontology_spelling_must_agree(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--kb go --ontology icd10``: refused, nothing written (was: go scored, icd10 dropped unsaid);
    the same KB twice is accepted with the renaming note."""
    out = tmp_path / "never"
    assert main(_score("--kb", "go", "--ontology", "icd10", "--predictions", PREDS, "--out", str(out))) == 2
    err = capsys.readouterr().err
    assert (
        "knowsum: error: --kb go and --ontology icd10 disagree (--ontology is the old spelling of --kb)"
        in err
    )
    assert not out.exists()
    assert main(_score("--ontology", "go", "--predictions", PREDS, "--out", str(tmp_path / "ok"))) == 0
    assert "knowsum: note: --ontology is renamed --kb; --ontology will be removed" in capsys.readouterr().err


# --- a file that is not UTF-8 ------------------------------------------------------------------------


def test_a_non_utf8_file_names_the_line_of_the_bad_byte(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Latin-1 ``é`` on line 3 (byte 50): the message names both (the shared reader of every input
    file); a byte-order mark does not shift the byte counted."""
    for bom, at in ((b"", 50), (b"\xef\xbb\xbf", 53)):
        path = tmp_path / "nonutf.csv"
        path.write_bytes(bom + "id,prediction\nGO:0001822,GO:0001822\nGO:0000003,caf\xe9\n".encode("latin-1"))
        assert main(_score("--predictions", str(path), "--out", str(tmp_path / "never"))) == 2
        err = capsys.readouterr().err
        assert f"not UTF-8 text (invalid continuation byte at byte {at}); re-save it as UTF-8" in err
        assert err.rstrip().endswith(f"(byte {at} is on line 3)")
    bad = tmp_path / "run" / "predictions.jsonl"  # a run's own file, read by load_predictions
    bad.parent.mkdir()
    bad.write_bytes(b'{"id": "GO:1"}\n\xff\n')
    with pytest.raises(InputFileError, match=r"cannot read recall predictions \(not UTF-8 .* on line 2\)"):
        load_predictions(bad.parent)
