"""Plan arithmetic and the comparison's rank change, on hand-made records (no KB, no model)."""

from __future__ import annotations

import pytest

from knowsum.models import GenerationParams, MockBackend, Response, make_requests
from knowsum.profile import load_budget, plan_steps, wilson
from knowsum.profile._plan import _rates
from knowsum.records.profile import InstrumentProfile, Measure, PlanSummary, ProfileResult, PublishedPoint
from knowsum.report.profile import compare_table


def _responses(arrivals: list[float], tokens: int, latency: float) -> list[Response]:
    backend = MockBackend()
    reqs = make_requests(["x"], GenerationParams(max_tokens=100), n=len(arrivals))
    return [
        backend.response(r, "t", "stop", completion_tokens=tokens, latency=latency, created=t)
        for r, t in zip(reqs, arrivals, strict=True)
    ]


def test_time_per_token_comes_from_arrivals_not_overlapping_latencies() -> None:
    # four responses decoded together arrive 10 s apart, each reporting the batch's 40 s latency;
    # a fifth comes an hour later (another session): that gap is idle, not work
    rs = _responses([100.0, 110.0, 120.0, 130.0, 3730.0], tokens=50, latency=40.0)
    rates = _rates(rs)
    busy = 30.0 + 40.0  # three 10 s gaps + the first response's own latency
    assert rates.seconds_per_token == pytest.approx(busy / 250)
    assert rates.fraction == pytest.approx(0.5) and rates.n == 5


def test_wilson_interval_matches_the_formula() -> None:
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)  # 95 % Wilson upper bound for 0/10
    lo, hi = wilson(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson(0, 0) == (None, None)


def test_icd10_without_popularity_falls_back_to_a_sample_of_the_same_size() -> None:
    steps = {s.name: s for s in plan_steps(load_budget("quick"))}
    assert steps["recall-go"].config.select == "stratified"  # type: ignore[union-attr]
    icd = steps["recall-icd10"].config
    assert icd.select == "sample" and icd.sample == 2 * 50  # type: ignore[union-attr]
    paper = {s.name for s in plan_steps(load_budget("paper"))}
    assert {"recall-go-invariance", "recall-icd10-invariance", "genebench-paper"} <= paper
    assert {f"census-{t}-{c}" for t in ("diseases", "theorems") for c in ("relaxed", "strict")} <= paper


def _profile(model: str, seen: float, total: float) -> ProfileResult:
    pub = [PublishedPoint(label="P · KnowSum Table 1", model="P", value=v) for v in (1.0,)]
    measures = [
        Measure(key="census/diseases/relaxed/n_seen", instrument="census", label="N_seen", value=seen,
                method="m", run="r", published=pub),
        Measure(key="census/diseases/relaxed/n_total", instrument="census", label="N_tot", value=total,
                method="m", run="r", published=pub),
    ]  # fmt: skip
    plan = PlanSummary(budget="b", requests=0, stored=0, prompt_tokens=0, completion_tokens=0,
                       completion_tokens_expected=None, seconds_expected=None, cost_usd=None,
                       cost_expected_usd=None, tokens_source="", time_source="", instruments={})  # fmt: skip
    return ProfileResult(model=model, budget="b", plan=plan, census=InstrumentProfile(measures=measures))


def test_compare_marks_where_n_seen_and_n_total_rank_differently() -> None:
    a, b = _profile("a", seen=100, total=150), _profile("b", seen=80, total=400)
    headers, rows = compare_table([a, b])
    assert headers[-1] == "rank N_seen → N̂_tot"
    total = next(r for r in rows if r[0] == "N_tot")
    assert total[-1] == "a (b): 1 → 2; b (b): 2 → 1"
    seen = next(r for r in rows if r[0] == "N_seen")
    assert seen[-1] == "="
