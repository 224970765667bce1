"""One sampling lock per database file: every name of a store shares it.

While a run samples into a store (its lock held: here by the test, through the same function a run
uses), a second run reaching the same database file by another name is refused before it asks
anything: through ``--config`` naming the store (it once took the default store's lock), a symbolic
link (it once took ``link.sqlite.lock``) and a hard link (it once took its own lock and its own
``-wal`` file: two writers, SQLite's "multiple links to the same file" corruption hazard). Without the
holder, the same command lines get past the lock (and stop at the knowledge base this test home
lacks).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from knowsum._util import sampling_lock
from knowsum.cli import main


@pytest.fixture
def store(tmp_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    made = tmp_path / "db" / "s.sqlite"
    made.parent.mkdir()
    assert main(["ask", "-m", "mock", "hello", "--store", str(made)]) == 0
    capsys.readouterr()
    return made


def _bypasses(store: Path, tmp_path: Path) -> dict[str, list[str]]:
    run = ["census", "run", "diseases", "-m", "mock", "--queries", "2"]
    config = tmp_path / "census.toml"
    config.write_text(f'task = "diseases"\nmodel = "mock"\nqueries = 2\nstore = "{store}"\n')
    soft, hard = tmp_path / "link.sqlite", tmp_path / "hard.sqlite"
    soft.symlink_to(store)
    os.link(store, hard)
    return {
        "config": ["census", "run", "--config", str(config), "--out", str(tmp_path / "o1")],
        "symlink": [*run, "--store", str(soft), "--out", str(tmp_path / "o2")],
        "hardlink": [*run, "--store", str(hard), "--out", str(tmp_path / "o3")],
    }


def test_every_name_of_a_store_shares_its_lock(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    commands = _bypasses(store, tmp_path)
    digest = hashlib.sha256(store.read_bytes()).hexdigest()
    with sampling_lock(store):
        for name, args in commands.items():
            assert main(args) == 2, name
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "another knowsum run (process " in err, (name, err)
            assert f"process {os.getpid()})" in err, (name, err)  # the holder is named
    assert hashlib.sha256(store.read_bytes()).hexdigest() == digest
    assert not any((tmp_path / f"o{i}").exists() for i in (1, 2, 3))
    assert not (tmp_path / "link.sqlite.lock").exists() and not (tmp_path / "hard.sqlite-wal").exists()
    for name, args in commands.items():  # the holder gone: each gets past the lock
        main(args)
        err = capsys.readouterr().err
        assert "another knowsum run" not in err and "knowledge base 'doid' is not installed" in err, name


def test_the_config_store_is_locked_not_the_default_one(
    store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run of `--config` naming a store does not hold the default store up."""
    commands = _bypasses(store, tmp_path)
    default = Path(os.environ["KNOWSUM_HOME"]) / "store.sqlite"
    assert main(["ask", "-m", "mock", "hi"]) == 0
    with sampling_lock(default):
        main(commands["config"])
    err = capsys.readouterr().err
    assert "another knowsum run" not in err and "knowledge base 'doid' is not installed" in err
