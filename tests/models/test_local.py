"""The real embedded model (smollm2-135m-instruct, installed by `make test`)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from knowsum.models import (
    GenerationParams,
    ResponseStore,
    is_installed,
    make_requests,
    model_spec,
    open_backend,
)
from knowsum.models import sample_sync as run
from knowsum.models._local import LocalBackend

pytestmark = pytest.mark.realmodel
NAME = "smollm2-135m-instruct"
PARAMS = GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=16, seed=123)


@pytest.fixture(scope="module")
def backend() -> Iterator[LocalBackend]:
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    if not is_installed(model_spec(NAME)):
        pytest.skip(f"run `knowsum models install {NAME}`")
    b = open_backend(NAME, n_threads=1)  # 1 thread: robust on a busy 2-core CI machine
    assert isinstance(b, LocalBackend)
    yield b
    asyncio.run(b.aclose())


def test_model_answers_and_same_seed_gives_identical_text(backend: LocalBackend) -> None:
    reqs = make_requests(["Name one human disease."], PARAMS, n=2)
    first = run(backend, reqs)
    second = run(backend, list(reversed(reqs)))[::-1]
    assert all(r.ok and r.text.strip() for r in first)
    assert [r.text for r in first] == [r.text for r in second]
    assert all(0 < r.completion_tokens <= 16 and r.finish_reason in ("stop", "length") for r in first)
    assert first[0].model == NAME and first[0].backend == "local"


def test_thread_count_governs_batches_too(backend: LocalBackend) -> None:
    """n_threads also sets llama.cpp's batch threads (else prompts and batched steps use every core)."""
    run(backend, make_requests(["Name one human disease."], PARAMS))
    params = backend._llm.context_params
    assert (params.n_threads, params.n_threads_batch) == (1, 1)


def test_greedy_decoding_ignores_the_seed(backend: LocalBackend) -> None:
    greedy = [GenerationParams(temperature=0.0, max_tokens=12, seed=s) for s in (1, 2)]
    texts = {run(backend, make_requests(["What is 2+2?"], p))[0].text for p in greedy}
    assert len(texts) == 1


def test_completions_api_and_store(tmp_path: Path) -> None:
    pytest.importorskip("llama_cpp")
    if not is_installed(model_spec(NAME)):
        pytest.skip(f"run `knowsum models install {NAME}`")
    b = open_backend(f"local:{NAME}", api="completions", n_ctx=512, n_threads=1)
    reqs = make_requests(["The capital of France is"], GenerationParams(temperature=0.0, max_tokens=5))
    with ResponseStore(tmp_path / "s.sqlite") as store:
        got = run(b, reqs, store=store)
        assert got[0].ok and got[0].endpoint.split("+")[0] == "completions"
        assert store.get(got[0].key) == got[0]
    asyncio.run(b.aclose())


def test_any_gguf_path_runs(backend: LocalBackend) -> None:
    b = open_backend(f"local:{backend.path}", n_ctx=512, n_threads=1)
    assert b.model_id == str(backend.path)
    got = run(b, make_requests(["Hi"], GenerationParams(temperature=0.0, max_tokens=4)))
    assert got[0].ok
    asyncio.run(b.aclose())


def test_a_prompt_longer_than_the_context_is_recorded_as_an_error(backend: LocalBackend) -> None:
    b = open_backend(f"local:{backend.path}", n_ctx=64, n_threads=1)
    got = run(b, make_requests(["word " * 200], GenerationParams(max_tokens=4)))
    assert got[0].error is not None and "context" in got[0].error.lower()
    asyncio.run(b.aclose())
