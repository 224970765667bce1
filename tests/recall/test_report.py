"""The recall report.html in real headless Chromium: loads cleanly, shows the numbers and the three
plots (paper Figs. 2–4), and shows a ``<script>`` written by the model as text without running it."""

from __future__ import annotations

from pathlib import Path

from knowsum.models import MockBackend, Request
from knowsum.recall import RecallConfig, run_recall
from tests.recall.test_run_mock import responder

EVIL = "<script>window.__pwned = 1; console.error('pwned')</script><img src=x onerror=\"window.__pwned = 2\">"


def _answer(r: Request) -> str:
    text = responder(r)
    return EVIL + " " + text if "kidney development" in str(r.prompt) else text


def test_recall_report_in_headless_chromium(mini_go: Path, tmp_path: Path, browser_bin: str) -> None:
    from tests.report._cdp import inspect_report

    cfg = RecallConfig(
        kb="go",
        popularity=str(mini_go / "mini_go_popularity.csv"),
        n_buckets=3,
        n_perm=200,
        invariance=("pi2", "pi3"),
    )
    out = tmp_path / "run"
    run = run_recall(
        cfg, MockBackend(_answer, model_id="mock-<b>bold</b>"), store=None, out=out, progress=False
    )
    result = run.record
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;" in html
    page, errors = inspect_report(browser_bin, out / "report.html", "recall-report.png")
    assert errors == []
    assert page["pwned"] is None and page["scripts"] == 0
    assert "<script>window.__pwned = 1;" in page["text"]
    assert "mock-<b>bold</b>" in page["text"]
    assert page["tiles"]["accuracy"] == "0.3"
    # the mixture of test_run_mock: 10 distinct answers under the paper's rules, 4 of them invented
    assert page["tiles"]["unique answers (paper rules)"] == "10"
    assert page["tiles"]["% invented (paper rules)"] == "40"
    assert "paper rules: an answer exists only if it is one of the study's concept IDs" in page["text"]
    assert {name for name, done, width in page["plots"] if done and width > 100} == {
        "accuracy",
        "rb",
        "invariance",
    }
    assert result.scores.accuracy == 0.3
