"""What changes the figure is compared, and every table of a comparison carries the marks.

Runs scored from the same items at another t, k, interval method or estimator rank N̂_tot figures that
differ by construction (775 / 262 / 170 once stood side by side, "↑2"): refused, or with
``--allow-mixed`` marked on the main table, the equal-coverage table and the overlap — text,
``--json`` and page — with a t column when the t differ. ``profile compare --allow-mixed`` marks
its profiles the same way. Equal N_seen share a rank (no made-up change), a run without a horizon
is not one whose back-test failed, and query ``1`` and ``"1"`` are not merged.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from knowsum.census.page import compare_table
from knowsum.census.record import CensusRecord, load_result
from knowsum.cli import main
from tests.report.test_caveat_surfaces import _profile

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")


def _items(tmp_path: Path, seed: int = 3) -> Path:
    rng = np.random.default_rng(seed)
    p = 1 / np.arange(1, 301) ** 1.1
    rows = [[f"i{x}" for x in rng.choice(300, 8, p=p / p.sum())] for _ in range(40)]
    path = tmp_path / f"items{seed}.jsonl"
    path.write_text("".join(json.dumps({"query": f"q{i}", "items": r}) + "\n" for i, r in enumerate(rows)))
    return path


def _score(items: Path, out: Path, *extra: str) -> Path:
    args = ["census", "score", str(items), "--out", str(out), "--n-bootstrap", "10", "--name", "zipf"]
    assert main([*args, *extra]) == 0
    return out


@pytest.mark.parametrize(
    ("a", "b", "what"),
    [
        (["--t", "1"], ["--t", "3"], "t 1 vs 3"),
        (["--k", "4"], ["--k", "8"], "k 4 vs 8"),
        ([], ["--interval", "percentile"], "interval method lognormal vs percentile"),
    ],
)
def test_runs_whose_figure_was_computed_differently_are_refused(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], a: list[str], b: list[str], what: str
) -> None:
    items = _items(tmp_path)
    one, two = _score(items, tmp_path / "one", *a), _score(items, tmp_path / "two", *b)
    capsys.readouterr()
    assert main(["census", "compare", str(one), str(two)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "are not comparable" in err and what in err, err


def test_two_runs_written_in_one_second_are_two_runs_and_a_copied_folder_is_one(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Two runs of the same settings written in the same second (``created`` is to the second) are
    told apart by their ``run_id``; a copy of a run folder keeps it and is refused as the same run;
    files older than ``run_id`` fall back to instrument, identity, model and creation time."""
    items = _items(tmp_path)
    one, two = _score(items, tmp_path / "one"), _score(items, tmp_path / "two")
    first = json.loads((one / "result.json").read_text(encoding="utf-8"))
    second = json.loads((two / "result.json").read_text(encoding="utf-8"))
    assert len(first["run_id"]) == 32 and first["run_id"] != second["run_id"]
    second["created"] = first["created"]
    (two / "result.json").write_text(json.dumps(second), encoding="utf-8")
    capsys.readouterr()
    assert main(["census", "compare", str(one), str(two)]) == 0
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "result.json").write_text(json.dumps(first), encoding="utf-8")
    assert main(["census", "compare", str(one), str(copy)]) == 2
    assert "are the same run twice" in capsys.readouterr().err
    for folder, data in ((one, first), (two, second)):  # as written before run_id existed
        (folder / "result.json").write_text(json.dumps({k: v for k, v in data.items() if k != "run_id"}))
    assert load_result(one).run_id == ""
    assert main(["census", "compare", str(one), str(two)]) == 2
    assert "are the same run twice" in capsys.readouterr().err


