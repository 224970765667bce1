"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1 with injected faults."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from knowsum.errors import BackendError, ConfigError, EndpointUnreachableError
from knowsum.models import GenerationParams, ResponseStore, make_requests, open_backend, sample_sync
from knowsum.models._openai import OpenAIBackend, _retry_after
from knowsum.models.testing import FAULT_KINDS, LoopbackServer

PARAMS = GenerationParams(seed=5, max_tokens=16, top_k=40, min_p=0.05, stop=("\n",))


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer() as srv:
        yield srv


def _backend(srv: LoopbackServer, **kw: object) -> OpenAIBackend:
    options: dict[str, object] = {"timeout": 0.3, "backoff": 0.01, "backoff_max": 0.05, "concurrency": 6}
    options.update(kw)
    return OpenAIBackend("loop-model", srv.base_url, **options)  # type: ignore[arg-type]


def test_faults_at_over_30_percent_still_store_every_sample_exactly_once(tmp_path: Path) -> None:
    reqs = make_requests([f"prompt {i}" for i in range(25)], PARAMS, n=4)
    with LoopbackServer(fault_rate=0.5, slow_seconds=0.8, retry_after="0.05", seed=3) as srv:
        backend = _backend(srv, max_retries=8)
        with ResponseStore(tmp_path / "s.sqlite") as store:
            got = sample_sync(backend, reqs, store=store)
            assert store.count() == 100 and store.info().errors == 0
            rows = store._conn.execute("SELECT key, count(*) FROM responses GROUP BY key HAVING count(*) > 1")
            assert rows.fetchall() == []
        counts = srv.counts()
    faults = sum(v for k, v in counts.items() if k != "ok")
    assert faults / sum(counts.values()) >= 0.30, counts
    assert set(FAULT_KINDS) <= set(counts), counts
    assert {r.key for r in got} == {backend.key(r) for r in reqs}
    for r in got:
        assert r.text == f"{r.request.prompt} | seed={r.request.seed} | choice=0"
        assert r.completion_tokens == 5 and r.error is None


def test_request_body_carries_explicit_sampling_parameters(server: LoopbackServer) -> None:
    sample_sync(_backend(server), make_requests(["hi"], PARAMS))
    body = server.log[0].body
    assert body["messages"] == [{"role": "user", "content": "hi"}]
    assert {
        k: body[k] for k in ("model", "temperature", "top_p", "top_k", "min_p", "max_tokens", "stop")
    } == {
        "model": "loop-model",
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 40,
        "min_p": 0.05,
        "max_tokens": 16,
        "stop": ["\n"],
    }
    assert body["seed"] == make_requests(["hi"], PARAMS)[0].seed
    assert "n" not in body


def test_openai_host_gets_no_nonstandard_fields() -> None:
    backend = OpenAIBackend("gpt", "https://api.openai.com/v1")
    body = backend.body(make_requests(["hi"], GenerationParams(seed=5, max_tokens=16)))
    assert "top_k" not in body and "min_p" not in body
    with pytest.raises(ConfigError, match="OpenAI's API has no top-k or min-p"):
        backend.body(make_requests(["hi"], PARAMS))  # top_k=40 cannot be honoured there


def test_retry_after_is_honoured(tmp_path: Path) -> None:
    with LoopbackServer(fault_rate=1.0, faults=("429",), retry_after="0.3", max_faults_per_body=1) as srv:
        got = sample_sync(_backend(srv, backoff=0.0), make_requests(["x"], PARAMS, n=3))
        assert all(r.ok for r in got)
        by_body: dict[str, list[float]] = {}
        for a in srv.log:
            by_body.setdefault(a.body_digest, []).append(a.time)
    for times in by_body.values():
        assert len(times) == 2 and times[1] - times[0] >= 0.3


def test_retry_after_parsing() -> None:
    assert _retry_after("2") == 2.0
    assert _retry_after("0.25") == 0.25
    assert _retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0  # a date in the past
    assert _retry_after("99999") == 300.0
    assert _retry_after("soon") is None and _retry_after(None) is None


