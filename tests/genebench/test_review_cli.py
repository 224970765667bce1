"""``genebench`` commands on what an outside review found: defaults taken for choices, scored runs
that compare cannot tell apart or that differ in reply rule / rotations, unanswered instances without a
caveat, the summary score beside the paper's, question files whose fields do not fit, and cells that mix
option counts. Choice questions only (no GO, no summary models): the released-layout fixture's rows.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from knowsum.cli import main
from knowsum.errors import ConfigError, InputFileError
from knowsum.genebench import INSTRUMENT, GenebenchConfig, compare_tables, load_result
from knowsum.genebench._caveats import OPTIONS_MIXED, UNANSWERED_KIND
from knowsum.genebench._compare import SUMMARY_NOT_PAPER
from knowsum.genebench._prompts import rotate, rotations
from knowsum.genebench._schema import Question
from tests.genebench.conftest import GB_FIX
from tests.report.test_genebench_report import _records, _result

RELEASED = GB_FIX / "released_layout.jsonl"


def _choice_rows() -> list[dict[str, Any]]:
    rows = [json.loads(x) for x in RELEASED.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["question_type"] in ("single_choice", "multiple_choice")]


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _predictions(rows: list[dict[str, Any]], *, cyclic: bool = True, verbose: bool = False) -> list[dict]:
    out = []
    for row in rows:
        q = Question.model_validate(row)
        for r in rotations(q) if cyclic else (0,):
            gold = ", ".join(rotate(q, r)[1])
            reply = f"The answer is {gold}." if verbose else gold
            out.append({"question_index": q.question_index, "permutation": r, "response": reply})
    return out


def _score(tmp: Path, name: str, preds: Path, *extra: str) -> Path:
    questions = _write(tmp / "q.jsonl", _choice_rows())
    out = tmp / name
    args = [
        "genebench",
        "score",
        "--questions",
        str(questions),
        "--predictions",
        str(preds),
        "--out",
        str(out),
    ]
    assert main([*args, *extra]) == 0
    return out


def test_run_paper_size_is_not_refused_for_the_per_type_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--per-type``'s default (2) was passed as if given, so ``--paper-size`` always failed."""
    seen: list[GenebenchConfig] = []

    def fake_run(config: GenebenchConfig, *_: Any, **__: Any) -> None:
        seen.append(config)
        raise ConfigError("reached the run")

    monkeypatch.setattr("knowsum.genebench.cli.run_genebench", fake_run)
    base = ["genebench", "run", "--build-default", "-m", "mock", "--out", str(tmp_path / "r")]
    assert main([*base, "--paper-size", "--store", str(tmp_path / "st.sqlite")]) == 2
    assert seen and seen[0].paper_size and "reached the run" in capsys.readouterr().err
    assert main([*base, "--paper-size", "--per-type", "3"]) == 2  # a --per-type given still conflicts
    assert "per_type and paper_size both set" in capsys.readouterr().err
    assert main([*base, "--per-type", "3", "--store", str(tmp_path / "st.sqlite")]) == 2
    assert seen[-1].per_type == 3 and not seen[-1].paper_size


