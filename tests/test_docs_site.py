"""The documentation site's nav and its MkDocs hook (``docs/_hooks/``); ``make docs`` builds the site.

``make test`` builds the whole site with ``mkdocs build --strict`` (a broken link, anchor, nav entry or
docstring fails it); these tests pin the nav's pages and what the hook changes.
"""

from __future__ import annotations

import importlib.util
from types import ModuleType
from typing import Any

import yaml

from tests._examples import ROOT


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pages(nav: list[Any]) -> list[str]:
    out: list[str] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += _pages(value) if isinstance(value, list) else [value]
    return out


def test_every_chapter_in_the_nav_has_its_page() -> None:
    """No nav entry waits for a page any more: each names a file under docs/ (``--strict`` fails on
    one that does not; this says which without building the site)."""
    nav = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    pages = _pages(nav)
    assert {"inspect.md", "plugins.md", "foresee.md", "api/harness.md"} <= set(pages)
    assert [p for p in pages if not (ROOT / "docs" / p).is_file()] == []


def test_sphinx_roles_read_as_code_and_other_pages_are_unchanged() -> None:
    roles = _hook("sphinx_roles")
    html = (
        "<p>See :func:<code>sample</code>, :class:<code>~knowsum.stats.Prevalence</code> and "
        ":mod:<code>knowsum.records</code>. Example::</p>\n<p>::</p>\n<pre>x</pre>"
    )
    assert roles.on_page_content(html) == (
        "<p>See <code>sample</code>, <code>Prevalence</code> and <code>knowsum.records</code>. Example:</p>\n"
        "<pre>x</pre>"
    )
    prose = "<p>Run <code>knowsum census run</code>: 12:30 <code>~/.local</code></p>"
    assert roles.on_page_content(prose) == prose
