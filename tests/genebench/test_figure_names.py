"""Every log of ``knowsum/genebench`` has the same metric names, whatever was asked: a knowledge type
or cell not asked is a figure without a value (a log's ``NaN``), not a missing metric (docs/inspect.md).
Was: a question set without an expression question had no ``expression`` and no ``Q6`` metric."""

from __future__ import annotations

import json
from pathlib import Path

from knowsum.genebench import score_predictions, write_questions
from knowsum.instrument import get_instrument
from tests.genebench._mixture import QUESTIONS, write_predictions


def _figures(tmp_path: Path, name: str, drop_task: str | None) -> dict[str, float | None]:
    questions = [q for q in QUESTIONS if q.task != drop_task]
    write_questions(tmp_path / f"{name}.jsonl", questions)
    kept = {q.question_index for q in questions}
    preds = write_predictions(tmp_path / f"{name}-all.preds.jsonl").read_text().splitlines()
    path = tmp_path / f"{name}.preds.jsonl"
    path.write_text("".join(p + "\n" for p in preds if json.loads(p)["question_index"] in kept))
    run = score_predictions(tmp_path / f"{name}.jsonl", path, out=tmp_path / name, n_perm=100)
    return {m.key: m.value for m in get_instrument("genebench").figures(run.record)}


def test_a_question_set_without_a_type_has_the_same_figure_names(tmp_path: Path) -> None:
    whole = _figures(tmp_path, "whole", None)
    without = _figures(tmp_path, "without", "Q6")
    assert list(without) == list(whole)
    q6 = [k for k in whole if k.endswith("Q6") or k.endswith("expression")]
    assert q6 and all(whole[k] is not None for k in q6) and all(without[k] is None for k in q6)
