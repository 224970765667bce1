"""``recall compare`` keeps every run and says what each popularity ρ was measured over.

- Two runs of one KB whose model names are the same (two ``recall run -m mock``, two scored files
  both named ``partpop3.csv``) each keep a column, named by their run folders, in the text, the
  Markdown and the JSON tables (was: one column, the last run, exit 0).
- Table 4(a) puts each run's popularity source and bucket count beside its ρ, and with
  ``--published`` says when a run's ρ is not the paper's measure (Web occurrences, 50 buckets)
  instead of titling every run's ρ "Web popularity".

On the 11-term ``mini_go.obo`` (``tests/fixtures/recall``), through ``knowsum recall …``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.recall import PopularityScores, load_result
from knowsum.recall._instrument import INSTRUMENT
from knowsum.recall._published import unlike_table4a
from tests.recall.test_score import write_csv

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "recall"


def _run(out: Path, sample: int) -> list[str]:
    return [
        "recall",
        "run",
        "go",
        "-m",
        "mock",
        "--sample",
        str(sample),
        "--popularity",
        "none",
        "--out",
        str(out),
    ]


def _compare(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    assert main(["recall", "compare", *args]) == 0
    return capsys.readouterr().out


def test_two_runs_of_one_model_keep_both_columns(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``mock`` with ``--sample 3`` and ``--sample 5``: two columns ``mock (m_a)`` and ``mock (m_b)``
    on every surface, each with its own numbers (3 and 5 distinct no-ID answers)."""
    store = ["--store", str(tmp_path / "s.sqlite"), "--n-perm", "50"]
    for name, n in (("m_a", 3), ("m_b", 5)):
        assert main([*_run(tmp_path / name, n), *store]) == 0
    a, b = str(tmp_path / "m_a"), str(tmp_path / "m_b" / "result.json")  # a folder or its result.json
    data = json.loads(_compare(capsys, a, b, "--json"))
    t1, _, t3 = data["tables"][:3]
    assert t1["headers"] == ["Dataset", "mock (m_a)", "mock (m_b)"]
    assert t3["headers"][1:4] == ["mock (m_a) Unq", "mock (m_a) %Inv", "mock (m_a) %WrongInv"]
    assert t3["rows"][0][1] == 3 and t3["rows"][0][4] == 5  # each run's own Table 3a "Unq"
    text = _compare(capsys, a, b)
    assert "mock (m_a)" in text and "mock (m_b)" in text
    markdown = _compare(capsys, a, b, "--markdown")
    assert "| Dataset | mock (m_a) | mock (m_b) |" in markdown


def test_two_scored_files_of_one_name_keep_both_columns(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two files both named ``partpop3.csv`` scored from two folders into their default run folders
    (``recall-runs/score-partpop3`` in each): the folder names are the same too, so the columns
    name the shortest tails that differ (``x/recall-runs/score-partpop3``)."""
    rows = (FIX / "go-preds.csv").read_text().splitlines()
    runs = []
    for name, kept in (("x", rows[:3]), ("y", rows)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "partpop3.csv").write_text("\n".join(kept) + "\n")
        capsys.readouterr()
        args = ["recall", "score", "--kb", "go", "--predictions", str(folder / "partpop3.csv")]
        assert main([*args, "--n-perm", "50", "--out", str(folder / "recall-runs" / "score-partpop3")]) == 0
        runs.append(str(folder / "recall-runs" / "score-partpop3"))
    data = json.loads(_compare(capsys, *runs, "--json"))
    headers = data["tables"][0]["headers"]
    assert headers == [
        "Dataset",
        "partpop3.csv (x/recall-runs/score-partpop3)",
        "partpop3.csv (y/recall-runs/score-partpop3)",
    ]
    assert data["tables"][0]["rows"] == [["go", pytest.approx(2 / 3), 0.5]]


def test_table_4a_names_each_runs_popularity_and_says_when_it_is_not_the_papers(
    mini_go: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A scored file with a popularity table of its own (3 buckets) beside the paper's Web-occurrence,
    50-bucket ρ: its source and bucket count stand beside its ρ, and the title says it is another
    measure (was: "Spearman ρ of Web popularity vs accuracy" over every column)."""
    table = FIX / "mini_go_popularity.csv"
    out = tmp_path / "own"
    preds = str(write_csv(tmp_path / "p.csv", mini_go))  # the 10 mini-GO concepts
    args = ["recall", "score", "--kb", "go", "--predictions", preds, "--popularity", str(table)]
    assert main([*args, "--n-buckets", "3", "--n-perm", "50", "--out", str(out)]) == 0
    rho = load_result(out).scores.popularity
    assert rho is not None and rho.bucket_spearman is not None
    data = json.loads(_compare(capsys, str(out), "--published", "--json"))
    title, headers, rows = next(
        (t["title"], t["headers"], t["rows"]) for t in data["tables"] if t["title"].startswith("Table 4(a)")
    )
    assert "Web popularity" not in title.split(";")[0]
    assert headers[1:3] == ["p.csv ρ", "p.csv popularity"]
    assert rows[0][1:3] == [pytest.approx(rho.bucket_spearman), f"{table}, 3 buckets"]
    assert rows[0][3:] == [0.850, 0.924, 0.993, 0.982]  # the paper's, as printed
    assert (
        f"not the paper's measure, so not comparable with its ρ: p.csv on go: popularity {table}, "
        "not Web occurrences; 3 buckets, not 50" in title
    )
    # without the paper's columns nothing is set beside them: the title names no difference
    alone = json.loads(_compare(capsys, str(out), "--json"))["tables"]
    assert not any("not the paper's measure" in t["title"] for t in alone)


def test_the_papers_measure_and_the_card() -> None:
    """Web occurrences (a ``web`` table or a release file's column) over 50 buckets is Table 4(a)'s
    measure; anything else is named, and the card, which sets the ρ beside Table 4(a), says so."""

    def pop(source: str, n: int) -> PopularityScores:
        return PopularityScores(
            source=source,
            n_buckets=n,
            n_with_popularity=10,
            buckets=[],
            bucket_spearman=0.5,
            bucket_spearman_p=0.1,
            granger_f=None,
            granger_p=None,
            levenshtein_spearman=None,
            jaccard_spearman=None,
            top_k=500,
            top_k_used=0,
            rb_spearman=None,
        )

    assert unlike_table4a(pop("web", 50)) == unlike_table4a(pop("release file", 50)) == ""
    assert (
        unlike_table4a(pop("annotations", 4))
        == "popularity annotations, not Web occurrences; 4 buckets, not 50"
    )
    record = load_result(FIX / "old_results" / "v3_score.json")
    own = record.model_copy(
        update={"scores": record.scores.model_copy(update={"popularity": pop("annotations", 4)})}
    )
    [card] = [m for m in INSTRUMENT.measures(own, "r") if m.key.endswith("popularity_rho")]
    assert any("not Table 4(a)'s measure (popularity annotations" in c.message for c in card.caveats)
    web = own.model_copy(update={"scores": record.scores.model_copy(update={"popularity": pop("web", 50)})})
    [card] = [m for m in INSTRUMENT.measures(web, "r") if m.key.endswith("popularity_rho")]
    assert not any("Table 4(a)'s measure" in c.message for c in card.caveats)
