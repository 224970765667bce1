"""The llama.cpp build guard (:func:`knowsum.models._llama_api.check_build`) and the build flags.

A llama-cpp-python built with llama.cpp's AMX kernels by GCC 12 segfaults on the first decode of two or
more tokens on an AMX CPU (the tile configuration is miscompiled); the Makefile builds without them and
``check_build`` turns such a build into one clear error instead of a crash.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from knowsum.errors import BackendError
from knowsum.models import _llama_api
from knowsum.models._llama_api import BUILD_CMAKE_ARGS, check_build
from tests.models._embedded import NAME

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """No cached probe results."""
    monkeypatch.setattr(_llama_api, "_probed", {})


def test_makefile_builds_llama_cpp_with_the_documented_flags() -> None:
    m = re.search(r"^export CMAKE_ARGS \?= (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert m is not None
    assert m.group(1).strip() == BUILD_CMAKE_ARGS
    assert "-mno-amx-int8" in BUILD_CMAKE_ARGS


@pytest.mark.realmodel
def test_installed_build_decodes_several_tokens() -> None:
    """The regression itself, in a child process so a crash fails this test, not the whole run."""
    pytest.importorskip("llama_cpp", reason="needs pip install 'knowsum[local]'")
    from knowsum.models import is_installed, model_spec
    from knowsum.models._registry import installed_path

    if not is_installed(model_spec(NAME)):
        pytest.skip(f"run `knowsum models install {NAME}`")
    path = installed_path(NAME)
    assert _llama_api._probe(path) is None, "llama.cpp crashed decoding 8 tokens: rebuild, see _llama_api"


def test_a_crashing_build_is_one_clear_error(
    fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(_llama_api, "amx_build", lambda: True)
    monkeypatch.setattr(_llama_api, "_PROBE", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    gguf = tmp_path / "m.gguf"
    with pytest.raises(BackendError, match=r"SIGSEGV.*AMX.*-mno-amx-int8.*llama-cpp-python==0\.3\.36"):
        check_build(gguf)
    calls: list[Path] = []
    monkeypatch.setattr(_llama_api, "_probe", lambda p: calls.append(p))
    with pytest.raises(BackendError):  # probed once per process and file
        check_build(gguf)
    assert calls == []


def test_a_build_that_decodes_passes(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_llama_api, "amx_build", lambda: True)
    monkeypatch.setattr(_llama_api, "_PROBE", "import sys; sys.exit(0)")
    check_build(tmp_path / "m.gguf")
    # a failure that is not a crash is left to the real load
    monkeypatch.setattr(_llama_api, "_PROBE", "import sys; sys.exit(1)")
    check_build(tmp_path / "other.gguf")


def test_no_probe_without_amx_kernels(fresh: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(_llama_api, "amx_build", lambda: False)
    monkeypatch.setattr(_llama_api, "_probe", lambda p: pytest.fail("probed a build without AMX kernels"))
    check_build(tmp_path / "m.gguf")
