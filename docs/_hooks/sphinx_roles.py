"""MkDocs hook: the docstrings' Sphinx cross-reference roles read as plain code in the API reference.

The docstrings are Google style with Sphinx roles inside (``:func:`sample```,
``:class:`~knowsum.stats.Prevalence```), which mkdocstrings renders as text. This drops the role
(``:func:``), keeps the name as code, shortens ``~a.b.C`` to ``C`` as Sphinx does, and turns a reST
literal-block marker (``Example::``) into a colon (a bare ``::`` is dropped).
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:func|class|mod|data|meth|attr|exc|obj|const|py:\w+):(<code>)")
_TILDE = re.compile(r"<code>~(?:[\w.]+\.)?(\w+)</code>")
_BARE = re.compile(r"<p>::?</p>\n?")
_LITERAL = re.compile(r"::</p>")


def on_page_content(html: str, **_: Any) -> str:
    """Rewrite the roles of an API page (other pages have none, and are returned unchanged)."""
    if ":<code>" not in html and "::</p>" not in html:
        return html
    html = _ROLE.sub(r"\1", html)
    html = _TILDE.sub(r"<code>\1</code>", html)
    return _LITERAL.sub(":</p>", _BARE.sub("", html))
