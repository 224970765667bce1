"""Usage accounting: every instrument run records requests, tokens and time (from the store on reruns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.census import CensusConfig, run_census
from knowsum.census.record import CensusRecord
from knowsum.models import GenerationParams as P
from knowsum.models import (
    MockBackend,
    ResponseStore,
    UsageMeter,
    make_requests,
    sample_sync,
    union_seconds,
    usage_of,
)
from knowsum.records import Usage, load_record


def test_meter_counts_fresh_and_stored(tmp_path: Path) -> None:
    backend = MockBackend(["one two three"])  # the mock counts 3 completion tokens per answer
    reqs = make_requests(["List things."], P(max_tokens=8), n=4)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        meter = UsageMeter(backend, store)
        sample_sync(meter.backend, reqs[:2], store=store)
        first = meter.usage()
        assert (first.requests, first.asked, first.completion_tokens) == (2, 2, 6)
        again = UsageMeter(backend, store)
        sample_sync(again.backend, reqs, store=store)  # two stored, two new
        u = again.usage()
        assert (u.requests, u.asked, u.completion_tokens, u.failed) == (4, 2, 12, 0)
    assert len(backend.calls) == 4  # nothing asked twice through the meter


def test_usage_of_sums_latency_and_tokens() -> None:
    backend = MockBackend()
    req = make_requests(["x"], P(), n=2)
    rs = [
        backend.response(r, "a", "stop", prompt_tokens=5, completion_tokens=7, latency=0.5, created=100.0 + i)
        for i, r in enumerate(req)
    ]  # spans [99.5, 100] and [100.5, 101]: 1 s of generation, apart
    u = usage_of(rs, asked=1, wall_seconds=2.0)
    assert u == Usage(
        requests=2,
        asked=1,
        prompt_tokens=10,
        completion_tokens=14,
        response_seconds=1.0,
        generation_seconds=1.0,
        wall_seconds=2.0,
    )
    assert u.tokens_per_second == pytest.approx(14.0)
    assert (u + u).completion_tokens == 28


@given(st.lists(st.tuples(st.floats(0, 1e4), st.floats(0, 1e3)), max_size=30))
def test_union_of_spans_is_between_the_longest_and_the_sum(spans: list[tuple[float, float]]) -> None:
    pairs = [(s, s + d) for s, d in spans]
    union = union_seconds(pairs)
    lengths = [d for _, d in spans if d > 0]
    assert max(lengths, default=0.0) - 1e-6 <= union <= sum(lengths) + 1e-6
    assert union == pytest.approx(union_seconds(reversed(pairs)))  # order does not matter
    if pairs:  # nested in one enclosing span: the enclosing span's length
        lo, hi = min(s for s, _ in pairs), max(e for _, e in pairs)
        assert union_seconds([*pairs, (lo, hi)]) == pytest.approx(hi - lo)


def test_batched_requests_count_their_shared_seconds_once() -> None:
    backend = MockBackend()
    req = make_requests(["x"], P(), n=4)  # four sent together at t = 10, received at 12, 13, 14, 14
    ends = [12.0, 13.0, 14.0, 14.0]
    rs = [
        backend.response(r, "a", "stop", completion_tokens=4, latency=t - 10, created=t)
        for r, t in zip(req, ends, strict=True)
    ]
    u = usage_of(rs)
    assert u.generation_seconds == pytest.approx(4.0) and u.response_seconds == pytest.approx(13.0)
    assert u.tokens_per_second == pytest.approx(16 / 4.0)  # the model's throughput, not a per-request rate


@pytest.mark.realdata
def test_census_run_records_usage_and_rerun_reads_it_from_the_store(tmp_path: Path) -> None:
    backend = MockBackend(["Asthma\nInfluenza\nMeasles"])
    cfg = CensusConfig(task="diseases", queries=3, n_bootstrap=0)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = run_census(cfg, backend, store=store, out=tmp_path / "a")
        rerun = run_census(
            cfg.model_copy(update={"criterion": "strict"}), backend, store=store, out=tmp_path / "b"
        )
    assert run.record.usage is not None and rerun.record.usage is not None
    assert (run.record.usage.requests, run.record.usage.asked) == (3, 3)
    assert (rerun.record.usage.requests, rerun.record.usage.asked) == (3, 0)
    assert rerun.record.usage.completion_tokens == run.record.usage.completion_tokens == 9
    assert load_record(tmp_path / "b", CensusRecord).usage == rerun.record.usage


@pytest.mark.realdata
def test_a_result_without_usage_still_loads(tmp_path: Path) -> None:
    backend = MockBackend(["Asthma"])
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = run_census(
            CensusConfig(task="diseases", queries=2, n_bootstrap=0), backend, store=store, out=tmp_path / "a"
        )
    file = run.out_dir / "result.json"
    data = json.loads(file.read_text())
    del data["usage"]
    file.write_text(json.dumps(data))
    assert load_record(run.out_dir, CensusRecord).usage is None
