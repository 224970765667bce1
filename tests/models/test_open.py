"""Model spec resolution and open_backend."""

from __future__ import annotations

from pathlib import Path

import pytest

from knowsum.errors import ConfigError, InputFileError, ModelNotInstalledError, UnknownNameError
from knowsum.models import DEFAULT_MODEL, MockBackend, ModelOptions, ModelRef, open_backend, resolve_model
from knowsum.models._openai import OpenAIBackend


@pytest.mark.parametrize(
    ("spec", "ref"),
    [
        (None, ModelRef("local", DEFAULT_MODEL)),
        ("smollm2-135m-instruct", ModelRef("local", "smollm2-135m-instruct")),
        ("smollm2", ModelRef("local", "smollm2-135m-instruct")),
        ("local:qwen2.5-coder-0.5b-instruct", ModelRef("local", "qwen2.5-coder-0.5b-instruct")),
        ("local:/data/any.gguf", ModelRef("local", "/data/any.gguf", True)),
        ("openai:meta-llama/Llama-3-8B", ModelRef("openai", "meta-llama/Llama-3-8B")),
        ("mock", ModelRef("mock", "mock")),
        ("mock:scripted", ModelRef("mock", "scripted")),
    ],
)
def test_resolve(spec: str | None, ref: ModelRef) -> None:
    assert resolve_model(spec) == ref


@pytest.mark.parametrize("spec", ["gpt-17", "local:nope", "vllm:x"])
def test_unknown_names_list_the_known_ones(spec: str) -> None:
    with pytest.raises(UnknownNameError, match=r"known: .*smollm2-135m-instruct|known: local, mock, openai"):
        resolve_model(spec)


def test_a_prefix_of_several_models_names_them() -> None:
    """``qwen`` begins two registry names: not unknown, ambiguous (tests/cli/test_model_names.py)."""
    with pytest.raises(
        ConfigError, match=r"'qwen' is ambiguous: it begins qwen2\.5-coder-1\.5b-instruct, qwen2"
    ):
        resolve_model("qwen")


def test_open_backend_kinds(tmp_home: Path) -> None:
    assert isinstance(open_backend("mock"), MockBackend)
    b = open_backend("openai:m", base_url="http://127.0.0.1:9/v1/")
    assert isinstance(b, OpenAIBackend) and b.endpoint == "http://127.0.0.1:9/v1/chat/completions"
    with pytest.raises(ConfigError, match="needs --base-url"):
        open_backend("openai:m")
    with pytest.raises(ConfigError, match="only applies to openai"):
        open_backend("mock", base_url="http://x/v1")
    with pytest.raises(ModelNotInstalledError, match="knowsum models install smollm2-135m-instruct"):
        open_backend("smollm2-135m-instruct")
    with pytest.raises(InputFileError, match=r"missing\.gguf: GGUF model file not found"):
        open_backend(f"local:{tmp_home}/missing.gguf")
    with pytest.raises(ConfigError):
        open_backend("local:")


def test_model_options_take_their_keys_and_name_a_bad_value() -> None:
    kw = {"model": "mock", "api": "completions", "concurrency": 3, "queries": 5}
    options = ModelOptions.take(kw)
    assert kw == {"queries": 5}  # the other options stay
    assert (options.model, options.api, options.concurrency) == ("mock", "completions", 3)
    assert not options.remote
    assert ModelOptions.of({"model": "openai:m", "base_url": None}).remote
    with pytest.raises(ConfigError, match=r"the command line: invalid concurrency=5000"):
        ModelOptions.of({"concurrency": 5000})


@pytest.mark.parametrize("spec", ["", "  "])
def test_an_empty_model_name_is_refused_not_the_default(spec: str) -> None:
    """`-m ""` ran the default local model, ignoring $KNOWSUM_MODEL (was: "" meant no -m)."""
    with pytest.raises(ConfigError, match=r"a model name is empty; give one \(e\.g\. -m mock\)"):
        resolve_model(spec)


def test_an_empty_model_option_does_not_run_the_default_model(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`KNOWSUM_MODEL=mock knowsum ask -m ""` answered from the default local model."""
    from knowsum.cli import main

    monkeypatch.setenv("KNOWSUM_MODEL", "mock")
    assert main(["ask", "-m", "", "hi", "--store", str(tmp_home / "s.sqlite")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid model '': a model name is empty" in err


def test_http_options_a_model_not_reached_over_http_leaves_unused_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--server-kind``/``--concurrency``/``--timeout``/``--retries`` beside a mock or local model
    were dropped without a word (``--base-url`` is refused there): a note names them, and none is
    printed when they keep their defaults."""
    from knowsum.cli import main

    store = str(tmp_path / "s.sqlite")
    assert (
        main(["ask", "-m", "mock", "hi", "--store", store, "--server-kind", "vllm", "--concurrency", "3"])
        == 0
    )
    err = capsys.readouterr().err
    assert "--server-kind, --concurrency apply only to openai:MODEL" in err and "not used by 'mock'" in err
    assert main(["ask", "-m", "mock", "hi", "--store", store]) == 0
    assert "only to openai:MODEL" not in capsys.readouterr().err
