"""The ``smoke`` profile of the embedded test model, end to end through the command line, and its
page in headless Chromium (slow: a few minutes on 2 CPU cores)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from knowsum.cli import main
from knowsum.models import ResponseStore

pytestmark = [pytest.mark.slow, pytest.mark.realmodel, pytest.mark.realdata]

MODEL = "smollm2-135m-instruct"


def test_smoke_profile_of_smollm2(
    tmp_path: Path, browser_bin: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from matplotlib.image import imread

    from tests.report._cdp import ARTIFACTS, inspect_report

    store, out = tmp_path / "s.sqlite", tmp_path / "out"
    assert main(["profile", "plan", "-m", MODEL, "--budget", "smoke", "--store", str(store), "--json"]) == 0
    planned = json.loads(capsys.readouterr().out)
    assert planned["stored"] == 0 and "chat template" in planned["tokens_source"]
    args = ["profile", "run", "-m", MODEL, "--budget", "smoke", "--store", str(store), "--out", str(out)]
    assert main(args) == 0
    data = json.loads((out / "profile.json").read_text())
    assert {"census", "recall", "genebench"} <= set(data["instruments"]) and data["model"] == MODEL
    assert data["usage"]["asked"] == data["plan"]["requests"] > 0
    assert data["usage"]["completion_tokens"] > 0  # counted by llama.cpp
    assert data["usage"]["prompt_tokens"] == planned["prompt_tokens"]  # the plan counted as llama.cpp does
    assert data["usage"]["completion_tokens"] <= planned["completion_tokens"]  # the upper bound holds
    with ResponseStore(store, read_only=True) as s:
        rows = s.count()
    capsys.readouterr()

    assert main(args) == 0  # a rerun asks nothing and rewrites the page
    again = json.loads((out / "profile.json").read_text())
    assert again["usage"]["asked"] == 0
    with ResponseStore(store, read_only=True) as s:
        assert s.count() == rows

    page, errors = inspect_report(browser_bin, out / "index.html", "profile-smollm2.png")
    assert errors == [] and page["scripts"] == 0
    assert page["title"] == f"How much does {MODEL} know?"
    for ref in ("LLaMA-V3-70B-instruct · KnowSum Table 1", "GPT-4 · Bombieri et al. Table 1"):
        assert ref in page["text"]
    assert all(done and width > 100 for _, done, width in page["plots"])
    shot = imread(ARTIFACTS / "profile-smollm2.png")
    assert shot.shape[0] > 500 and float(np.std(shot[..., :3])) > 0.05  # not a blank page