def test_n_choices_per_request_map_to_sample_indexes(server: LoopbackServer) -> None:
    reqs = make_requests(["a", "b"], PARAMS, n=5)
    got = sample_sync(_backend(server, n_per_request=4), reqs)
    sizes = [b.body.get("n", 1) for b in server.log]
    assert sum(sizes) == 10 and max(sizes) == 4 and len(sizes) < 10
    assert [r.text.rsplit("=", 1)[1] for r in got[:4]] == ["0", "1", "2", "3"]
    assert len({r.key for r in got}) == 10 and all(r.ok for r in got)


def test_completions_api_sends_the_raw_prompt(server: LoopbackServer) -> None:
    got = sample_sync(_backend(server, api="completions"), make_requests(["Once upon"], PARAMS))
    assert server.log[0].body["prompt"] == "Once upon"
    assert got[0].text.startswith("Once upon | seed=")
    assert got[0].endpoint.endswith("/v1/completions")
    with pytest.raises(ConfigError, match="chat messages"):
        _backend(server, api="completions").body(make_requests([[("user", "x")]], PARAMS))


def test_a_request_that_keeps_failing_is_recorded_as_an_error(tmp_path: Path) -> None:
    with LoopbackServer(fault_rate=1.0, faults=("500",), max_faults_per_body=99) as srv:
        with ResponseStore(tmp_path / "s.sqlite") as store:
            got = sample_sync(_backend(srv, max_retries=2), make_requests(["x"], PARAMS, n=2), store=store)
            assert [r.error for r in got] == ["failed after 3 attempts: HTTP 500: boom"] * 2
            assert store.info().errors == 2
        assert len(srv.log) == 6


def _failing_transport(error: Callable[[], Exception]) -> tuple[httpx.MockTransport, list[str]]:
    """A transport whose every request raises ``error()``; and the list of URLs it was asked for."""
    asked: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        raise error()

    return httpx.MockTransport(handler), asked


def _refused() -> Exception:
    try:
        raise ConnectionRefusedError(111, "Connection refused")
    except ConnectionRefusedError as exc:
        try:
            raise httpx.ConnectError("All connection attempts failed") from exc
        except httpx.ConnectError as wrapped:
            return wrapped


def test_unreachable_endpoint_says_so_after_retries() -> None:
    """A connection that fails otherwise than refused (here: a name that does not resolve) is retried."""
    transport, asked = _failing_transport(lambda: httpx.ConnectError("[Errno -2] Name or service not known"))
    url = "http://127.0.0.1:1/v1"
    backend = OpenAIBackend("m", url, max_retries=2, backoff=0.01, transport=transport)
    with pytest.raises(
        EndpointUnreachableError, match=r"cannot reach http://127\.0\.0\.1:\d+/v1 after 3 attempts"
    ) as caught:
        sample_sync(backend, make_requests(["x"], PARAMS))
    assert len(asked) == 3 and "(connection failed: Name or service not known)" in str(caught.value)
    assert "[Errno" not in str(caught.value)


def test_a_refused_connection_is_not_retried() -> None:
    """Nothing listening is not a passing fault: one attempt, then the clear message (was: 9 attempts
    over about 54 s with the default 8 retries)."""
    transport, asked = _failing_transport(_refused)
    backend = OpenAIBackend("m", "http://127.0.0.1:9/v1", max_retries=8, transport=transport)
    with pytest.raises(EndpointUnreachableError) as caught:
        sample_sync(backend, make_requests(["x"], PARAMS))
    assert asked == ["http://127.0.0.1:9/v1/models"]  # the first probe of the server, and nothing after
    assert str(caught.value) == (
        "cannot reach http://127.0.0.1:9/v1: connection refused by 127.0.0.1:9 (nothing is listening "
        "there; not retried); is the server running? check --base-url"
    )


