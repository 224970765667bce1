"""The package's shape, checked from the source (``make lint`` runs this file).

- **Public faces only**: no module imports another package's private (``_``) module; what crosses a
  package boundary is exported in that package's ``__init__`` (``knowsum._util`` is imported through
  its ``__init__`` too).
- **Layers point downward** (DESIGN.md): cli → harness → profile → instruments → instrument (the
  interface and its registry) and cliutil (the options every command group uses) →
  models/kb/stats/report → records → _util → errors. The profile reaches
  the instruments through the registry only.
- **Small modules**: none over 400 lines, no CLI module over 300.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "knowsum"

FOUNDATION = {"errors", "caveats", "_util", "records", "__init__"}
LOWER = {"models", "kb", "stats", "report"}
INSTRUMENTS = {"census", "recall", "genebench", "estimate"}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "caveats": set(),  # the one caveat type, held by stats and records alike
    "__init__": {"instrument"},  # the lazy top-level re-export knowsum.Instrument (PEP 562)
    "_util": {"errors"},
    "records": {"errors", "caveats", "_util", "__init__"},
    "stats": {"caveats"},
    "models": FOUNDATION,
    "kb": FOUNDATION,
    "report": FOUNDATION | {"stats"},
    "instrument": FOUNDATION | LOWER,
    "cliutil": FOUNDATION | LOWER,  # the options and write guard every command group is built from
    **{name: FOUNDATION | LOWER | {"instrument", "cliutil"} for name in INSTRUMENTS},
    "profile": FOUNDATION | LOWER | {"instrument"},
    "harness": FOUNDATION | LOWER | INSTRUMENTS | {"instrument"},
    "cli": FOUNDATION | LOWER | INSTRUMENTS | {"instrument", "cliutil", "profile", "harness"},
}
"""Package → the packages it may import (its own always)."""


def _modules() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _package(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{a.name}") for a in node.names)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, a.name) for a in node.names)
    return [(line, name) for line, name in found if name == "knowsum" or name.startswith("knowsum.")]


def _private_import(own: str, name: str) -> bool:
    """Whether ``name`` reaches into another package's private module (``knowsum.pkg._mod``)."""
    parts = name.split(".")[1:]
    if not parts:
        return False
    if parts[0] == own:
        return False
    if parts[0] == "_util":  # through its __init__ only: knowsum._util.NAME
        return len(parts) > 2 or (len(parts) == 2 and parts[1].startswith("_"))
    return any(p.startswith("_") and p != "__version__" for p in parts[1:2])


def test_no_module_imports_another_packages_private_module() -> None:
    bad = [
        f"{path.relative_to(SRC.parent)}:{line}: {name}"
        for path in _modules()
        for line, name in _imports(path)
        if _private_import(_package(path), name)
    ]
    assert not bad, "import the package's public face instead:\n" + "\n".join(sorted(set(bad)))


def test_layers_point_downward() -> None:
    bad = []
    for path in _modules():
        own = _package(path)
        allowed = ALLOWED.get(own)
        assert allowed is not None, f"{path}: package {own!r} has no place in the layers; add it to ALLOWED"
        for line, name in _imports(path):
            parts = name.split(".")
            target = parts[1] if len(parts) > 1 else "__init__"
            if target.startswith("__") and target != "__init__":
                target = "__init__"  # knowsum.__version__
            if target != own and target not in allowed:
                bad.append(f"{path.relative_to(SRC.parent)}:{line}: {own} imports {target}")
    assert not bad, "imports against the layer order:\n" + "\n".join(sorted(set(bad)))


@pytest.mark.parametrize(("where", "limit"), [("", 400), ("cli", 300), ("cliutil", 300)])
def test_modules_are_small(where: str, limit: int) -> None:
    root = SRC / where if where else SRC
    big = [
        f"{p.relative_to(SRC.parent)}: {n} lines"
        for p in sorted(root.rglob("*.py"))
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > limit
    ]
    assert not big, f"modules over {limit} lines (split them by responsibility):\n" + "\n".join(big)


def test_private_import_rule() -> None:
    assert _private_import("cli", "knowsum.census._config")
    assert _private_import("census", "knowsum.models._local.default_threads")
    assert _private_import("census", "knowsum._util.atomic.atomic_write")
    assert not _private_import("census", "knowsum._util.atomic_write")
    assert not _private_import("census", "knowsum.census._config")
    assert not _private_import("cli", "knowsum.census.run_census")
    assert not _private_import("cli", "knowsum.__version__")


