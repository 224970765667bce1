"""``knowsum kb install`` with the knowsum home on a full or read-only disk (a real tmpfs; needs root):
one error line, nothing half-installed, an installed KB left untouched; the rerun installs."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from knowsum.cli import main
from knowsum.kb._install import installed, store_path
from tests._mounts import fill, remount, tmpfs


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.splitlines()
    assert err and "Traceback" not in "\n".join(err)
    return err[-1]


def test_full_then_read_only_disk(
    tmp_path: Path, kb_fix: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["kb", "install", "hpo", "--from", str(kb_fix / "hp.obo")]
    with tmpfs(tmp_path / "home", "2m") as home:
        monkeypatch.setenv("KNOWSUM_HOME", str(home))
        (home / "kb").mkdir()
        filler = fill(home)
        assert main(args) == 1
        line = _one_line(capsys)
        assert line == (
            f"knowsum: error: cannot write {store_path('hpo')}: No space left on device; "
            "the disk is full: free space on it (or write elsewhere) and rerun"
        )
        assert installed("hpo") is None
        assert [p.name for p in (home / "kb").iterdir() if p.name.startswith("hpo")] == []  # no .tmp
        filler.unlink()
        assert main(args) == 0 and installed("hpo") is not None  # space again: the rerun installs
        digest = hashlib.sha256(store_path("hpo").read_bytes()).hexdigest()
        remount(home, "ro")
        capsys.readouterr()
        assert main([*args, "--force"]) == 1
        line = _one_line(capsys)
        assert line.startswith(f"knowsum: error: cannot write {home / 'kb'}/")
        assert line.endswith("Read-only file system; the file system is read-only: write elsewhere and rerun")
        assert hashlib.sha256(store_path("hpo").read_bytes()).hexdigest() == digest
        assert installed("hpo") is not None  # the installed KB is untouched and still usable
        remount(home, "rw")
