"""The census path's caveats and its comparability check, end to end through ``main([...])``:

- a clamped ``Û`` prints ``n/a: REASON`` for every interval on every surface (table, ``--json``,
  ``result.json``, page, compare), never ``[0, 0]``, ``[N_seen, N_seen]`` or ``[1, 1]``;
- ``census compare --at-coverage`` marks a run the common coverage shrinks to a handful of observations;
- ``census compare`` refuses runs of different tasks (or marks them with ``--allow-mixed``) and a run
  given twice; ``census overlap A A`` is refused.

Hand values: mentions Humans 4, COVID-19 2, and four items once give ``(s, n_s) = (1, 4), (2, 1), (4, 1)``;
at ``t = 100``, ``k = 6`` the smoothed Good–Turing ``Û`` is −5.33 (``tests/census/test_score.py``):
clamped at 0, so a log-normal interval is the point ``[6, 6]``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from knowsum.census import load_result
from knowsum.cli import main
from knowsum.errors import ConfigError
from knowsum.records import check_comparable
from knowsum.stats.bootstrap import ZERO_REASON

pytestmark = pytest.mark.filterwarnings("ignore::knowsum.stats.StatsWarning")

CLAMPED = (
    "Q1\tHumans\nQ1\tCOVID-19\nQ2\tHumans\nQ2\tHumans\nQ2\tA\nQ3\tB\nQ4\tHumans\nQ4\tCOVID-19\nQ4\tC\nQ4\tD\n"
)


def _main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def _score(folder: Path, text: str, capsys: pytest.CaptureFixture[str], *extra: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    items = folder / "items.tsv"  # one file name: the runs are of one task, score:items
    items.write_text(text, encoding="utf-8")
    code, _, err = _main(["census", "score", str(items), "--out", str(folder / "run"), *extra], capsys)
    assert code == 0, err
    return folder / "run"


def test_a_clamped_census_shows_na_on_every_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a").mkdir()
    items, run = tmp_path / "a" / "items.tsv", tmp_path / "a" / "run"
    items.write_text(CLAMPED, encoding="utf-8")
    code, out, err = _main(["census", "score", str(items), "--k", "6", "--out", str(run)], capsys)
    assert code == 0, err
    na = f"n/a: {ZERO_REASON}"
    rows = {line.split("  ")[0]: line for line in out.splitlines()}
    for label in (
        "U(t) 95% confidence interval (lognormal)",
        "N_tot confidence interval",
        "SKR confidence interval",
    ):
        assert rows[label].rstrip().endswith(na), rows[label]
    assert "[0, 0]" not in out and "[6, 6]" not in out and "[1, 1]" not in out
    assert "Û clamped at 0" in rows["caveats"] and "interval n/a" in rows["caveats"]
    record = json.loads((run / "result.json").read_text())
    assert record["interval"] is None and record["interval_total"] is None and record["interval_skr"] is None
    assert record["interval_reason"] == ZERO_REASON
    assert {"clamped", "interval-na", "tiny-sample"} <= {c["kind"] for c in record["caveats"]}
    html = (run / "report.html").read_text(encoding="utf-8")
    assert na in html and "[6, 6]" not in html and "Caveats" in html
    code, out, _ = _main(["census", "compare", str(run), "--json"], capsys)
    row = json.loads(out)["rows"][0]
    assert code == 0 and row["interval_total"] is None
    assert {"clamped", "interval-na"} <= {c["kind"] for c in row["caveats"]}
    code, out, _ = _main(["census", "compare", str(run)], capsys)
    assert code == 0 and "Û clamped at 0" in out


def test_compare_at_coverage_marks_a_run_shrunk_to_a_handful(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spread = "".join(f"Q{q}\tx{q * 3 + j}\n" for q in range(20) for j in range(3)) + "Q0\tx0\nQ1\tx1\n"
    focused = "".join(f"Q{q}\tsame\n" for q in range(40)) + "Q0\tother\nQ1\tthird\n"
    a = _score(tmp_path / "a", spread, capsys, "--model", "spread", "--n-bootstrap", "0", "--t", "1")
    b = _score(tmp_path / "b", focused, capsys, "--model", "focused", "--n-bootstrap", "0", "--t", "1")
    code, out, err = _main(
        ["census", "compare", str(a), str(b), "--at-coverage", "--n-bootstrap", "0", "--json"], capsys
    )
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)["at_coverage"]["rows"]}
    assert rows["focused"]["at_size"] < 20
    assert [c["kind"] for c in rows["focused"]["caveats"]] == ["tiny-sample"]
    code, out, err = _main(
        ["census", "compare", str(a), str(b), "--at-coverage", "--n-bootstrap", "0"], capsys
    )
    ranked = out.split("ranked at equal sample coverage", 1)[1]
    line = next(x for x in ranked.splitlines() if x.startswith("focused"))
    assert "tiny sample" in line


def test_compare_refuses_mixed_tasks_and_a_run_twice(
    kb_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diseases = tmp_path / "diseases"
    args = ["census", "run", "diseases", "--model", "mock", "--queries", "3", "--n-bootstrap", "0"]
    assert _main([*args, "--out", str(diseases), "--store", str(tmp_path / "s.sqlite")], capsys)[0] == 0
    custom = _score(tmp_path / "c", CLAMPED, capsys, "--n-bootstrap", "0")
    code, out, err = _main(["census", "compare", str(diseases), str(custom)], capsys)
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1
    assert f"{diseases} and {custom} are not comparable (task diseases vs score:items;" in err
    assert "--allow-mixed" in err
    code, out, err = _main(
        ["census", "compare", str(diseases), str(custom), "--allow-mixed", "--json"], capsys
    )
    assert code == 0, err
    rows = {r["model"]: r for r in json.loads(out)["rows"]}
    marks = [c["mark"] for c in rows["items"]["caveats"] if c["kind"] == "differs"]
    assert len(marks) == 1 and marks[0].startswith("differs: task diseases vs score:items")
    assert not any(c["kind"] == "differs" for c in rows["mock"]["caveats"])
    code, out, err = _main(["census", "compare", str(diseases), str(custom), "--allow-mixed"], capsys)
    assert code == 0 and "differs: task diseases vs score:items" in out
    for twice in ([str(diseases), str(diseases)], [str(diseases), str(diseases / "result.json")]):
        code, out, err = _main(["census", "compare", *twice, "--allow-mixed"], capsys)
        assert (code, out) == (2, "") and "are the same run twice" in err


def test_overlap_of_a_run_with_itself_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _score(tmp_path / "a", CLAMPED, capsys, "--n-bootstrap", "0")
    for other in (a, a / "result.json"):
        code, out, err = _main(["census", "overlap", str(a), str(other)], capsys)
        assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1
        assert "are the same run twice" in err


def _shared(out: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(out)
    return data


def test_overlap_marks_a_shared_estimate_above_a_runs_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counts = [1] * 6 + [2] * 2 + [5] * 3
    rows_a = [f"Q{j}\ti{j}" for j, c in enumerate(counts) for _ in range(c)]
    rows_b = [f"Q{j}\ti{j}" for j in range(len(counts))]
    a = _score(tmp_path / "a", "\n".join(rows_a) + "\n", capsys, "--model", "a", "--n-bootstrap", "0")
    b = _score(tmp_path / "b", "\n".join(rows_b) + "\n", capsys, "--model", "b", "--n-bootstrap", "0")
    code, out, err = _main(["census", "overlap", str(a), str(b), "--json"], capsys)
    assert code == 0, err
    data = _shared(out)
    above = [c for c in data["caveats"] if c["kind"] == "shared-above-own"]
    assert above and all("b's own" in c["message"] or "(b)'s own" in c["message"] for c in above)
    code, out, err = _main(["census", "overlap", str(a), str(b)], capsys)
    assert "shared above own richness" in out


def test_hill_numbers_out_of_order_are_marked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Near-uniform mentions: the asymptotic q = 2 estimate comes out above q = 0 (true Hill numbers
    never increase with q), and the census says so instead of printing them plainly."""
    rows = "".join(f"Q{q}\titem{(q * q * 7 + j) % 97}\n" for q in range(40) for j in range(3))
    run = _score(tmp_path / "a", rows, capsys, "--n-bootstrap", "0", "--t", "1")
    record = json.loads((run / "result.json").read_text())
    est = record["richness"]["hill"]["estimated"]
    assert est[2] > est[0]
    # the only other caveat such a census carries is its simulated error at its own t
    assert [c["kind"] for c in record["caveats"] if c["kind"] != "own-t-error"] == ["hill-order"]
    assert "hill-order" in {c["kind"] for c in record["richness"]["caveats"]}
    code, out, _ = _main(["census", "compare", str(run)], capsys)
    assert code == 0 and "Hill numbers out of order" in out


def test_two_custom_tasks_of_one_name_differ_by_their_prompt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = _score(tmp_path / "a", CLAMPED, capsys, "--n-bootstrap", "0")
    a = load_result(run).model_copy(update={"backend": "mock", "task": "custom", "prompt": "List diseases."})
    b = a.model_copy(update={"model": "other", "prompt": "List rare diseases."})
    with pytest.raises(
        ConfigError, match=r"A and B are not comparable \(prompt #[0-9a-f]{12} vs #[0-9a-f]{12}\)"
    ):
        check_comparable([a, b], ["A", "B"])
    assert check_comparable([a, b], ["A", "B"], allow_mixed=True)[1].startswith("differs: prompt #")
    assert check_comparable([a, b.model_copy(update={"prompt": a.prompt})], ["A", "B"]) == ["", ""]
