"""The documentation site: its nav, its MkDocs hook (``docs/_hooks/``) and the built site.

``make test`` builds the whole site with ``mkdocs build --strict`` (a broken link, anchor, nav entry or
docstring fails it); these tests pin the nav's pages and what the hook changes, and build the site
once more into a temporary folder (``mkdocs build --strict -d TMP``, ~15 s) to check what a reader
gets: no warning, no docstring section left as raw text, and a ``site/index.html`` that works from
disk (``file://``) in headless Chromium, its links and its search included.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
import time
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from tests._examples import ROOT
from tests.report._cdp import Browser

# The Google-style section titles griffe parses: one of them as a line of a <pre> block, or opening a
# paragraph with text after it, is a docstring section mkdocstrings did not parse (rendered raw).
_SECTION = (
    r"(?:Args|Arguments|Params|Parameters|Other Parameters|Keyword Args|Keyword Arguments|Attributes|"
    r"Returns|Return|Yields|Receives|Raises|Exceptions|Warns|Warnings|Examples?|Notes?|References|"
    r"See Also|Todo|Methods|Functions|Classes|Modules|Type Parameters|Type Aliases)"
)
_RAW_IN_PRE = re.compile(rf"^\s*{_SECTION}:\s*$", re.M)
_RAW_IN_P = re.compile(rf"<p>\s*{_SECTION}:\s*[^\s<]")
_PRE = re.compile(r"<pre\b[^>]*>(.*?)</pre>", re.S)
_TAG = re.compile(r"<[^>]+>")
_LINK = re.compile(r"""<(?:a|link|script|img|source|iframe)\b[^>]*?\b(?:href|src)=["']([^"']*)["']""")
_OUTSIDE = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*?\b(?:href|src)=["'](?:https?:)?//""")


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


