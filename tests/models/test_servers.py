"""Server families: the top-k/min-p fields each is sent, detection, and rejected requests not retried.

The answer bodies below copy the shapes the servers' own code produces (``owned_by`` of vLLM's
``ModelCard``, llama-server's ``/v1/models`` and ``/props``, llama-cpp-python's ``/v1/models`` and its
``RouteErrorHandler``, which answers a pydantic validation error as HTTP 500; Ollama's ``/api/version``
and ``/api/show``). tests/models/test_real_server.py runs the same paths against the real
llama-cpp-python server.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from knowsum.cli import main
from knowsum.errors import BackendError, ConfigError
from knowsum.models import PAPER_PARAMS, GenerationParams, make_requests, sample_sync
from knowsum.models._openai import OpenAIBackend
from knowsum.models._servers import (
    check_ollama,
    detect_kind,
    is_validation_error,
    kind_from_models,
    sampling_fields,
    server_reason,
)

URL = "http://127.0.0.1:9/v1"
TRUNCATED = GenerationParams(top_k=40, min_p=0.05)
LLAMA_CPP_PYTHON_MODELS = {
    "object": "list",
    "data": [{"id": "m", "object": "model", "owned_by": "me", "permissions": []}],
}
# llama-cpp-python answers an invalid body as HTTP 500 (errors.py: "Wrap other errors as internal
# server error")
PYDANTIC_500 = {  # what llama-cpp-python 0.3.36's server answered to top_k=-1 (traceback line shortened)
    "error": {
        "message": "1 validation error:\n  {'type': 'greater_than_equal', 'loc': ('body', 'top_k'), "
        "'msg': 'Input should be greater than or equal to 0', 'input': -1, 'ctx': {'ge': 0}}\n\n  File "
        '"llama_cpp/server/app.py", line 376, in create_chat_completion\n    POST /v1/chat/completions',
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def _completion(body: dict[str, Any]) -> dict[str, Any]:
    text = f"top_k={body.get('top_k')} min_p={body.get('min_p')}"
    return {"choices": [{"index": 0, "message": {"content": text}, "finish_reason": "stop"}], "usage": {}}


class FakeServer:
    """An httpx transport answering like one server family; counts what it was sent."""

    def __init__(self, models: Any = None, routes: dict[str, Any] | None = None) -> None:
        self.models = models
        self.routes = routes or {}
        self.posts: list[dict[str, Any]] = []
        self.gets: list[str] = []

    def handle(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if request.method == "GET":
            self.gets.append(path)
            if path == "/v1/models" and self.models is not None:
                return httpx.Response(200, json=self.models)
            if path in self.routes:
                return httpx.Response(200, json=self.routes[path])
            return httpx.Response(404, json={"detail": "Not Found"})
        body = json.loads(request.content)
        if path in self.routes:
            return httpx.Response(200, json=self.routes[path])
        self.posts.append(body)
        if body.get("top_k", 0) < 0:  # llama-cpp-python: top_k = Field(default=40, ge=0)
            return httpx.Response(500, json=PYDANTIC_500)
        if "poison" in json.dumps(body["messages"]):
            return httpx.Response(400, json={"error": {"message": "prompt is poisoned", "code": 400}})
        return httpx.Response(200, json=_completion(body))

    def backend(self, **kw: Any) -> OpenAIBackend:
        transport = httpx.MockTransport(self.handle)
        options: dict[str, Any] = {"backoff": 0.0, "max_retries": 5, "transport": transport}
        options.update(kw)
        return OpenAIBackend("m", URL, **options)


@pytest.mark.parametrize(
    ("kind", "paper", "truncated"),
    [
        ("vllm", {"top_k": -1, "min_p": 0.0}, {"top_k": 40, "min_p": 0.05}),
        ("llama.cpp", {"top_k": 0, "min_p": 0.0}, {"top_k": 40, "min_p": 0.05}),
        ("generic", {"top_k": -1, "min_p": 0.0}, {"top_k": 40, "min_p": 0.05}),
        ("ollama", {}, {}),
    ],
)
def test_each_family_gets_its_own_spelling_of_off(
    kind: str, paper: dict[str, Any], truncated: dict[str, Any]
) -> None:
    penalty = {
        "vllm": {"repetition_penalty": 1.0},
        "generic": {"repetition_penalty": 1.0},
        "llama.cpp": {"repeat_penalty": 1.0},
    }.get(kind, {})
    assert sampling_fields(kind, PAPER_PARAMS) == {**paper, **penalty}
    assert sampling_fields(kind, TRUNCATED) == {**truncated, **penalty}


def test_openai_gets_no_fields_and_refuses_a_truncation_it_does_not_have() -> None:
    assert sampling_fields("openai", PAPER_PARAMS) == {}
    with pytest.raises(ConfigError, match="OpenAI's API has no top-k or min-p"):
        sampling_fields("openai", TRUNCATED)
    backend = OpenAIBackend("gpt", "https://api.openai.com/v1")
    assert backend.server_kind == "openai"  # by host, without probing
    assert "top_k" not in backend.body(make_requests(["hi"], PAPER_PARAMS))


@pytest.mark.parametrize(
    ("payload", "kind"),
    [
        (
            {
                "object": "list",
                "data": [
                    {
                        "id": "Qwen/Qwen2.5-1.5B",
                        "object": "model",
                        "owned_by": "vllm",
                        "root": "Qwen/Qwen2.5-1.5B",
                        "max_model_len": 32768,
                    }
                ],
            },
            "vllm",
        ),
        (
            {
                "object": "list",
                "data": [{"id": "m.gguf", "object": "model", "owned_by": "llamacpp", "meta": {}}],
            },
            "llama.cpp",
        ),
        (LLAMA_CPP_PYTHON_MODELS, "llama.cpp"),
        ({"object": "list", "data": [{"id": "gpt-4o", "object": "model", "owned_by": "system"}]}, "openai"),
        ({"object": "list", "data": [{"id": "llama3.2:latest", "owned_by": "library"}]}, None),
        ({"object": "list", "data": [{"id": "x", "object": "model", "owned_by": "me"}]}, None),
        ({"detail": "Not Found"}, None),
        (None, None),
    ],
)
def test_kind_from_models_reads_owned_by(payload: Any, kind: str | None) -> None:
    assert kind_from_models(payload) == kind


async def _detect(server: FakeServer) -> str:
    async with httpx.AsyncClient(transport=httpx.MockTransport(server.handle)) as client:
        return await detect_kind(client, URL)


@pytest.mark.parametrize(
    ("server", "kind"),
    [
        (FakeServer(LLAMA_CPP_PYTHON_MODELS), "llama.cpp"),
        (
            FakeServer(
                {"object": "list", "data": [{"id": "q:1b", "owned_by": "library"}]},
                {"/api/version": {"version": "0.12.6"}},
            ),
            "ollama",
        ),
        (
            FakeServer(None, {"/props": {"default_generation_settings": {"top_k": 40}, "total_slots": 4}}),
            "llama.cpp",
        ),
        (FakeServer(None), "generic"),
    ],
)
def test_detect_kind_probes_models_then_ollama_then_props(server: FakeServer, kind: str) -> None:
    assert asyncio.run(_detect(server)) == kind


def test_auto_detection_sends_llama_cpp_python_what_it_accepts() -> None:
    server = FakeServer(LLAMA_CPP_PYTHON_MODELS)
    backend = server.backend()
    got = sample_sync(backend, make_requests(["hi", "ho"], PAPER_PARAMS))
    assert backend.server_kind == "llama.cpp" and all(r.ok for r in got)
    assert [r.text for r in got] == ["top_k=0 min_p=0.0"] * 2
    assert server.gets == ["/v1/models"]  # probed once, not per request


def test_a_validation_error_answered_as_http_500_is_not_retried_and_quoted() -> None:
    server = FakeServer(LLAMA_CPP_PYTHON_MODELS)
    with pytest.raises(BackendError) as info:
        sample_sync(server.backend(server_kind="vllm"), make_requests(["hi"], PAPER_PARAMS))
    msg = str(info.value)
    assert "rejected the request as invalid, not retried" in msg
    assert (
        "(HTTP 500: 1 validation error: {'type': 'greater_than_equal', 'loc': ('body', 'top_k'), 'msg': "
        in msg
    )
    assert "'msg': 'Input should be greater than or equal to 0', 'input': -1, 'ctx': {'ge': 0}})" in msg
    assert "--server-kind" in msg and "'vllm'" in msg
    assert len(server.posts) == 1  # max_retries=5, yet one attempt


def test_after_a_success_a_rejected_request_fails_alone() -> None:
    server = FakeServer(LLAMA_CPP_PYTHON_MODELS)
    backend = server.backend(concurrency=1)
    got = sample_sync(backend, make_requests(["fine", "poison", "also fine"], PAPER_PARAMS))
    assert [r.ok for r in got] == [True, False, True]
    assert got[1].error == "rejected as invalid, not retried: HTTP 400: prompt is poisoned"
    assert sum("poison" in json.dumps(b) for b in server.posts) == 1


@pytest.mark.parametrize(
    ("status", "body", "reason", "invalid"),
    [
        (500, PYDANTIC_500, "1 validation error: {'type': 'greater_than_equal', 'loc': ('body',", True),
        (
            400,
            {
                "object": "error",
                "message": "top_k must be -1 (disable), or at least 1, got 0.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            },
            "top_k must be -1 (disable)",
            True,
        ),
        (
            422,
            {"detail": [{"loc": ["body", "top_k"], "msg": "Input should be greater than or equal to 0"}]},
            "top_k: Input should be greater than or equal to 0",
            True,
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size",
                    "type": "exceed_context_size_error",
                }
            },
            "the request exceeds the available",
            True,
        ),
        (429, {"error": {"message": "slow down"}}, "slow down", False),
        (408, "Request Timeout", "Request Timeout", False),
        (500, {"error": {"message": "boom"}}, "boom", False),
        (503, "<html>Service Unavailable</html>", "<html>Service Unavailable</html>", False),
    ],
)
def test_server_reason_and_what_counts_as_invalid(status: int, body: Any, reason: str, invalid: bool) -> None:
    text = body if isinstance(body, str) else json.dumps(body)
    got = server_reason(text)
    assert got.startswith(reason) and "\n" not in got
    assert is_validation_error(status, got) is invalid


def _ollama(parameters: str | None, version: str = "0.32.10") -> FakeServer:
    show = {"parameters": parameters} if parameters is not None else {"modelfile": "FROM x"}
    return FakeServer(
        {"object": "list", "data": [{"id": "m", "owned_by": "library"}]},
        {"/api/version": {"version": version}, "/api/show": show},
    )


def test_ollama_model_with_default_options_is_refused_with_the_modelfile_fix() -> None:
    server = _ollama(None)
    with pytest.raises(ConfigError) as info:
        sample_sync(server.backend(), make_requests(["hi"], PAPER_PARAMS))
    msg = str(info.value)
    assert "ignores top_k, min_p and repeat_penalty" in msg and "top_k=0 (off)" in msg
    assert "with top_k=40, min_p=0, repeat_penalty=1 (its Modelfile" in msg
    assert "PARAMETER top_k 0" in msg and "ollama create m-knowsum -f Modelfile" in msg
    assert server.posts == []  # nothing sampled with the wrong distribution


def test_ollama_model_whose_modelfile_turns_truncation_off_is_sampled_without_the_fields() -> None:
    server = _ollama('stop                           "<|im_end|>"\ntop_k                          0\nmin_p 0')
    # (0.32.10: no repeat_penalty line needed, Ollama's default became 1.0)
    backend = server.backend()
    got = sample_sync(backend, make_requests(["hi"], PAPER_PARAMS, n=2))
    assert backend.server_kind == "ollama" and all(r.ok for r in got)
    assert all(not {"top_k", "min_p", "repeat_penalty"} & set(b) for b in server.posts)


def test_check_ollama_compares_a_requested_top_k_exactly_and_knows_the_old_repeat_penalty() -> None:
    async def check(parameters: str, params: GenerationParams, version: str = "0.32.10") -> None:
        server = _ollama(parameters, version)
        async with httpx.AsyncClient(transport=httpx.MockTransport(server.handle)) as client:
            await check_ollama(client, URL, "m", params)

    asyncio.run(check("top_k 40\nmin_p 0.05", TRUNCATED))
    with pytest.raises(ConfigError, match=r"top_k=20, min_p=0\.05"):
        asyncio.run(check("top_k 20\nmin_p 0.05", TRUNCATED))
    with pytest.raises(ConfigError, match=r"repeat_penalty=1\.1 "):  # before 0.32.10 a missing one is 1.1
        asyncio.run(check("top_k 0\nmin_p 0", PAPER_PARAMS, "0.12.6"))
    asyncio.run(check("top_k 0\nmin_p 0\nrepeat_penalty 1", PAPER_PARAMS, "0.12.6"))


def test_cli_takes_server_kind_and_rejects_an_unknown_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", "-m", "openai:m", "--base-url", URL, "--server-kind", "tgi", "hi"]) == 2
    assert "'tgi' is not one of" in capsys.readouterr().err
