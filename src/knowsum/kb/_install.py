"""Install knowledge bases into :func:`knowsum.paths.kb_dir` and open them.

``install`` is idempotent: ``kb_dir()/manifest.json`` records, per KB, the store format version,
the source spec, the SHA-256 and size of every source file read, and the store file's size. A KB
whose entry matches (same format and source, store present with the recorded size; for ``--from``
files also the same SHA-256) is skipped without reading anything, so a warm ``kb install all`` is
instant. Stores are written atomically, so an interrupted install leaves the previous state. A store
that cannot be written because the disk is full or read-only raises the matching :class:`OSError`
(``ENOSPC``/``EROFS``, naming the store), which the CLI reports in one line.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from knowsum._util import disk_fault, paths
from knowsum.errors import InputError, KBNotInstalledError, KnowsumError, UnknownNameError
from knowsum.kb._genes import GeneStore
from knowsum.kb._ontology import Ontology
from knowsum.kb._registry import KB_NAMES, KBS, ROOTS, KBSpec
from knowsum.kb._sources import sha256
from knowsum.kb._store import FORMAT_VERSION, OntologyData, write_store
from knowsum.kb._syntax import SYNTAX

__all__ = [
    "InstallResult",
    "install",
    "installed",
    "load_genes",
    "load_ontology",
    "manifest",
    "spec",
    "store_path",
]

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class InstallResult:
    """Outcome of installing one KB: whether it was (re)built, its size and timing."""

    name: str
    skipped: bool
    n_terms: int
    seconds: float
    source_bytes: int
    store_bytes: int


def spec(name: str) -> KBSpec:
    """The spec of a KB name; :class:`UnknownNameError` lists the known ones."""
    try:
        return KBS[name]
    except KeyError:
        raise UnknownNameError("knowledge base", name, KB_NAMES) from None


def store_path(name: str) -> Path:
    """Path of the store file of KB ``name`` (it may not exist yet)."""
    return paths.kb_dir() / f"{spec(name).name}.sqlite"


def _manifest_path() -> Path:
    return paths.kb_dir() / "manifest.json"


def manifest() -> dict[str, dict[str, Any]]:
    """The install manifest (``{}`` before the first install or if it is unreadable)."""
    try:
        data = json.loads(_manifest_path().read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_manifest(entries: dict[str, dict[str, Any]]) -> None:
    path = _manifest_path()
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(entries, indent=2, sort_keys=True), encoding="utf-8")
    os.replace(tmp, path)


def installed(name: str) -> dict[str, Any] | None:
    """The manifest entry of KB ``name`` if its store is present and current, else ``None``."""
    entry = manifest().get(spec(name).name)
    path = store_path(name)
    if not entry or entry.get("format") != FORMAT_VERSION or not path.is_file():
        return None
    return entry if path.stat().st_size == entry.get("store_bytes") else None


def _source_key(kb: KBSpec, from_files: Sequence[Path]) -> str:
    if not from_files:
        return kb.source
    return "files: " + ", ".join(f"{p.resolve()} sha256={sha256(p)}" for p in from_files)


def _files_release(from_files: Sequence[Path]) -> str:
    """The release of a ``--from`` install whose files state none: their names and SHA-256 prefixes.

    Never the release of the data knowsum ships (a user's own theorem list is not the bundled snapshot).
    """
    return "from file " + ", ".join(f"{p.name} (sha256 {sha256(p)[:12]})" for p in from_files)


@contextlib.contextmanager
def _disk_faults(out: Path) -> Iterator[None]:
    """Re-raise a store write that failed on a full or read-only disk as that :class:`OSError`."""
    try:
        yield
    except sqlite3.Error as exc:  # the genes KB writes its store while building
        if (fault := disk_fault(exc, out)) is None:
            raise
        raise OSError(fault, os.strerror(fault), str(out)) from exc


def _check_from(kb: KBSpec, from_files: Sequence[Path], data: OntologyData) -> None:
    """Refuse (before anything is written) a ``--from`` file of another KB or without its root(s).

    Raises:
        InputError: none of the file's IDs has ``kb``'s ID syntax (an HPO file given for doid), or a
            root the KB records (:data:`~knowsum.kb._registry.ROOTS`) is not among its terms.
    """
    shown = ", ".join(str(f) for f in from_files)
    syntax = SYNTAX.get(kb.name)
    if syntax is not None and not any(syntax.normalize(t) == t for t in data.terms):
        first = next(iter(data.terms), None)
        seen = f"its {len(data.terms)} IDs (first: {first})" if first else "it has no entries and"
        want = f"{syntax.prefix}…" if syntax.prefix else f"matching {syntax.pattern}"
        raise InputError(
            f"--from {shown}: none of {seen} is a {kb.name} ID ({want}): give {kb.from_formats} "
            f"of {kb.name}, or install the file under the KB its IDs belong to"
        )
    missing = [r for r in ROOTS.get(kb.name, "").split() if r not in data.terms]
    if missing:
        raise InputError(
            f"--from {shown}: no term {', '.join(missing)}, the root of {kb.name} whose children are "
            f"its categories (kb categories, the strict criterion): give a file that has it"
        )


def _install_one(kb: KBSpec, from_files: Sequence[Path], force: bool, progress: Progress) -> InstallResult:
    for f in from_files:
        if f.is_dir():
            raise InputError(f"--from {f}: is a directory: give a file in it ({kb.from_formats})")
        if not f.exists():
            raise InputError(f"--from {f}: file not found")
        if not f.is_file():  # hashed, then read to build the store: a pipe's data would be gone
            raise InputError(
                f"--from {f}: must be a regular file (a pipe cannot be read twice, and an install "
                "reads it twice): write it to a file first"
            )
    key = _source_key(kb, from_files)
    current = installed(kb.name)
    if current is not None and current.get("source_key") == key and not force:
        return InstallResult(
            kb.name,
            True,
            int(current["n_terms"]),
            0.0,
            int(current.get("source_bytes", 0)),
            int(current["store_bytes"]),
        )
    t0 = time.perf_counter()
    out = store_path(kb.name)
    with _disk_faults(out):
        data, n, sources = kb.build_from(from_files, out, progress) if from_files else kb.build(out, progress)
    if data is not None and from_files:
        _check_from(kb, from_files, data)
    file_release = data.release if data is not None and "from file" not in data.release else ""
    release = (file_release or _files_release(from_files)) if from_files else kb.release
    if data is not None:
        data.release = release
        progress(f"writing {out.name} ({n} terms)")
        with _disk_faults(out):
            write_store(data, out)
    lo, hi = kb.expected
    if not from_files and not lo <= n <= hi:
        progress(f"warning: {kb.name} has {n} entries, outside the expected {lo}-{hi}")
    seconds = round(time.perf_counter() - t0, 2)
    source_bytes = sum(p.stat().st_size for p in sources)
    entry: dict[str, Any] = {
        "format": FORMAT_VERSION,
        "source": kb.source if not from_files else "file",
        "source_key": key,
        "release": release,
        "n_terms": n,
        "store": out.name,
        "store_bytes": out.stat().st_size,
        "sources": {p.name: {"sha256": sha256(p), "bytes": p.stat().st_size} for p in sources},
        "source_bytes": source_bytes,
        "seconds": seconds,
        "installed_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    entries = manifest()
    entries[kb.name] = entry
    _write_manifest(entries)
    return InstallResult(kb.name, False, n, seconds, source_bytes, out.stat().st_size)


@contextlib.contextmanager
def _locked() -> Iterator[None]:
    """Serialize installs of concurrent processes (the manifest is read-modified-written)."""
    with open(paths.kb_dir() / ".install.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def install(
    names: Sequence[str],
    from_files: Sequence[Path] = (),
    force: bool = False,
    progress: Progress | None = None,
) -> list[InstallResult]:
    """Install (or verify) knowledge bases.

    Args:
        names: KB names, or ``["all"]``.
        from_files: User files in a standard format (``--from``); needs exactly one KB name.
        force: Rebuild even when the manifest says the KB is current.
        progress: Called with one line per step (the CLI prints them to stderr).

    Raises:
        UnknownNameError: an unknown KB name. SourceError: a source that cannot be fetched or read
            (with several names the others are still installed; the first failure is raised at the end).
    """
    report = progress or (lambda _msg: None)
    chosen = list(KB_NAMES) if list(names) == ["all"] else [spec(n).name for n in names]
    if not chosen:
        raise InputError("name at least one knowledge base (or 'all'); known: " + ", ".join(KB_NAMES))
    if from_files and len(chosen) != 1:
        raise InputError("--from FILE needs exactly one knowledge-base name")
    results: list[InstallResult] = []
    failures: list[KnowsumError] = []
    with _locked():
        for i, name in enumerate(dict.fromkeys(chosen), 1):

            def step(msg: str, _i: int = i, _name: str = name) -> None:
                report(f"[{_i}/{len(chosen)}] {_name}: {msg}")

            try:
                res = _install_one(KBS[name], from_files, force, step)
            except KnowsumError as exc:
                if len(chosen) == 1:
                    raise
                step(f"failed: {exc}")  # go on with the others, raise at the end
                failures.append(exc)
                continue
            step(
                "already installed"
                if res.skipped
                else f"installed {res.n_terms} entries in {res.seconds:.1f} s"
            )
            results.append(res)
    if failures:
        raise failures[0]
    return results


_CACHE: dict[tuple[str, float], Ontology] = {}


def _require(name: str, genes: bool) -> Path:
    kb = spec(name)
    if kb.is_genes != genes:
        if kb.is_genes:
            raise InputError(
                f"knowledge base {name!r} is a gene store (gene records), not an ontology: give an "
                "ontology here (go, doid, hpo, uberon, icd10, mesh, …; `knowsum kb list` shows them)"
            )
        raise InputError(
            f"knowledge base {name!r} is an ontology, not gene records: give the gene knowledge base (genes)"
        )
    if installed(name) is None:
        raise KBNotInstalledError(
            f"knowledge base {name!r} is not installed: run `knowsum kb install {name}`"
        )
    return store_path(name)


def load_ontology(name: str) -> Ontology:
    """Open an installed ontology KB (cached per process until the store changes).

    Raises:
        UnknownNameError: unknown name. KBNotInstalledError: says the install command.
        SourceError: the store is corrupt.
    """
    path = _require(name, genes=False)
    key = (name, path.stat().st_mtime)
    if key not in _CACHE:
        _CACHE[key] = Ontology.open(name, path)
    return _CACHE[key]


def load_genes() -> GeneStore:
    """Open the installed gene store (``knowsum kb install genes``)."""
    return GeneStore(_require("genes", genes=True))