def test_make_docs_builds_strict_and_shows_the_warnings() -> None:
    """``--quiet`` hides the warnings that ``--strict`` counts (mkdocs logs them below its level), so a
    quiet strict build passes with warnings: the Makefile's build is strict and not quiet."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^docs:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe is not None
    build = [line for line in recipe.group(1).splitlines() if "mkdocs build" in line]
    assert len(build) == 1 and "--strict" in build[0]
    assert not re.search(r"\s(?:--quiet|-q)\b", build[0])


def test_the_docs_toolchain_is_pinned_to_what_is_installed() -> None:
    """The ``docs`` extra pins every package the build uses to one version (a release that renders or
    warns differently cannot fail ``--strict`` unannounced), and the environment has those versions."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]["docs"]
    pins = dict(req.split("==") for req in extra)
    assert len(pins) == len(extra)  # each one pinned with ==
    assert {"mkdocs", "mkdocs-material", "mkdocstrings", "mkdocstrings-python", "griffelib"} <= set(pins)
    try:
        installed = {name: version(name) for name in pins}
    except PackageNotFoundError:
        pytest.skip("the docs extra is not installed (pip install -e '.[docs]')")
    assert installed == pins


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The site built the way ``make docs`` builds it, into a temporary folder; and the build's log."""
    pytest.importorskip("mkdocs", reason="the docs extra is not installed (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    return out, log


def _html(site_dir: Path) -> dict[str, str]:
    return {
        p.relative_to(site_dir).as_posix(): p.read_text(encoding="utf-8") for p in site_dir.rglob("*.html")
    }


@pytest.mark.slow  # the site's build, ~15 s
def test_the_strict_build_warns_of_nothing(site: tuple[Path, str]) -> None:
    _, log = site
    assert [line for line in log.splitlines() if "WARNING" in line] == []


@pytest.mark.slow  # the site's build, ~15 s
def test_no_docstring_section_is_left_raw(site: tuple[Path, str]) -> None:
    """Every ``Args:``/``Attributes:``/``Raises:``… section is parsed into its table: none shows as a
    ``<pre>`` block (a docstring whose indentation breaks, e.g. a ``\\n`` escape in a non-raw string)
    nor as a paragraph (an entry griffe cannot split into name and description)."""
    site_dir, _ = site
    raw = []
    for name, html in _html(site_dir).items():
        for block in _PRE.findall(html):
            raw += [f"{name}: <pre> {m.group().strip()}" for m in _RAW_IN_PRE.finditer(_TAG.sub("", block))]
        raw += [f"{name}: {m.group()}" for m in _RAW_IN_P.finditer(html)]
    assert raw == []
    assert _RAW_IN_PRE.search("x = 1\n    Attributes:\n        genes: the pool\n")  # what it catches
    assert _RAW_IN_P.search("<p>Raises:\nInputError: bad</p>")


@pytest.mark.slow  # the site's build, ~15 s
def test_every_link_opens_a_file_from_disk(site: tuple[Path, str]) -> None:
    """Links name files (``tour.html``, not ``tour/``, which ``file://`` opens as a folder listing),
    every file a page links to exists, and no page loads anything from another server."""
    site_dir, _ = site
    pages = _html(site_dir)
    assert {"index.html", "tour.html", "api/stats.html", "search/search_index.js"} <= {
        *pages,
        *(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.js")),
    }
    broken, outside = [], []
    for name, html in pages.items():
        if name == "404.html":
            continue  # a web server's page for any missing path: root-absolute links, never opened from disk
        outside += [f"{name}: {m.group()}" for m in _OUTSIDE.finditer(html)]
        for href in _LINK.findall(html):
            parts = urlsplit(href)
            if parts.scheme or parts.netloc or not parts.path:
                continue  # another site, mailto:, or an anchor on this page
            target = (site_dir / name).parent / unquote(parts.path)
            if not target.is_file():
                broken.append(f"{name} -> {href}")
    assert broken == []
    assert outside == []


def _goto(browser: Browser, url: str) -> None:
    """Navigate and wait for the new page's ``load`` event."""
    browser.events.clear()
    browser.call("Page.navigate", {"url": url}, session=True)
    deadline = time.monotonic() + browser.timeout
    while not any(e.get("method") == "Page.loadEventFired" for e in browser.events):
        browser.events.append(browser._read(deadline))


def _wait_for(browser: Browser, expression: str, seconds: float = 20.0) -> Any:
    """The value of ``expression`` once it is truthy (polled), or its last value after ``seconds``."""
    deadline = time.monotonic() + seconds
    value = browser.evaluate(expression)
    while not value and time.monotonic() < deadline:
        time.sleep(0.1)
        value = browser.evaluate(expression)
    return value


_RESULTS = "[...document.querySelectorAll('.md-search-result__item a')].map(a => a.href)"


def _search_page(browser: Browser, url: str, word: str | None, loads: int = 5) -> Any:
    """The result links of a search on the page at ``url``: ``word`` typed into its box, or the
    query the URL carries (``?q=``) when ``word`` is None. On a busy machine the search's worker (an
    iframe, started as the page loads) has been seen not to answer at all on one load; the page is
    then loaded afresh, at most ``loads`` times."""
    found: Any = []
    for _ in range(loads):
        _goto(browser, url)
        found = _search(browser, word, seconds=30.0) if word else _wait_for(browser, _RESULTS, 30.0)
        if found:
            break
    return found


def _search(browser: Browser, word: str, seconds: float = 180.0) -> Any:
    """The result links of ``word`` typed into the search box. The index loads in the background (a
    worker in an iframe), and a query typed before it is ready is not run again when it is: the words
    are typed anew every few seconds until results show, or ``seconds`` pass (a safety net, not a pace:
    beside two busy cores the first results took up to ~45 s)."""
    deadline = time.monotonic() + seconds
    found: Any = []
    while not found and time.monotonic() < deadline:
        browser.evaluate("(i => { i.focus(); i.value = ''; })(document.querySelector('.md-search__input'))")
        browser.call("Input.insertText", {"text": word}, session=True)
        found = _wait_for(browser, _RESULTS, seconds=5.0)
    return found


@pytest.mark.slow  # the site's build, and Chromium
def test_the_site_works_from_disk_in_headless_chromium(site: tuple[Path, str], browser_bin: str) -> None:
    """``site/index.html`` opened as a file: the nav's links open pages, and the search finds words
    (its index is a script and its worker runs in an iframe: ``file://`` allows neither fetch nor a
    Web Worker)."""
    site_dir, _ = site
    index = (site_dir / "index.html").as_uri()
    with Browser(browser_bin, timeout=60) as b:
        _goto(b, index)
        nav = b.evaluate(
            "[...document.querySelectorAll('nav.md-nav--primary a.md-nav__link[href]')].map(a => a.href)"
        )
        assert len(nav) >= 20
        files = [Path(unquote(urlsplit(u).path)) for u in nav]
        assert [f for f in files if f.suffix != ".html" or not f.is_file()] == []
        assert site_dir / "api" / "stats.html" in files

        b.evaluate(
            "[...document.querySelectorAll('a.md-nav__link')].find(a => /tour.html$/.test(a.href)).click()"
        )
        assert _wait_for(b, "location.href.endsWith('/tour.html') && document.querySelector('h1') !== null")
        assert b.evaluate("document.querySelector('h1').textContent").startswith("A tour")

        # a page one folder down, the words typed into the search box
        found = _search_page(b, (site_dir / "api" / "stats.html").as_uri(), "prevalence")
        assert found, "no search result for 'prevalence'"
        hits = [Path(unquote(urlsplit(u).path)) for u in found]
        assert site_dir / "api" / "stats.html" in hits
        assert all(h.is_file() for h in hits)

        # the search a link can carry (?q=)
        assert _search_page(b, index + "?q=genebench", None)
        assert b.errors() == []
