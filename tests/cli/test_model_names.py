"""A registry model is named the same way by every command: its whole name, or a prefix only it has
(``smollm2``); a prefix of several is refused naming them; ``models list`` stars the model a command
uses without ``--model``, ``$KNOWSUM_MODEL`` when it is set."""

from __future__ import annotations

import pytest

from knowsum.cli import main
from knowsum.errors import ConfigError, UnknownNameError
from knowsum.models import REGISTRY, model_spec, registry_name, resolve_model


def test_a_unique_prefix_names_its_model_everywhere() -> None:
    assert registry_name("smollm2") == "smollm2-135m-instruct" == model_spec("smollm2").name
    assert resolve_model("smollm2").name == resolve_model("local:smollm2").name == "smollm2-135m-instruct"
    assert all(registry_name(name) == name for name in REGISTRY)


def test_a_shared_prefix_is_ambiguous_and_an_unknown_name_lists_the_models() -> None:
    with pytest.raises(ConfigError, match=r"model 'qwen' is ambiguous: it begins qwen2\.5-coder-"):
        resolve_model("qwen")
    with pytest.raises(ConfigError, match="ambiguous"):
        model_spec("qwen")
    with pytest.raises(UnknownNameError, match="smollm2-135m-instruct"):
        model_spec("nope")


def test_models_install_takes_the_prefix_and_list_stars_the_environment_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "install", "qwen"]) == 2
    assert "ambiguous" in capsys.readouterr().err
    monkeypatch.setenv("KNOWSUM_MODEL", "smollm2")
    assert main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[1] for ln in lines if ln.startswith("*")] == ["smollm2-135m-instruct"]
    assert "(* default: $KNOWSUM_MODEL=smollm2;" in lines[-1]
    monkeypatch.setenv("KNOWSUM_MODEL", "openai:gpt-4o-mini")
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert not [ln for ln in out.splitlines() if ln.startswith("*")]
    assert "$KNOWSUM_MODEL=openai:gpt-4o-mini names no registry model" in out