def test_allow_mixed_marks_every_table_on_every_surface(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = _score(_items(tmp_path), tmp_path / "one", "--t", "1")
    two = _score(_items(tmp_path, 5), tmp_path / "two", "--t", "3")
    mark = "differs: t 1 vs 3"
    args = ["census", "compare", str(one), str(two), "--allow-mixed", "--at-coverage", "--n-bootstrap", "0"]
    capsys.readouterr()
    assert main([*args, "--json", "--html", str(tmp_path / "c.html")]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["t"]: r for r in data["rows"]}
    assert mark in [c["mark"] for c in rows[3.0]["caveats"]]
    assert not [c for c in rows[1.0]["caveats"] if c["kind"] == "differs"]  # the reference row
    coverage = {r["t"]: r for r in data["at_coverage"]["rows"]}
    assert mark in [c["mark"] for c in coverage[3.0]["caveats"]]
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert page.count(mark) >= 2 and re.search(r"<th [^>]*>t</th>", page)
    assert main(args) == 0
    text = capsys.readouterr().out
    main_table, coverage_table = text.split("\n\n", 1)
    assert mark in main_table and mark in coverage_table
    assert main_table.splitlines()[0].split()[:3] == ["model", "task", "t"]
    # the overlap of the two runs (the figure does not enter it): computed, and marked
    assert main(["census", "overlap", str(one), str(two), "--json"]) == 0
    overlap = json.loads(capsys.readouterr().out)
    assert mark in [c["mark"] for c in overlap["caveats"]]
    assert main(["census", "overlap", str(one), str(two)]) == 0
    assert mark in capsys.readouterr().out


def test_no_t_column_when_the_runs_share_t(tmp_home: Path, tmp_path: Path) -> None:
    one = load_result(_score(_items(tmp_path), tmp_path / "one"))
    headers, _ = compare_table([one, one.model_copy(update={"model": "other", "created": "x"})])
    assert "t" not in headers


def test_equal_n_seen_share_a_rank_and_a_missing_horizon_is_not_a_failed_one(
    tmp_home: Path, tmp_path: Path
) -> None:
    r = load_result(_score(_items(tmp_path), tmp_path / "one"))

    def row(model: str, seen: int, total: float) -> CensusRecord:
        return r.model_copy(update={"model": model, "n_seen": seen, "n_total": total, "horizon": None})

    headers, rows = compare_table([row("a", 10, 30.0), row("b", 10, 20.0), row("c", 5, 25.0)])
    got = {x[0]: dict(zip(headers, x, strict=True)) for x in rows}
    assert (got["a"]["rank N_seen"], got["b"]["rank N_seen"], got["c"]["rank N_seen"]) == (1, 1, 3)
    assert (got["a"]["change"], got["c"]["change"], got["b"]["change"]) == ("=", "↑1", "↓2")
    assert got["a"]["trust horizon"] == "n/a: not in this record"
    _, tied = compare_table([row("a", 10, 30.0), row("b", 10, 30.0)])
    assert [x[7] for x in tied] == ["=", "="]  # a tie is no change of place


def test_a_query_given_as_a_number_and_as_a_text_is_refused(
    tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = tmp_path / "q.jsonl"
    items.write_text('{"query": 1, "items": ["a"]}\n{"query": "1", "items": ["b"]}\n')
    capsys.readouterr()
    assert main(["census", "score", str(items), "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "query '1' is 1 on line 1" in err and "would be merged" in err, err
    items.write_text(
        '{"query": 1, "items": ["a"]}\n{"query": 1, "items": ["b"]}\n{"query": "2", "items": []}\n'
    )
    assert main(["census", "score", str(items), "--out", str(tmp_path / "run")]) == 0
    assert load_result(tmp_path / "run").n_queries == 2


def test_profile_compare_allow_mixed_marks_its_profiles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dirs = []
    for model, budget in (("m", "quick"), ("o", "smoke")):
        folder = tmp_path / model
        folder.mkdir()
        profile = _profile(model, []).model_copy(update={"budget": budget})
        (folder / "profile.json").write_text(profile.model_dump_json(), encoding="utf-8")
        dirs.append(str(folder))
    capsys.readouterr()
    assert main(["profile", "compare", *dirs]) == 2
    assert "budget quick vs smoke" in capsys.readouterr().err
    mark = "differs: budget quick vs smoke"
    args = ["profile", "compare", *dirs, "--allow-mixed"]
    assert main([*args, "--json", "--html", str(tmp_path / "p.html")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["differs"] == {dirs[0]: "", dirs[1]: mark}
    assert data["rows"][0] == ["differs", "", mark, ""]
    assert mark in (tmp_path / "p.html").read_text(encoding="utf-8")
    assert main(args) == 0
    assert mark in capsys.readouterr().out


def test_sweep_json_carries_each_cells_caveats_and_horizon(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`census sweep --json` and sweep.json once carried neither (the text and page did)."""
    out = tmp_path / "sw"
    args = ["census", "sweep", "theorems", "--model", "mock", "--queries", "3", "--answers", "10,20"]
    capsys.readouterr()
    assert (
        main(
            [*args, "--n-bootstrap", "0", "--out", str(out), "--store", str(tmp_path / "s.sqlite"), "--json"]
        )
        == 0
    )
    printed = json.loads(capsys.readouterr().out)["cells"]
    written = json.loads((out / "sweep.json").read_text())["cells"]
    assert printed == written and len(written) == 2
    for cell in written:
        record = load_result(out / cell["cell"])
        assert cell["caveats"] == [
            c.model_dump(mode="json", include={"kind", "mark", "message", "figure"}) for c in record.caveats
        ]
        assert cell["horizon"] == (None if record.horizon is None else record.horizon.model_dump(mode="json"))
