"""``knowsum._util.diskfaults``: permission denied is its own fault, not "read-only file system".

The real case runs the CLI in a child process that may not write the store's folder (mode 0555):
as root the child drops ``CAP_DAC_OVERRIDE`` (``setpriv``), so the permission bits apply to it too.
Read-only mounts and full disks are covered with real tmpfs mounts in tests/models/test_store_faults.py.
"""

from __future__ import annotations

import errno
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from knowsum._util import disk_fault


def test_the_errno_decides_between_permission_denied_and_read_only(tmp_path: Path) -> None:
    target = tmp_path / "store.sqlite"  # on a writable file system
    assert disk_fault(PermissionError(errno.EACCES, "Permission denied"), target) == errno.EACCES
    assert disk_fault(PermissionError(errno.EPERM, "Operation not permitted"), target) == errno.EACCES
    assert disk_fault(OSError(errno.EROFS, "Read-only file system"), target) == errno.EROFS
    assert disk_fault(OSError(errno.ENOSPC, "No space left on device"), target) == errno.ENOSPC
    assert disk_fault(ValueError("not a disk problem"), target) is None


def test_sqlite_readonly_on_a_writable_mount_is_permission_denied(tmp_path: Path) -> None:
    exc = sqlite3.OperationalError("attempt to write a readonly database")
    exc.sqlite_errorcode = sqlite3.SQLITE_READONLY  # type: ignore[attr-defined]
    assert disk_fault(exc, tmp_path / "store.sqlite") == errno.EACCES


def _unprivileged(cmd: list[str]) -> list[str]:
    """``cmd`` such that file permission bits apply to it, even when the tests run as root."""
    if os.geteuid() != 0:
        return cmd
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv (util-linux) to drop CAP_DAC_OVERRIDE")
    caps = "-dac_override,-dac_read_search"
    return [setpriv, "--bounding-set", caps, "--inh-caps", caps, *cmd]


def test_a_store_in_a_folder_this_user_may_not_write_says_permission_denied(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    store = folder / "store.sqlite"
    code = (
        "import sys; from knowsum.cli import main; "
        "sys.exit(main(['ask', '--model', 'mock', '--store', sys.argv[1], 'Name a disease.']))"
    )
    env = {**os.environ, "KNOWSUM_HOME": str(tmp_path / "home")}
    try:
        proc = subprocess.run(
            _unprivileged([sys.executable, "-c", code, str(store)]),
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
            check=False,
        )
    finally:
        folder.chmod(0o755)
    assert proc.returncode == 6, proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith(
        f"knowsum: error: cannot open response store {store}: permission denied (this user may not write"
    ), proc.stderr
    assert "read-only" not in proc.stderr
    assert not store.exists()
