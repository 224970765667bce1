"""A small real run: SmolLM2-135M on a built set through the CLI writes every artifact.

The test model is tiny and weak: this asserts the pipeline completes on real data, not answer quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.genebench import load_result, read_questions
from knowsum.kb import installed
from knowsum.models import is_installed, model_spec

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]


def test_smollm2_run_writes_every_artifact(tmp_path: Path) -> None:
    if not is_installed(model_spec("smollm2-135m-instruct")) or installed("genes") is None:
        pytest.fail("needs `knowsum models install smollm2-135m-instruct` and `knowsum kb install genes go`")
    out = tmp_path / "run"
    store = str(tmp_path / "s.sqlite")
    args = ["genebench", "run", "--build-default", "--types", "Q1,Q2-A,Q3-B,Q4,Q5", "--per-type", "1",
            "-m", "smollm2-135m-instruct", "--store", store, "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    result = load_result(out)
    questions = read_questions(out / "questions.jsonl")
    assert result.n_questions == len(questions) >= 8
    assert result.n_instances == sum(len(q.options or {}) or 1 for q in questions)
    lines = (out / "predictions.jsonl").read_text().splitlines()
    assert len(lines) == result.n_instances
    assert {json.loads(x)["permutation"] for x in lines} == {0, 1, 2, 3}
    assert result.scores.overall is not None and 0.0 <= result.scores.overall <= 1.0
    assert {"full name", "synonyms", "chromosome", "gene_type"} <= set(result.scores.types_asked)
    assert (out / "report.html").stat().st_size > 10_000
    assert list(out.glob("*.png"))
    # a rerun is served from the store and gives the same numbers
    assert main([*args[:-2], "--out", str(tmp_path / "again")]) == 0
    assert load_result(tmp_path / "again").scores == result.scores
