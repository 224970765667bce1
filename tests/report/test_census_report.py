"""The census report.html in real headless Chromium: loads cleanly, shows the numbers and plots,
and shows a ``<script>`` written by the model as text without running it."""

from __future__ import annotations

import re
from pathlib import Path

from knowsum.census import CensusConfig, add_sensitivity, run_census
from knowsum.models import MockBackend, Request, ResponseStore
from tests.report._cdp import ARTIFACTS, Browser, inspect_report

EVIL = "<script>window.__pwned = 1; console.error('pwned')</script><img src=x onerror=\"window.__pwned = 2\">"


def _answer(r: Request) -> str:
    pool = [
        "Pythagorean theorem",
        "Binomial theorem",
        "Schwenk's theorem",
        "Balinski's theorem",
        "Arrow's impossibility theorem",
        "Pythagorean theorem",
    ]
    picks = [pool[(r.sample_index * 7 + j * 3) % len(pool)] for j in range(3 + r.sample_index % 3)]
    if r.sample_index == 0:
        picks.append(EVIL)
    return ", ".join(picks)


def test_report_in_headless_chromium(kb_home_theorems: Path, tmp_path: Path, browser_bin: str) -> None:
    cfg = CensusConfig(task="theorems", queries=40, n_bootstrap=100)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        outcome = run_census(
            cfg, MockBackend(_answer, model_id="mock-<b>bold</b>"), store=store, out=tmp_path / "run"
        )
    result = outcome.record
    html = outcome.report.read_text(encoding="utf-8")
    assert "<script" not in html and "&lt;script&gt;" in html
    assert re.search(r"<img [^>]*src=x", html) is None

    page, errors = inspect_report(browser_bin, outcome.report, "census-report.png")
    assert errors == []
    assert page["pwned"] is None and page["scripts"] == 0
    assert "<script>window.__pwned = 1;" in page["text"]  # shown as text
    assert "mock-<b>bold</b>" in page["text"]  # the model id is text too
    assert page["title"] == "Census: theorems"
    assert page["tiles"]["N_seen"] == str(result.n_seen) == "5"
    assert page["tiles"]["SKR"] == f"{result.skr:,.4g}"
    assert {name for name, done, width in page["plots"] if done and width > 100} == {
        "prevalence",
        "curve",
        "heldout",
        "top_items",
    }
    assert (ARTIFACTS / "census-report.png").read_bytes().startswith(b"\x89PNG")

    # issue 10: the interval method is named, and `census sensitivity` adds its section and plots
    assert "interval (lognormal)" in page["text"] and "observations n (mention)" in page["text"]
    add_sensitivity(outcome.out_dir, t_grid=(1, 10, 100), k_grid=(2, 4, 6, 8), n_resamples=50)
    page, errors = inspect_report(browser_bin, outcome.report, "census-report-sensitivity.png")
    assert errors == [] and page["scripts"] == 0
    assert "Sensitivity to t and k (KnowSum §5.2)" in page["text"]
    assert {name for name, done, width in page["plots"] if done and width > 100} >= {
        "sensitivity_t",
        "sensitivity_k",
    }


def test_console_errors_are_caught(tmp_path: Path, browser_bin: str) -> None:
    """Control: the harness does see console errors and script effects when there are some."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<html><body><script>window.__pwned = 1; console.error('boom'); undefinedFn();</script></body></html>"
    )
    with Browser(browser_bin) as b:
        b.open(page)
        assert b.evaluate("window.__pwned") == 1
        errors = b.errors()
    assert any("boom" in e for e in errors) and any("undefinedFn" in e for e in errors)
