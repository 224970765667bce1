"""The documentation site's two MkDocs hooks (``docs/_hooks/``); ``make docs`` builds the site with them.

``make test`` builds the whole site with ``mkdocs build --strict`` (a broken link, anchor, nav entry or
docstring fails it); these tests pin what the hooks change and what they leave for ``--strict`` to catch.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests._examples import ROOT


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "_hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_pending_page_is_left_out_of_the_nav_until_it_exists_and_nothing_else_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pending = _hook("pending")
    monkeypatch.setattr(pending, "PENDING", frozenset({"foresee.md", "plugins.md", "inspect.md"}))
    (tmp_path / "index.md").write_text("# x\n")
    (tmp_path / "plugins.md").write_text("# written\n")
    nav: list[Any] = [
        {"Home": "index.md"},
        {"Instruments": [{"Foresee": "foresee.md"}, {"Typo": "censsu.md"}]},
        {"Inspect": "inspect.md"},
        {"Plugins": "plugins.md"},
    ]
    kept = pending._prune(nav, tmp_path)
    # foresee.md and inspect.md are pending and not written: left out; plugins.md is written: kept;
    # censsu.md is not pending: kept, so `mkdocs build --strict` reports it
    assert kept == [
        {"Home": "index.md"},
        {"Instruments": [{"Typo": "censsu.md"}]},
        {"Plugins": "plugins.md"},
    ]


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
