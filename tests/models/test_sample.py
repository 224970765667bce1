"""sample(): skipping stored keys, writing as responses arrive, errors, progress."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from knowsum.errors import BackendError
from knowsum.models import (
    Backend,
    GenerationParams,
    MockBackend,
    Request,
    Response,
    ResponseStore,
    make_requests,
    plan,
    sample,
    sample_sync,
)

PARAMS = GenerationParams(seed=11)


def test_sample_without_store_answers_every_request_in_order() -> None:
    mock = MockBackend(batch_size=3)
    reqs = make_requests(["a", "b"], PARAMS, n=4)
    got = sample_sync(mock, reqs, progress=False)
    assert [r.text for r in got] == [f"{p} #{i}" for p in "ab" for i in range(4)]
    assert len(mock.calls) == 8


def test_stored_keys_are_skipped_and_yielded_from_the_store(tmp_path: Path) -> None:
    reqs = make_requests(["a"], PARAMS, n=10)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        first = MockBackend()
        sample_sync(first, reqs[:6], store=store)
        second = MockBackend()
        got = sample_sync(second, reqs, store=store)
        assert [r.sample_index for r in second.calls] == [6, 7, 8, 9]
        assert [r.text for r in got] == [f"a #{i}" for i in range(10)]
        assert store.count() == 10
        # nothing left: nothing asked
        third = MockBackend()
        assert len(sample_sync(third, reqs, store=store, include_stored=False)) == 0
        assert third.calls == []


def test_duplicate_requests_are_asked_once() -> None:
    mock = MockBackend()
    req = Request(prompt="x", params=PARAMS)
    assert len(sample_sync(mock, [req, req, req.with_index(0)])) == 1
    assert len(mock.calls) == 1


def test_each_response_is_written_before_the_next_batch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("knowsum.models._sample._COMMIT_INTERVAL", 0.0)  # slow arrivals: one commit each
    seen_counts: list[int] = []
    with ResponseStore(tmp_path / "s.sqlite") as store:

        def spy(r: Request) -> str:
            seen_counts.append(store.count())
            return "ok"

        sample_sync(
            MockBackend(spy, batch_size=1, delay=0.001), make_requests(["q"], PARAMS, n=5), store=store
        )
    assert seen_counts == [0, 1, 2, 3, 4]


class _Flaky(Backend):
    """Fails a request on its first attempt and answers it afterwards."""

    kind = "flaky"
    model_id = "f"
    endpoint = "f"

    def __init__(self) -> None:
        super().__init__()
        self.attempts: dict[int, int] = {}

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        out = []
        for r in requests:
            n = self.attempts[r.sample_index] = self.attempts.get(r.sample_index, 0) + 1
            out.append(self.failure(r, "HTTP 500") if n == 1 else self.response(r, "fine", "stop"))
        return out


def test_errors_are_stored_and_retried_by_the_next_run(tmp_path: Path) -> None:
    backend = _Flaky()
    reqs = make_requests(["q"], PARAMS, n=3)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        first = sample_sync(backend, reqs, store=store)
        assert [r.error for r in first] == ["HTTP 500"] * 3
        assert store.info().errors == 3
        second = sample_sync(backend, reqs, store=store)
        assert [r.text for r in second] == ["fine"] * 3
        assert (store.count(), store.info().errors) == (3, 0)


class _Broken(Backend):
    kind = "broken"

    async def generate(self, requests: Sequence[Request]) -> list[Response]:
        return []


def test_a_backend_returning_the_wrong_count_is_an_error() -> None:
    with pytest.raises(BackendError, match="returned 0 for 1"):
        sample_sync(_Broken(), make_requests(["q"], PARAMS))


def test_progress_bar_counts_stored_and_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reqs = make_requests(["a"], PARAMS, n=4)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        sample_sync(MockBackend(), reqs[:2], store=store)
        sample_sync(MockBackend(), reqs, store=store, progress=True, description="census")
    err = capsys.readouterr().err
    assert "census" in err and "4/4" in err


def test_plan_reports_pending_in_input_order(tmp_path: Path) -> None:
    mock = MockBackend()
    reqs = make_requests(["a", "b"], PARAMS, n=3)
    with ResponseStore(tmp_path / "s.sqlite") as store:
        sample_sync(mock, reqs[1:4], store=store)
        p = plan(mock, reqs, store)
        assert p.pending == [reqs[0], reqs[4], reqs[5]]


def test_consumer_may_stop_early() -> None:
    async def first_only() -> Response:
        gen = sample(MockBackend(batch_size=1), make_requests(["a"], PARAMS, n=50))
        async for r in gen:
            await gen.aclose()
            return r
        raise AssertionError

    assert asyncio.run(first_only()).text.startswith("a #")


def test_seeded_mock_is_reproducible() -> None:
    reqs = make_requests(["a"], PARAMS, n=20)
    choices = [str(i) for i in range(100)]
    one = [r.text for r in sample_sync(MockBackend(seeded_choice=choices), reqs)]
    two = [r.text for r in sample_sync(MockBackend(seeded_choice=choices), reqs)]
    assert one == two and len(set(one)) > 5


def test_fast_arrivals_share_transactions(tmp_path: Path) -> None:
    """Responses arriving faster than the commit interval are committed together, never lost."""
    statements: list[str] = []
    with ResponseStore(tmp_path / "s.sqlite") as store:
        store._conn.set_trace_callback(statements.append)
        got = sample_sync(MockBackend(batch_size=1), make_requests(["q"], PARAMS, n=200), store=store)
        assert len(got) == store.count() == 200
    commits = sum(s.strip().upper().startswith("COMMIT") for s in statements)
    assert 1 <= commits < 200
