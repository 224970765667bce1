"""The folder of a ``census sweep``: what it holds, and whose it is.

A sweep's folder ``OUT`` holds its cells (``OUT/<cell>``: ordinary census run folders named
``T<temperature>-P<top-p>-A<answers>-<prompt variant>``), ``sweep.json``, ``sweep.html`` and the
claim marker. It is claimed before anything is asked, as every multi-run folder is
(:func:`knowsum._util.claim_folder`, :func:`sweep_identity`):

- a folder holding anything else (the user's files, a run's own files) is refused, with or without
  ``overwrite``: knowsum replaces only what it wrote;
- the same sweep (task, model and the values of the four swept settings) resumes there;
- another sweep is refused naming the first setting that differs, unless ``overwrite``: then its
  cells and pages are removed first, so no cell of the old grid is left beside the new one.

A sweep folder written before sweep folders were claimed is claimed first for the sweep its
``sweep.json`` names (:func:`claim_earlier`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from knowsum._util import CLAIM_NAME, claim_folder, run_folders_above
from knowsum.errors import OutputError
from knowsum.records import is_run_like

__all__ = ["SWEEP_FILES", "claim_sweep_folder", "sweep_entry", "sweep_identity"]

SWEEP_FILES = ("sweep.json", "sweep.html")
"""The files a sweep writes beside its cells."""

WHAT = "census sweep"
"""The ``what`` of a sweep's claim: a folder claimed by anything else is not a sweep's."""

_CELL = re.compile(r"^T(?P<t>.+?)-P(?P<p>.+?)-A(?P<a>\d+)-(?P<v>full|simple)$")
"""A cell folder's name (:meth:`knowsum.census._sweep.SweepCell.slug`)."""


def sweep_entry(entry: Path) -> bool:
    """Whether ``entry`` (top level of a sweep folder) is one a sweep writes: its ``sweep.json`` (an
    object naming a task and cells), its ``sweep.html`` (a page), or a cell folder (named as cells
    are) holding only what a run writes. A file of the user's of the same name is not."""
    if entry.is_symlink():
        return False
    if entry.is_dir():
        return _CELL.match(entry.name) is not None and is_run_like(entry)
    if not entry.is_file() or entry.name not in SWEEP_FILES:
        return False
    if entry.name == "sweep.html":
        try:
            with entry.open("rb") as fh:
                head = fh.read(64).decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
        except OSError:
            return False
        return head[:15].lower().startswith("<!doctype html")
    data = _read_json(entry)
    return (
        isinstance(data, dict) and isinstance(data.get("task"), str) and isinstance(data.get("cells"), list)
    )


def _joined(values: Iterable[Any]) -> str:
    return ",".join(f"{v:g}" if isinstance(v, float) else str(v) for v in sorted(set(values)))


def sweep_identity(task: str, model: str, slugs: Sequence[str]) -> dict[str, str]:
    """What makes two sweeps the same one (the claim of their folder): the task, the model and the
    values of each swept setting, read from the cells' folder names ``slugs`` (order-free: the
    grid ``--answers 20,10`` is the grid ``--answers 10,20``).

    Raises:
        ValueError: a name that is not a cell's.
    """
    parts = [_CELL.match(s) for s in slugs]
    if not parts or any(p is None for p in parts):
        raise ValueError(f"not sweep cells: {list(slugs)}")
    found = [p for p in parts if p is not None]
    return {
        "what": WHAT,
        "task": task,
        "model": model,
        "temperature": _joined(float(p["t"]) for p in found),
        "top-p": _joined(float(p["p"]) for p in found),
        "answers": _joined(int(p["a"]) for p in found),
        "prompt variant": _joined(p["v"] for p in found),
    }


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def claim_earlier(root: Path) -> None:
    """Claim a sweep folder written before sweep folders were claimed for the sweep its
    ``sweep.json`` names (task, cells and the model its first cell's record names); a folder
    without a readable ``sweep.json`` is left unclaimed."""
    if (root / CLAIM_NAME).exists():
        return
    data = _read_json(root / "sweep.json")
    if not isinstance(data, dict) or not isinstance(data.get("task"), str):
        return
    cells = data.get("cells")
    named = [c.get("cell") for c in cells if isinstance(c, dict)] if isinstance(cells, list) else []
    slugs = [s for s in named if isinstance(s, str)]
    if not slugs or len(slugs) != len(named):
        return
    record = _read_json(root / slugs[0] / "result.json")
    model = record.get("model") if isinstance(record, dict) else None
    if not isinstance(model, str):
        return
    try:
        identity = sweep_identity(data["task"], model, slugs)
    except ValueError:
        return
    claim_folder(root, identity, owns=sweep_entry)


def _refuse_other_claim(root: Path) -> None:
    """Refuse a folder another kind of knowsum run claimed (a profile, a back-test).

    Raises:
        OutputError: ``root``'s claim is not a sweep's.
    """
    data = _read_json(root / CLAIM_NAME)
    if (root / CLAIM_NAME).exists() and (not isinstance(data, dict) or data.get("what") != WHAT):
        raise OutputError(
            f"--out {root} is claimed by another knowsum command (its {CLAIM_NAME} names no census "
            "sweep): a sweep writes its cells into a folder of its own; give another --out"
        )


def claim_sweep_folder(root: Path, identity: Mapping[str, str], *, overwrite: bool = False) -> bool:
    """Claim ``root`` for the sweep ``identity`` (see the module docstring); call it before asking
    anything. Whether ``root`` was created by this call.

    Raises:
        OutputError: ``root`` is a run folder or lies inside one, is a file, holds files a sweep does
            not write, is another command's folder, or holds another sweep (without ``overwrite``;
            the message names the first differing setting).
    """
    if (root / "result.json").is_file() or (above := run_folders_above(root)):
        where = root if (root / "result.json").is_file() else above[0]
        raise OutputError(
            f"--out {root} is the run folder {where}, or inside it: a sweep writes its cells into a "
            "folder of its own; give another --out"
        )
    if root.exists() and not root.is_dir():
        raise OutputError(f"--out {root} is a file, not a folder: give a folder path")
    created = not root.exists()
    if not created:
        _refuse_other_claim(root)
        claim_earlier(root)
    claim_folder(root, identity, owns=sweep_entry, overwrite=overwrite)
    return created
