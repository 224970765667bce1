"""Plan arithmetic, budget files and the comparison's rank change, on hand-made records (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.errors import ConfigError
from knowsum.models import GenerationParams, MockBackend, Response, make_requests
from knowsum.profile import load_budget, plan_steps, step_requests, wilson
from knowsum.profile._plan import _rates
from knowsum.records import PublishedRow
from knowsum.records.profile import PROFILE_VERSION, InstrumentProfile, Measure, ProfileRecord
from knowsum.report.profile import compare_table
from tests._profiles import empty_plan


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


def _plan_with_files(folder: Path, files: str) -> Path:
    plans = folder / "plans"
    plans.mkdir(exist_ok=True)
    path = plans / "mine.toml"
    path.write_text(f"[genebench]\nper_type = 1\n{files}", encoding="utf-8")
    return path


def test_a_plans_genebench_user_files_are_read_relative_to_it_and_asked(tmp_path: Path) -> None:
    (tmp_path / "plans" / "data").mkdir(parents=True)
    (tmp_path / "plans" / "data" / "expr.tsv").write_text(
        "AADAC\tBiased expression\tliver|small intestine|duodenum\n", encoding="utf-8"
    )
    with_files = plan_steps(load_budget(plan=_plan_with_files(tmp_path, 'expression = "data/expr.tsv"\n')))
    cfg = with_files[0].config
    assert cfg.expression == tmp_path / "plans" / "data" / "expr.tsv"  # type: ignore[union-attr]
    asked = [text for r in step_requests(with_files[0]) for _, text in r.messages or ()]
    bare = plan_steps(load_budget(plan=_plan_with_files(tmp_path, "")))
    assert any("expression pattern of AADAC" in text for text in asked)  # Q6 is built from the file
    assert len(step_requests(with_files[0])) == len(step_requests(bare[0])) + 1  # one Q6 question


def test_a_plans_missing_user_file_is_refused_naming_the_key(tmp_path: Path) -> None:
    path = _plan_with_files(tmp_path, 'summaries = "nope.tsv"\n')
    with pytest.raises(ConfigError) as err:
        load_budget(plan=path)
    message = str(err.value)
    assert str(path) in message and "[genebench] summaries = 'nope.tsv': no such file" in message
    assert "relative to the plan file" in message and "\n" not in message


def _profile(model: str, seen: float, total: float) -> ProfileRecord:
    pub = [PublishedRow("P", "KnowSum", "Table 1", "m", v) for v in (1.0,)]
    measures = [
        Measure(
            key="census/diseases/relaxed/n_seen",
            instrument="census",
            label="N_seen",
            value=seen,
            method="m",
            run="r",
            published=pub,
        ),
        Measure(
            key="census/diseases/relaxed/n_total",
            instrument="census",
            label="N_tot",
            value=total,
            method="m",
            run="r",
            published=pub,
        ),
    ]
    plan = empty_plan()
    return ProfileRecord(
        model=model, budget="b", plan=plan, instruments={"census": InstrumentProfile(measures=measures)}
    )


def test_compare_marks_where_n_seen_and_n_total_rank_differently() -> None:
    a, b = _profile("a", seen=100, total=150), _profile("b", seen=80, total=400)
    headers, rows = compare_table([a, b])
    assert headers[-1] == "rank N_seen → N̂_tot"
    total = next(r for r in rows if r[0] == "N_tot")
    assert total[-1] == "a (b): 1 → 2; b (b): 2 → 1"
    seen = next(r for r in rows if r[0] == "N_seen")
    assert seen[-1] == "="


def test_compare_opens_each_instrument_and_ranks_only_the_census() -> None:
    a, b = _profile("a", seen=100, total=150), _profile("b", seen=80, total=400)
    acc = Measure(
        key="recall/go/accuracy",
        instrument="recall",
        label="go accuracy",
        value=0.1,
        percent=True,
        method="m",
        run="r",
    )
    b = b.model_copy(update={"instruments": {**b.instruments, "recall": InstrumentProfile(measures=[acc])}})
    _, rows = compare_table([a, b])
    assert [r[0] for r in rows] == ["census:", "N_seen", "N_tot", "recall:", "go accuracy"]
    go = rows[-1]
    assert go[1:] == ["", "10.0%", ""]  # a has no recall; no rank change column for a non-census row


def test_a_version_1_profile_still_loads_with_its_parts_under_instruments(tmp_path: Path) -> None:
    from knowsum.profile import load_profile

    v2 = _profile("a", seen=100, total=150).model_dump(mode="json")
    v1 = {k: v for k, v in v2.items() if k != "instruments"}
    v1 |= {
        "version": 1,
        "census": {"runs": {"census-x": "census-x"}, "measures": v2["instruments"]["census"]["measures"]},
    }
    (tmp_path / "profile.json").write_text(json.dumps(v1), encoding="utf-8")
    r = load_profile(tmp_path)
    assert r.version == PROFILE_VERSION and list(r.instruments) == ["census"]
    assert r.instruments["census"].title == "Census — how many items would it name? (KnowSum)"
    assert r.instruments["census"].runs == {"census-x": "census-x"}
    assert [m.key for m in r.measures()] == [m.key for m in _profile("a", 100, 150).measures()]
