"""The instrument of docs/plugins.md, taken from the page and installed as a package would be.

Every fenced block of the page whose first line is ``# file: PATH`` is a file of the tutorial's
package (blocks naming one file are joined in page order). :func:`install_tutorial` writes them into
a folder, and installs the package the way pip leaves one: its ``src/`` on ``sys.path`` beside a
``*.dist-info`` holding the entry points of its ``pyproject.toml``, so ``importlib.metadata`` (and
knowsum's registry) finds it as it finds any installed plug-in.
"""

from __future__ import annotations

import re
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from knowsum.instrument import installed

PAGE = Path(__file__).resolve().parents[2] / "docs" / "plugins.md"
_FENCE = re.compile(r"^```[a-z]*\n# file: (?P<path>\S+)\n(?P<body>.*?)^```$", re.S | re.M)

__all__ = ["PAGE", "installed_tutorial", "tutorial_files"]


def tutorial_files(page: Path = PAGE) -> dict[str, str]:
    """Path → content of every ``# file:`` block of ``page`` (joined in page order)."""
    files: dict[str, str] = {}
    for match in _FENCE.finditer(page.read_text(encoding="utf-8")):
        path, body = match["path"], match["body"]
        files[path] = files[path] + "\n\n" + body if path in files else body
    return files


def _dist_info(root: Path, project: dict[str, object]) -> None:
    """``<name>-<version>.dist-info`` with METADATA and entry_points.txt, as pip writes them."""
    name, version = str(project["name"]), str(project["version"])
    info = root / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    groups = project.get("entry-points", {})
    assert isinstance(groups, dict)
    lines = [
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items())
        for group, entries in groups.items()
    ]
    (info / "entry_points.txt").write_text("\n".join(lines), encoding="utf-8")


@contextmanager
def installed_tutorial(folder: Path, files: dict[str, str] | None = None) -> Iterator[Path]:
    """The tutorial's package (or ``files``, path → content: a variant of it) written into ``folder``
    and installed while the block runs (the registry re-read on entry and on exit); yields the
    package's folder."""
    files = tutorial_files() if files is None else files
    for rel, text in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    project = tomllib.loads(files["pyproject.toml"])["project"]
    src = folder / "src"
    _dist_info(src, project)
    sys.path.insert(0, str(src))
    installed.cache_clear()
    try:
        yield folder
    finally:
        sys.path.remove(str(src))
        for module in [m for m in sys.modules if m.split(".")[0] == "knowsum_capitals"]:
            del sys.modules[module]
        installed.cache_clear()
