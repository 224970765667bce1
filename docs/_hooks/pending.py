"""MkDocs hook: chapters written on other branches stay in the nav and appear once their page exists.

``PENDING`` names the pages the nav already lists but that may not be written yet; until a page
exists its nav entry is left out (an info line says so). Any other nav entry without a page is still
an error under ``mkdocs build --strict``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

PENDING = frozenset({"foresee.md", "plugins.md", "inspect.md"})
log = logging.getLogger("mkdocs.hooks.pending")


def _prune(nav: list[Any], docs: Path) -> list[Any]:
    kept: list[Any] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            kept.append({next(iter(entry)): _prune(value, docs)})
        elif isinstance(value, str) and value in PENDING and not (docs / value).is_file():
            log.info("nav: %s is not written yet; left out of the nav until it is", value)
        else:
            kept.append(entry)
    return kept


def on_config(config: Any) -> Any:
    """Drop the nav entries of pending pages that do not exist yet."""
    if config.nav:
        config.nav = _prune(config.nav, Path(config.docs_dir))
    return config
