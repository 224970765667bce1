"""``score_predictions`` on synthetic predictions files in each accepted format, and bad rows."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from knowsum.errors import InputFileError
from knowsum.models import MockBackend
from knowsum.recall import RecallConfig, read_predictions, run_recall, score_predictions

from .test_run_mock import ANSWERS, responder

NAMES = {
    "GO:0001822": "kidney development",
    "GO:0060993": "kidney morphogenesis",
    "GO:0008150": "biological_process",
    "GO:0003179": "heart valve morphogenesis",
    "GO:0061384": "heart trabecula morphogenesis",
    "GO:0051302": "regulation of cell division",
    "GO:2000145": "regulation of cell motility",
    "GO:0060219": "camera-type eye photoreceptor cell differentiation",
    "GO:0060519": "cell adhesion involved in prostatic bud elongation",
    "GO:0000003": "reproduction",
}


def _popularity(fix: Path) -> dict[str, int]:
    lines = (fix / "mini_go_popularity.csv").read_text().splitlines()
    return {line.split(";")[0]: int(line.rsplit(";", 1)[1]) for line in lines}


def write_release(path: Path, fix: Path) -> Path:
    pop = _popularity(fix)
    path.write_text("".join(f"{i};{n};7;{pop[i]};{ANSWERS[n]}\n" for i, n in NAMES.items()), encoding="utf-8")
    return path


def write_csv(path: Path, fix: Path) -> Path:
    pop = _popularity(fix)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["prediction", "id", "popularity", "label"])
        for i, n in NAMES.items():
            w.writerow([ANSWERS[n], i, pop[i], n])
    return path


def write_jsonl(path: Path, fix: Path) -> Path:
    pop = _popularity(fix)
    path.write_text(
        "".join(
            json.dumps({"id": i, "prediction": ANSWERS[n], "popularity": pop[i]}) + "\n"
            for i, n in NAMES.items()
        )
    )
    return path


Writer = Callable[[Path, Path], Path]


@pytest.mark.parametrize(
    ("writer", "name", "fmt"),
    [(write_release, "p.csv", "release"), (write_csv, "p.csv", "csv"), (write_jsonl, "p.jsonl", "jsonl")],
)
def test_every_format_scores_like_the_run(
    mini_go: Path, tmp_path: Path, writer: Writer, name: str, fmt: str
) -> None:
    path = writer(tmp_path / name, mini_go)
    got_fmt, rows = read_predictions(path)
    assert got_fmt == fmt and len(rows) == 10
    result, records = score_predictions("go", path, n_buckets=3, n_perm=2000)
    run, _ = run_recall(
        RecallConfig(kb="go", popularity=str(mini_go / "mini_go_popularity.csv"), n_buckets=3, n_perm=2000),
        MockBackend(responder),
        progress=False,
    )
    assert result.api == "file" and result.model == name
    assert result.scores.model_dump(exclude={"popularity"}) == run.scores.model_dump(exclude={"popularity"})
    assert result.scores.popularity is not None and run.scores.popularity is not None
    assert result.scores.popularity.buckets == run.scores.popularity.buckets
    assert result.scores.popularity.bucket_spearman == run.scores.popularity.bucket_spearman
    assert [r.status for r in records].count("invented") == 2


def test_csv_delimiters(mini_go: Path, tmp_path: Path) -> None:
    for delimiter in (";", "\t"):
        path = tmp_path / "p.csv"
        path.write_text(f"ID{delimiter}Prediction\nGO:0001822{delimiter}GO:0001822\nGO:0000003{delimiter}\n")
        fmt, rows = read_predictions(path)
        assert fmt == "csv" and [r.prediction for r in rows] == ["GO:0001822", ""]
        result, _ = score_predictions("go", path)
        assert result.scores.accuracy == 0.5 and result.scores.n_no_id == 1


def test_without_popularity_no_bucket_analysis(mini_go: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "GO:0001822", "prediction": "GO:0001822"}\n{"id": "go:3", "prediction": null}\n')
    result, records = score_predictions("go", path)
    assert result.scores.popularity is None
    assert result.scores.accuracy == 0.5 and result.scores.n_no_id == 1
    assert records[1].id == "GO:0000003" and records[1].label == "reproduction"  # label from the KB


def test_popularity_override_from_a_table(mini_go: Path, tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"id": i, "prediction": i}) + "\n" for i in NAMES))
    result, _ = score_predictions("go", path, popularity=str(mini_go / "mini_go_popularity.csv"), n_buckets=3)
    pop = result.scores.popularity
    assert pop is not None and [b.n for b in pop.buckets] == [5, 2, 3] and result.scores.accuracy == 1.0


@pytest.mark.parametrize(
    ("name", "content", "where", "problem"),
    [
        (
            "r.csv",
            "GO:0001822;kidney development;1;5;GO:0001822\nGO:0003179;heart valve;1;5\n"
            "GO:0000003;reproduction;1;many;GO:0000003\nGO:0008150;bp;1;2;x\n",
            ":2:",
            "expected ID;label;n_annotations;n_web_occurrences;prediction (1 more bad rows: lines 3)",
        ),
        ("c.csv", "id,prediction,popularity\nGO:0001822,GO:1,3\n,GO:2,1\n", ":3:", "missing or empty 'id'"),
        (
            "c.csv",
            "id,prediction,popularity\nGO:0001822,GO:1,lots\n",
            ":2:",
            "popularity 'lots' is not a number",
        ),
        ("c.csv", "id,prediction\nGO:0001822,GO:1,extra\n", ":2:", "more fields than the header"),
        ("j.jsonl", '{"id": "GO:0001822", "prediction": "x"}\n{"id": 3}\n', ":2:", "missing or empty 'id'"),
        ("j.jsonl", '{"id": "GO:0001822", "prediction": "x"}\n\n{oops\n', ":3:", "invalid JSON"),
        ("j.jsonl", '["GO:0001822"]\n', ":1:", "expected a JSON object"),
        ("j.jsonl", '{"id": "GO:1", "prediction": 5}\n', ":1:", "'prediction' must be text"),
        (
            "j.jsonl",
            '{"id": "kidney", "prediction": "GO:1"}\n',
            ":1:",
            "gold ID 'kidney' is not a well-formed go ID",
        ),
        ("e.csv", "\n\n", "e.csv", "no prediction rows"),
    ],
)
def test_bad_rows_are_reported_with_line_numbers(
    mini_go: Path, tmp_path: Path, name: str, content: str, where: str, problem: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputFileError) as info:
        score_predictions("go", path)
    msg = str(info.value)
    assert str(path) in msg and where in msg and problem in msg


def test_missing_file(mini_go: Path, tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="cannot read predictions"):
        read_predictions(tmp_path / "nope.csv")
