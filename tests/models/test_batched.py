"""Batched decoding of the local backend (n_parallel > 1) on the real test model (SmolLM2-135M)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from knowsum.errors import BackendError, ConfigError
from knowsum.models import GenerationParams, make_requests
from knowsum.models import sample_sync as run
from knowsum.models._llama_api import check_api
from knowsum.models._local import DEFAULT_PARALLEL, LocalBackend, default_parallel
from tests.models._embedded import open_smollm2

pytestmark = pytest.mark.realmodel
NAME = "smollm2-135m-instruct"
PARAMS = GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=16, seed=123)


def _open(n_parallel: int = 3) -> LocalBackend:
    return open_smollm2(n_parallel)


@pytest.fixture(scope="module")
def batched() -> Iterator[LocalBackend]:
    b = _open(3)
    yield b
    asyncio.run(b.aclose())


def test_text_does_not_depend_on_batch_companions(batched: LocalBackend) -> None:
    reqs = make_requests(["Name one human disease.", "List three genes."], PARAMS, n=4)
    alone = {r.key: r.text for r in run(batched, reqs)}
    shuffled = {r.key: r.text for r in run(batched, reqs[::-1])}
    # the same samples with other companions, in other slots, and one sample on its own
    subset = {r.key: r.text for r in run(batched, [reqs[5], reqs[0], reqs[6]])}
    single = {r.key: r.text for r in run(batched, [reqs[2]])}
    assert alone == shuffled
    assert all(alone[k] == t for k, t in subset.items())
    assert all(alone[k] == t for k, t in single.items())
    assert len(set(alone.values())) > 1  # distinct seeds give distinct draws
    assert all(t.strip() for t in alone.values())


def test_the_seed_reproduces_a_run_and_another_seed_changes_it(batched: LocalBackend) -> None:
    reqs = make_requests(["Name one human disease."], PARAMS, n=3)
    first = [r.text for r in run(batched, reqs)]
    again = [r.text for r in run(batched, reqs)]
    other = make_requests(
        ["Name one human disease."], GenerationParams(**{**PARAMS.as_dict(), "seed": 9}), n=3
    )
    assert first == again
    assert first != [r.text for r in run(batched, other)]


def test_max_tokens_and_stop_strings_behave_like_the_sequential_path(batched: LocalBackend) -> None:
    params = GenerationParams(temperature=0.0, max_tokens=6, seed=1)
    got = run(batched, make_requests(["Write a long story about a dog."], params))[0]
    assert got.finish_reason == "length" and got.completion_tokens == 6
    long = GenerationParams(temperature=0.0, max_tokens=40, seed=1)
    full = run(batched, make_requests(["Count from 1 to 10, separated by commas."], long))[0].text
    assert "," in full
    stop = full[full.index(",") :]  # everything from the first comma: the text must end before it
    cut = GenerationParams(temperature=0.0, max_tokens=40, seed=1, stop=(",",))
    stopped = run(batched, make_requests(["Count from 1 to 10, separated by commas."], cut))[0]
    assert stopped.finish_reason == "stop"
    assert stopped.text == full[: len(full) - len(stop)]
    seq = _open(1)
    try:
        same = run(seq, make_requests(["Count from 1 to 10, separated by commas."], cut))[0]
        assert "," not in same.text and same.finish_reason == "stop"
    finally:
        asyncio.run(seq.aclose())


def test_a_prompt_longer_than_the_context_fails_alone(batched: LocalBackend) -> None:
    reqs = [*make_requests(["word " * 600], PARAMS), *make_requests(["Hi"], PARAMS)]
    got = run(batched, reqs)
    assert got[0].error is not None and "context" in got[0].error.lower()
    assert got[1].ok and got[1].text


def test_knowsum_batch_sets_the_number_of_parallel_sequences(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KNOWSUM_BATCH", raising=False)
    assert default_parallel() == DEFAULT_PARALLEL > 1  # batched by default (measured faster)
    monkeypatch.setenv("KNOWSUM_BATCH", "1")
    assert default_parallel() == 1
    monkeypatch.setenv("KNOWSUM_BATCH", "6")
    assert default_parallel() == 6
    for bad in ("0", "x", "100"):
        monkeypatch.setenv("KNOWSUM_BATCH", bad)
        with pytest.raises(ConfigError, match="KNOWSUM_BATCH"):
            default_parallel()


def test_the_batch_size_is_part_of_the_store_key() -> None:
    """A batched text depends on n_parallel, so stored responses of another batch size never match."""
    seq, b2, b3 = _open(1), _open(2), _open(3)
    reqs = make_requests(["List three colours."], PARAMS, n=2)
    assert seq.endpoint == "chat" and b3.endpoint == "chat+batch3"
    keys = [{b.key(r) for r in reqs} for b in (seq, b2, b3)]
    assert all(len(k) == 2 for k in keys)
    assert not (keys[0] & keys[1]) and not (keys[0] & keys[2]) and not (keys[1] & keys[2])
    assert keys[2] == {_open(3).key(r) for r in reqs}  # stable for one batch size


def test_the_private_llama_cpp_api_the_batched_path_reads_is_there(batched: LocalBackend) -> None:
    """Fails with a clear message if llama-cpp-python is upgraded past what the batched path reads."""
    import llama_cpp

    check_api(batched.llm)  # the installed (pinned) version has everything
    assert llama_cpp.__version__ == "0.3.36", "the batched path was checked against llama-cpp-python 0.3.36"

    class Renamed:  # a Llama whose private model handle moved
        def __getattr__(self, name: str) -> object:
            if name == "_model":
                raise AttributeError(name)
            return getattr(batched.llm, name)

    with pytest.raises(BackendError, match=r"lacks .*Llama\._model\.model.*KNOWSUM_BATCH=1"):
        check_api(Renamed())
