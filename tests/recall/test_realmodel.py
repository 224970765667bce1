"""A small real run: smollm2-135m-instruct on a stratified GO sample writes every artifact.

The test model is tiny and weak: this asserts the pipeline completes, not answer quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.kb import installed
from knowsum.models import is_installed, model_spec, open_backend
from knowsum.recall import RecallConfig, load_predictions, run_recall

pytestmark = [pytest.mark.realmodel, pytest.mark.realdata, pytest.mark.slow]


def test_smollm2_stratified_go_sample(tmp_path: Path) -> None:
    if not is_installed(model_spec("smollm2-135m-instruct")) or installed("go") is None:
        pytest.fail("needs `knowsum models install smollm2-135m-instruct` and `knowsum kb install go`")
    cfg = RecallConfig(
        kb="go",
        select="stratified",
        per_bucket=1,
        n_buckets=2,
        popularity="web",
        max_tokens=8,
        n_perm=500,
        invariance=("pi1",),
        pi1_repeats=2,
    )
    backend = open_backend("smollm2-135m-instruct")
    out = tmp_path / "run"
    run = run_recall(cfg, backend, store=None, out=out, progress=False)
    result, records = run.record, load_predictions(out)
    assert result.scores.n == len(records) == 2
    assert {r.bucket for r in records} == {1, 2}
    assert all(r.prompt.startswith("Provide the GO ID for the label") for r in records)
    assert result.scores.popularity is not None and result.invariance[0].m == 2
    names = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {
        "result.json",
        "predictions.jsonl",
        "report.html",
        "plots/accuracy_per_bucket.png",
        "plots/rb_per_bucket.png",
        "plots/invariance_per_bucket.png",
    } <= names
    assert json.loads((out / "result.json").read_text())["model"] == "smollm2-135m-instruct"
