"""Usage accounting: every instrument run records requests, tokens and time (from the store on reruns)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from knowsum.census import CensusConfig, run_census
from knowsum.models import GenerationParams as P
from knowsum.models import MockBackend, ResponseStore, UsageMeter, make_requests, sample_sync, usage_of
from knowsum.records import Usage, load_record
from knowsum.records.census import CensusResult


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
    rs = [backend.response(r, "a", "stop", prompt_tokens=5, completion_tokens=7, latency=0.5) for r in req]
    u = usage_of(rs, asked=1, wall_seconds=2.0)
    assert u == Usage(
        requests=2, asked=1, prompt_tokens=10, completion_tokens=14, response_seconds=1.0, wall_seconds=2.0
    )
    assert u.tokens_per_second == pytest.approx(14.0)
    assert (u + u).completion_tokens == 28


@pytest.mark.realdata
def test_census_run_records_usage_and_rerun_reads_it_from_the_store(tmp_path: Path) -> None:
    backend = MockBackend(["Asthma\nInfluenza\nMeasles"])
    cfg = CensusConfig(task="diseases", queries=3, n_bootstrap=0)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        run = run_census(cfg, backend, store=store, out=tmp_path / "a")
        rerun = run_census(
            cfg.model_copy(update={"criterion": "strict"}), backend, store=store, out=tmp_path / "b"
        )
    assert run.result.usage is not None and rerun.result.usage is not None
    assert (run.result.usage.requests, run.result.usage.asked) == (3, 3)
    assert (rerun.result.usage.requests, rerun.result.usage.asked) == (3, 0)
    assert rerun.result.usage.completion_tokens == run.result.usage.completion_tokens == 9
    assert load_record(tmp_path / "b", CensusResult).usage == rerun.result.usage


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
    assert load_record(run.out_dir, CensusResult).usage is None