def test_a_closed_loopback_port_fails_at_once() -> None:
    """A real port on 127.0.0.1 that is bound but not listening refuses the connection."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        backend = OpenAIBackend("m", f"http://127.0.0.1:{port}/v1", max_retries=8)
        with pytest.raises(
            EndpointUnreachableError, match=rf"connection refused by 127\.0\.0\.1:{port} .*not retried"
        ):
            sample_sync(backend, make_requests(["x"], PARAMS))


def test_a_refused_connection_after_the_server_answered_is_retried() -> None:
    """Once the endpoint has answered, a refused connection may be a server restarting: retried."""
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if request.method == "GET":  # the probe of the server family: answered
            return httpx.Response(404)
        if calls.count(request.url.path) < 3:
            raise _refused()
        return httpx.Response(200, json={"choices": [{"message": {"content": "ok"}}]})

    backend = OpenAIBackend(
        "m", "http://127.0.0.1:9/v1", backoff=0.01, transport=httpx.MockTransport(handler)
    )
    assert [r.text for r in sample_sync(backend, make_requests(["x"], PARAMS))] == ["ok"]
    assert calls.count("/v1/chat/completions") == 3


def test_wrong_path_is_a_backend_error(server: LoopbackServer) -> None:
    backend = OpenAIBackend("m", server.base_url.replace("/v1", "/nothing"), max_retries=0)
    with pytest.raises(BackendError, match="HTTP 404"):
        sample_sync(backend, make_requests(["x"], PARAMS))


def test_api_key_is_sent_but_never_stored_or_shown(
    server: LoopbackServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-test-DO-NOT-LEAK-42"
    monkeypatch.setenv("KNOWSUM_API_KEY", secret)
    backend = open_backend("openai:m", base_url=server.base_url)
    assert secret not in repr(backend) and secret not in str(backend.describe())
    with ResponseStore(tmp_path / "s.sqlite") as store:
        sample_sync(backend, make_requests(["x"], PARAMS), store=store)
    for f in tmp_path.iterdir():
        assert secret.encode() not in f.read_bytes()


def test_a_new_event_loop_gets_a_new_connection_pool(server: LoopbackServer) -> None:
    backend = _backend(server)
    for i in range(2):
        assert sample_sync(backend, make_requests([f"x{i}"], PARAMS))[0].ok
    asyncio.run(backend.aclose())


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"api": "x"}, "invalid api"), ({"concurrency": 0}, "concurrency"), ({"timeout": 0}, "timeout")],
)
def test_invalid_options(kw: dict[str, object], match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        OpenAIBackend("m", "http://127.0.0.1:1/v1", **kw)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="invalid base URL"):
        OpenAIBackend("m", "127.0.0.1:1")


def test_a_server_that_trickles_its_answer_is_cut_at_the_timeout() -> None:
    """``timeout`` bounds the whole answer, not each read: 20 pieces over 2 s, each read well within
    the 0.5 s timeout, are cut at 0.5 s and retried (the retry answers at once)."""
    with LoopbackServer(fault_rate=1.0, faults=("trickle",), slow_seconds=2.0, max_faults_per_body=1) as srv:
        got = sample_sync(_backend(srv, timeout=0.5, max_retries=1), make_requests(["x"], PARAMS))
        outcomes = [a.outcome for a in srv.log]
    assert outcomes == ["trickle", "ok"] and got[0].ok
    with LoopbackServer(fault_rate=1.0, faults=("trickle",), slow_seconds=2.0, max_faults_per_body=9) as srv:
        got = sample_sync(_backend(srv, timeout=0.5, max_retries=0), make_requests(["x"], PARAMS))
    assert got[0].error == "failed after 1 attempts: timeout (no whole answer within 0.5 s)"


def test_null_content_is_named_and_a_refusal_is_stored_as_one_not_retried(tmp_path: Path) -> None:
    with LoopbackServer(fault_rate=1.0, faults=("null",), max_faults_per_body=9) as srv:
        got = sample_sync(_backend(srv, max_retries=1), make_requests(["x"], PARAMS))
    why = "malformed response: choice 0 holds no text (content null)"
    assert got[0].error == f"failed after 2 attempts: {why}"
    with LoopbackServer(fault_rate=1.0, faults=("refusal",), max_faults_per_body=9) as srv:
        with ResponseStore(tmp_path / "s.sqlite") as store:
            got = sample_sync(_backend(srv, max_retries=3), make_requests(["x"], PARAMS), store=store)
            assert store.info().errors == 1
        assert len(srv.log) == 1  # the model declined: asking again within this run would not change it
    assert got[0].error == "refused by the model: I can't help with that."
