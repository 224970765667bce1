"""Generation parameters, requests, keys and seeds."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from knowsum.errors import ConfigError
from knowsum.models import PAPER_PARAMS, GenerationParams, MockBackend, Request, derive_seed, make_requests


def test_paper_setting_is_temperature_one_with_every_truncation_off() -> None:
    assert GenerationParams(temperature=1.0, top_p=1.0, top_k=0, min_p=0.0) == PAPER_PARAMS
    assert PAPER_PARAMS.as_dict() == {
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 0,
        "min_p": 0.0,
        "max_tokens": 512,
        "seed": 0,
        "stop": [],
    }


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("temperature", -0.1),
        ("temperature", float("nan")),
        ("top_p", 0.0),
        ("top_p", 1.5),
        ("top_k", -1),
        ("min_p", 2.0),
        ("max_tokens", 0),
        ("seed", -1),
    ],
)
def test_invalid_parameters_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ConfigError, match=f"invalid {field}="):
        GenerationParams(**{field: value})  # type: ignore[arg-type]


def test_request_needs_exactly_one_of_prompt_or_messages() -> None:
    with pytest.raises(ConfigError):
        Request()
    with pytest.raises(ConfigError):
        Request(prompt="a", messages=(("user", "a"),))
    with pytest.raises(ConfigError):
        Request(prompt="a", sample_index=-1)


def test_key_follows_the_documented_construction() -> None:
    """Reference: the key definition in knowsum.models._params, recomputed here with hashlib."""
    params = GenerationParams(temperature=0.7, seed=3, stop=("\n",))
    req = Request(prompt="Name a disease.", params=params, sample_index=5)
    sep = b"\x1f"
    params_json = json.dumps(params.as_dict(), separators=(",", ":"), sort_keys=True).encode()
    prompt_json = b'{"prompt":"Name a disease."}'
    expected = hashlib.sha256(
        sep.join([b"mock", b"m1", b"mock", params_json, b""]) + prompt_json + sep + b"5"
    ).hexdigest()
    assert MockBackend(model_id="m1").key(req) == expected


def test_key_depends_on_every_part() -> None:
    base = Request(prompt="p", params=PAPER_PARAMS, sample_index=0)
    b = MockBackend(model_id="m")
    variants = [
        base,
        base.with_index(1),
        Request(prompt="q", params=PAPER_PARAMS),
        Request(messages=(("user", "p"),), params=PAPER_PARAMS),
        Request(prompt="p", params=GenerationParams(temperature=0.5)),
        Request(prompt="p", params=GenerationParams(seed=1)),
    ]
    keys = {b.key(r) for r in variants}
    keys.add(MockBackend(model_id="other").key(base))
    assert len(keys) == len(variants) + 1


@given(st.integers(0, 2**40), st.text(max_size=50), st.integers(0, 10**6))
def test_seed_is_a_pure_function_in_range(run_seed: int, prompt: str, index: int) -> None:
    req = Request(prompt=prompt, params=GenerationParams(seed=run_seed), sample_index=index)
    assert req.seed == derive_seed(run_seed, req.payload, index)
    assert req.seed is not None and 0 <= req.seed < 2**31
    assert Request(prompt=prompt, params=GenerationParams(seed=run_seed), sample_index=index).seed == req.seed


def test_unseeded_run_has_no_sample_seed() -> None:
    assert Request(prompt="p", params=GenerationParams(seed=None)).seed is None


def test_seeds_differ_across_samples() -> None:
    seeds = {r.seed for r in make_requests(["p"], PAPER_PARAMS, n=1000)}
    assert len(seeds) == 1000


@given(
    st.floats(0, 2),
    st.floats(0.01, 1),
    st.integers(0, 100),
    st.floats(0, 1),
    st.integers(1, 4096),
    st.lists(st.text(min_size=1, max_size=5), max_size=3),
)
def test_params_round_trip_through_dict(
    t: float, p: float, k: int, m: float, n: int, stop: list[str]
) -> None:
    params = GenerationParams(temperature=t, top_p=p, top_k=k, min_p=m, max_tokens=n, stop=tuple(stop))
    assert GenerationParams.from_dict(json.loads(json.dumps(params.as_dict()))) == params


def test_make_requests_indexes_and_messages() -> None:
    reqs = make_requests(["a", [("system", "s"), ("user", "b")]], PAPER_PARAMS, n=3, start=2)
    assert [(r.prompt, r.sample_index) for r in reqs[:3]] == [("a", 2), ("a", 3), ("a", 4)]
    assert reqs[3].messages == (("system", "s"), ("user", "b"))
    assert reqs[3].chat_messages() == [{"role": "system", "content": "s"}, {"role": "user", "content": "b"}]
    with pytest.raises(ConfigError):
        make_requests(["a"], PAPER_PARAMS, n=0)
