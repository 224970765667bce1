"""What ``recall score`` does with files that say less, or other, than a clean release: a gold ID
given twice, a row without its prediction, a gold ID the ontology lacks, and a file holding a small
part of the concepts (where the paper's rule 1 makes real IDs "invented"). Also the card's
popularity ρ against Table 4(a) and the reasons an undefined figure carries.

On the 11-term ``mini_go.obo`` (10 live terms: the universe of a run, and the size a file must
nearly reach not to be a subset).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.errors import InputFileError
from knowsum.recall import compare_tables, score_predictions
from knowsum.recall._instrument import INSTRUMENT, _caveats, _why_no_rho
from knowsum.recall._paper import SUBSET
from tests.recall.test_score import NAMES, write_csv


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "content", "where", "problem"),
    [
        # a concept twice: refused whether the rows agree or not, with both lines named
        (
            "d.csv",
            "id,prediction\nGO:0001822,GO:0001822\nGO:0001822,GO:0000003\n",
            ":3:",
            "on line 2 and again",
        ),
        ("d.csv", "id,prediction\nGO:0001822,x\nGO:0001822,x\n", ":3:", "each concept is scored once"),
        # the same concept spelled two ways is still one concept
        ("d.csv", "id,prediction\nGO:0000003,x\ngo_3,y\n", ":3:", "'GO:0000003' is on line 2"),
        # a row without its prediction: JSONL without the key, CSV cut short
        ("p.jsonl", '{"id": "GO:0001822"}\n', ":1:", "missing 'prediction'"),
        ("p.csv", "id,label,prediction\nGO:0001822,kidney development\n", ":2:", "missing 'prediction'"),
    ],
)
def test_rows_that_cannot_be_scored_as_given_are_refused(
    mini_go: Path, tmp_path: Path, name: str, content: str, where: str, problem: str
) -> None:
    path = _write(tmp_path / name, content)
    with pytest.raises(InputFileError) as info:
        score_predictions("go", path)
    assert str(path) in str(info.value) and where in str(info.value) and problem in str(info.value)
    assert not Path("recall-runs").exists()  # nothing written


def test_a_json_null_prediction_is_no_answer(mini_go: Path, tmp_path: Path) -> None:
    path = _write(tmp_path / "p.jsonl", '{"id": "GO:0001822", "prediction": null}\n')
    assert score_predictions("go", path).record.scores.n_no_id == 1


def test_a_gold_id_the_ontology_lacks_is_named(mini_go: Path, tmp_path: Path) -> None:
    """GO:9999999 is well formed but not in mini GO: scored as given, named in one note."""
    path = _write(tmp_path / "g.csv", "id,prediction\nGO:9999999,GO:0000003\nGO:0000003,GO:0000003\n")
    record = score_predictions("go", path).record
    assert record.scores.accuracy == 0.5
    assert len(record.notes) == 1
    note = record.notes[0]
    assert "1 gold ID not in go" in note and "'GO:9999999' (line 2)" in note


def test_a_file_of_a_few_concepts_says_its_paper_rule_figures_are_overstated(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Three of the ten concepts: GO:0060993 is a real ID, yet invented under rule 1 (study = the
    file's rows); knowsum's rule (the whole ontology) does not count it."""
    path = _write(
        tmp_path / "few.csv",
        "id,prediction\nGO:0001822,GO:0060993\nGO:0000003,GO:0000003\nGO:0008150,GO:0008150\n",
    )
    out = tmp_path / "few"
    assert main(["recall", "score", "--kb", "go", "--predictions", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    record = json.loads((out / "result.json").read_text())
    assert [c["kind"] for c in record["caveats"]] == [SUBSET]
    message = record["caveats"][0]["message"]
    assert "the 3 concepts of this file, not of the 10 of go here; the paper's study: 42,854" in message
    paper, knowsum = record["scores"]["paper"], record["scores"]
    assert paper["invented_pct"] == pytest.approx(100 / 3) and knowsum["invented_unique_pct"] == 0
    assert "caveat: paper rule on a subset" in printed
    # the compare tables put it on the paper-rule tables, not on the column of every table
    tables = compare_tables([score_predictions("go", path, out=out, overwrite=True).record])
    titles = {t[0].split(".")[0]: t for t in tables}
    assert titles["Table 1"][1] == ["Dataset", "few.csv"]
    assert "paper rule on a subset for few.csv" in titles["Table 3 (paper rules)"][0]
    assert "subset" not in titles["Table 3 (knowsum rules)"][0]


def test_a_file_of_nearly_every_concept_has_no_subset_caveat(mini_go: Path, tmp_path: Path) -> None:
    record = score_predictions("go", write_csv(tmp_path / "all.csv", mini_go)).record
    assert len(NAMES) == 10 and record.scores.paper is not None and record.scores.paper.n_study == 10
    assert record.caveats == []


def test_the_card_reads_the_popularity_rho_against_table_4a() -> None:
    """The paper prints ρ per model for GO and ICD-10 (Table 4(a)); the card places a run among them."""
    rows = {(r.model, r.measure): r.value for r in INSTRUMENT.published if r.table == "Table 4(a)"}
    assert rows[("Pythia-12B", "go/popularity_rho")] == 0.850
    assert rows[("GPT-4", "icd10/popularity_rho")] == 0.919
    assert len(rows) == 8


@pytest.mark.parametrize(
    ("accuracies", "popularity", "reason"),
    [
        ([0.5, 0.7], [1.0, 2.0], "2 buckets with concepts, ρ needs at least 3"),
        ([0.5], [1.0], "1 bucket with concepts, ρ needs at least 3"),
        ([0.2, 0.2, 0.2], [1.0, 2.0, 3.0], "accuracy is 20.0% in every bucket"),
        ([0.1, 0.2, 0.3], [4.0, 4.0, 4.0], "every bucket has the same mean popularity"),
    ],
)
def test_an_undefined_popularity_rho_says_why(
    accuracies: list[float], popularity: list[float], reason: str
) -> None:
    """The same rule as ``spearman_or_none``: at least 3 buckets, both series varying."""
    assert reason in _why_no_rho(accuracies, popularity)


def test_the_sample_caveat_speaks_of_the_popularity_the_run_has(mini_go: Path, tmp_path: Path) -> None:
    record = score_predictions("go", write_csv(tmp_path / "all.csv", mini_go), n_buckets=3).record
    with_pop = record.model_copy(update={"config": {**record.config, "select": "sample"}})
    assert record.scores.popularity is not None
    assert "no popularity" not in _caveats(with_pop)[0]
    without = with_pop.model_copy(update={"scores": record.scores.model_copy(update={"popularity": None})})
    assert "no popularity, so no buckets and no ρ" in _caveats(without)[0]


def test_knowsum_rule_table_6_rho_keeps_its_p_value(mini_go: Path, tmp_path: Path) -> None:
    pop = score_predictions(
        "go", write_csv(tmp_path / "all.csv", mini_go), n_buckets=3
    ).record.scores.popularity
    assert pop is not None and pop.knowsum_levenshtein_spearman is not None
    assert pop.knowsum_levenshtein_spearman_p is not None and 0 < pop.knowsum_levenshtein_spearman_p <= 1