def test_user_facing_text_names_no_tracker_issue() -> None:
    """README, docs, examples and the package say what is true and why, never "see issue 16"."""
    import re

    root = SRC.parents[1]
    pattern = re.compile(r"issues? [0-9]+", re.IGNORECASE)
    files = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    files += [p for p in sorted((root / "examples").rglob("*")) if p.is_file() and p.suffix != ".png"]
    files += _modules()
    bad = [
        f"{path.relative_to(root)}:{n}: {line.strip()[:100]}"
        for path in files
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not bad, "name what is true, not the tracker:\n" + "\n".join(bad)


GENERIC = ("records", "report", "cli", "harness", "profile", "instrument")
INSTRUMENT_NAME = re.compile(
    r"(?<![a-z])(?:census|recall|genebench|estimate)(?![a-z])"
    r"|(?:Census|Recall|Genebench|GeneBench|Estimate)(?![a-z])"
    r"|(?:CENSUS|RECALL|GENEBENCH|ESTIMATE)(?![A-Z])"
)
"""A built-in instrument's name as a word of an identifier or a string (``census``, ``CensusRecord``,
``run_census``, ``"knowsum census run"``, ``CENSUS_DIR``); ``estimates`` or ``recalled`` are other words."""
NAME_TARGET = 20
NAME_LIMIT = 10
"""The count today; it only goes down, to :data:`NAME_TARGET` (a ratchet)."""


def _texts(tree: ast.AST) -> list[tuple[int, str]]:
    """Every identifier, attribute, import path and string literal of ``tree``, docstrings left out."""
    docs = {
        id(stmt.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        for stmt in node.body
        if isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    }
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            found.append((line, node.id))
        elif isinstance(node, ast.Attribute):
            found.append((line, node.attr))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            found.append((line, node.name))
        elif isinstance(node, ast.arg):
            found.append((line, node.arg))
        elif isinstance(node, ast.keyword) and node.arg:
            found.append((node.value.lineno, node.arg))
        elif isinstance(node, ast.ImportFrom):
            found.append((line, node.module or ""))
        elif isinstance(node, ast.alias):
            found.append((line, f"{node.name} {node.asname or ''}"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found.append((line, node.value))
    return found


def instrument_names() -> list[str]:
    """``path:line: text`` for each time a generic package names a built-in instrument (no docstrings)."""
    return [
        f"{path.relative_to(SRC.parent)}:{line}: {text[:60]!r}"
        for pkg in GENERIC
        for path in sorted((SRC / pkg).rglob("*.py"))
        for line, text in _texts(ast.parse(path.read_text(encoding="utf-8")))
        for _ in INSTRUMENT_NAME.findall(text)
    ]


def test_generic_packages_name_no_instrument() -> None:
    """records/ report/ cli/ harness/ profile/ instrument/ reach instruments through the registry only.

    A ratchet: the count may only fall, towards NAME_TARGET (migration maps of old files and the
    entry-point list are all that should remain).
    """
    found = instrument_names()
    print(f"generic packages name an instrument {len(found)} times (target {NAME_TARGET})")
    assert len(found) <= NAME_LIMIT, (
        f"generic packages name an instrument {len(found)} times, over the limit {NAME_LIMIT} "
        f"(target {NAME_TARGET}); reach instruments through the registry:\n" + "\n".join(found)
    )


def test_instrument_name_counter() -> None:
    source = '"""census docstring."""\nfrom knowsum.census import CensusRecord\nx = run_census("recalled")\n'
    tree = ast.parse(source)
    assert len([t for _, t in _texts(tree) for _ in INSTRUMENT_NAME.findall(t)]) == 3


PROSE_LIMIT = 50
"""Every mention in the generic packages' text, docstrings and comments included: the examples of
``--help`` and the inspect task list name knowsum's own instruments on purpose; the rest speak of
"an instrument". A ratchet, as :data:`NAME_LIMIT`."""


def test_generic_prose_names_instruments_only_in_examples() -> None:
    found = [
        f"{path.relative_to(SRC.parent)}:{n}: {line.strip()[:80]}"
        for pkg in GENERIC
        for path in sorted((SRC / pkg).rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        for _ in INSTRUMENT_NAME.findall(line)
    ]
    assert len(found) <= PROSE_LIMIT, (
        f"generic packages' text names an instrument {len(found)} times, over {PROSE_LIMIT}; write "
        '"an instrument", or name one only in a user-facing example:\n' + "\n".join(found)
    )