def test_compare_names_scored_runs_and_refuses_another_reply_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _choice_rows()
    preds = _write(tmp_path / "verbose.jsonl", _predictions(rows, verbose=True))
    strict, lenient = _score(tmp_path, "s_verb", preds), _score(tmp_path, "s_verbL", preds, "--lenient")
    capsys.readouterr()
    assert main(["genebench", "compare", str(strict), str(lenient)]) == 2
    err = capsys.readouterr().err
    assert f"{strict} and {lenient} are not comparable (reply rule strict vs lenient)" in err
    assert main(["genebench", "compare", str(strict), str(lenient), "--allow-mixed"]) == 0
    text = capsys.readouterr().out
    first = f"predictions verbose.jsonl ({lenient}) [differs: reply rule strict vs lenient]"
    assert first in text and f"predictions verbose.jsonl ({strict}) " in text
    assert text.index(first) < text.index(f"predictions verbose.jsonl ({strict})")  # by overall
    assert main(["genebench", "compare", str(strict), str(lenient), "--allow-mixed", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert [r["name"] for r in runs] == [f"predictions verbose.jsonl ({p})" for p in (lenient, strict)]
    assert [r["reply_rule"] for r in runs] == ["lenient", "strict"]
    assert runs[0]["caveats"][0]["mark"] == "differs: reply rule strict vs lenient"


def test_compare_refuses_another_rotation_mode_and_marks_it_beside_the_paper(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _choice_rows()
    cyclic = _score(tmp_path, "cyc", _write(tmp_path / "all.jsonl", _predictions(rows)))
    given = _score(tmp_path, "given", _write(tmp_path / "first.jsonl", _predictions(rows, cyclic=False)))
    capsys.readouterr()
    assert main(["genebench", "compare", str(cyclic), str(given)]) == 2
    assert "(rotations cyclic vs none)" in capsys.readouterr().err
    assert main(["genebench", "compare", str(given), "--published", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "not measured as the paper — predictions first.jsonl: rotations none vs cyclic" in out
    assert "options in the given order: one value, no std" in out
    assert main(["genebench", "compare", str(cyclic), "--published", "--markdown"]) == 0
    assert "not measured as the paper" not in capsys.readouterr().out
    assert main(["genebench", "compare", str(given), "--published", "--json"]) == 0
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert run["rotations"] == "none" and run["not_as_paper"] == ["rotations none vs cyclic"]


def test_unanswered_instances_are_a_caveat_on_every_surface(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _choice_rows()
    preds = _predictions(rows)
    out = _score(tmp_path, "miss", _write(tmp_path / "miss.jsonl", preds[:10]), "--allow-missing")
    summary = capsys.readouterr().out
    n = len(preds) - 10
    record = load_result(out)
    (caveat,) = [c for c in record.caveats if c.kind == UNANSWERED_KIND]
    assert caveat.mark == f"{n} unanswered" and f"{n} of {len(preds)} instances" in caveat.message
    surfaces = {"summary": summary, "page": (out / "report.html").read_text(encoding="utf-8")}
    for name, extra in (("json", ["--json"]),):
        assert main(["genebench", "score", "--questions", str(tmp_path / "q.jsonl"), "--predictions",
                     str(tmp_path / "miss.jsonl"), "--out", str(tmp_path / "miss2"), "--allow-missing",
                     *extra]) == 0  # fmt: skip
        surfaces[name] = capsys.readouterr().out
    for name, extra in (("compare", []), ("compare md", ["--markdown"]), ("compare json", ["--json"])):
        assert main(["genebench", "compare", str(out), *extra]) == 0
        surfaces[name] = capsys.readouterr().out
    for name, text in surfaces.items():
        assert f"{n} unanswered" in text, name
    full = _score(tmp_path, "full", _write(tmp_path / "full.jsonl", preds))
    assert not [c for c in load_result(full).caveats if c.kind == UNANSWERED_KIND]


def test_the_summary_score_is_marked_beside_the_paper() -> None:
    """knowsum's MiniLM/SmolLM2 summary score is no Table 2 value: said where the paper's rows stand."""
    result = _result(_records(), model="m")
    assert result.scores.knowledge.get("summary") is not None
    title = compare_tables([result], published=True)[0][0]
    assert f"m: {SUMMARY_NOT_PAPER}" in title
    assert "not measured as the paper" not in compare_tables([result])[0][0]
    rows = {m.key: m for m in INSTRUMENT.measures(result, "r")}
    for key in ("genebench/overall", "genebench/knowledge/summary"):
        assert SUMMARY_NOT_PAPER in rows[key].notes, key
    assert SUMMARY_NOT_PAPER not in rows["genebench/knowledge/full name"].notes


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"flag": "no_ref"}, "flag no_ref is not valid for a Q1 question (loc or non-loc)"),
        ({"knowledge": "summary"}, "knowledge 'summary' is not asked as single_choice"),
        ({"task": "Q4"}, "task 'Q4' does not match a single_choice full name question (Q1)"),
    ],
)
def test_a_question_whose_fields_do_not_fit_is_refused_where_it_is_read(
    change: dict[str, str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Such a question was counted, then left out of every cell ("not asked"). Every reader of question
    files validates it the same way: ``score``, ``run QUESTIONS`` and a profile's plan."""
    rows = _choice_rows()
    q1 = next(i for i, r in enumerate(rows) if r["knowledge"] == "full name")
    rows[q1] = {**rows[q1], **change}
    qfile = _write(tmp_path / "bad.jsonl", rows)
    preds = _write(tmp_path / "p.jsonl", _predictions(_choice_rows()))
    assert main(["genebench", "score", "--questions", str(qfile), "--predictions", str(preds)]) == 2
    assert f"{qfile}:{q1 + 1}: invalid question: {message}" in capsys.readouterr().err
    out = str(tmp_path / "r")
    store = str(tmp_path / "st.sqlite")
    assert main(["genebench", "run", str(qfile), "-m", "mock", "--out", out, "--store", store]) == 2
    assert f"{qfile}:{q1 + 1}: invalid question: {message}" in capsys.readouterr().err
    with pytest.raises(InputFileError, match=re.escape(message)):
        INSTRUMENT.requests(GenebenchConfig(questions=qfile), {})  # type: ignore[arg-type]


def test_a_cell_of_mixed_option_counts_is_a_mean_per_question(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 2-option and a 4-option question in one cell: per rotation index 25.00 ± 25.00; per question
    (each over its own rotations) 50 %. The released questions all have 4 options (checked here)."""
    rows = _choice_rows()
    assert {len(r["options"]) for r in rows} == {4}
    two = {**rows[6], "options": {"A": "15;15q11.2-q12", "B": "No right answer"}, "answer": "B"}
    four = rows[7]
    assert (two["knowledge"], two["perspective"]) == (four["knowledge"], four["perspective"])
    qfile = _write(tmp_path / "opt_q.jsonl", [two, four])
    replies = [("B", 0), ("A", 1), ("B", 0), ("A", 1), ("A", 2), ("A", 3)]
    preds = [
        {"question_index": (two if i < 2 else four)["question_index"], "permutation": r, "response": x}
        for i, (x, r) in enumerate(replies)
    ]
    pfile = _write(tmp_path / "opt_p.jsonl", preds)
    out = tmp_path / "s_opt"
    args = ["genebench", "score", "--questions", str(qfile), "--predictions", str(pfile), "--out", str(out)]
    assert main(args) == 0
    record = load_result(out)
    (cell,) = [c for c in record.scores.cells if c.in_overall]
    assert cell.mean == pytest.approx(0.5) and cell.std is None and cell.n_instances == 6
    (caveat,) = [c for c in record.caveats if c.kind == OPTIONS_MIXED]
    assert caveat.figure == "knowledge/chromosome" and cell.key in caveat.mark
    assert caveat.mark in capsys.readouterr().out
