"""Where knowsum keeps its data: the knowsum home.

``KNOWSUM_HOME`` (environment) overrides the default, which is ``knowsum`` under the XDG user data
dir (``~/.local/share/knowsum`` on Linux). Layout::

    $KNOWSUM_HOME/
        models/      GGUF weights installed by ``knowsum models install``
        kb/          normalized knowledge bases installed by ``knowsum kb install``
        cache/       downloaded registry artifacts (wheels, .deb files), kept to avoid re-downloads
        store.sqlite the response store
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["cache_dir", "home", "kb_dir", "models_dir", "store_path"]


def home() -> Path:
    """The knowsum home directory (created on first use)."""
    env = os.environ.get("KNOWSUM_HOME")
    root = Path(env).expanduser() if env else Path(platformdirs.user_data_dir("knowsum"))
    root.mkdir(parents=True, exist_ok=True)
    return root


def _sub(name: str) -> Path:
    path = home() / name
    path.mkdir(parents=True, exist_ok=True)
    return path


def models_dir() -> Path:
    """Directory of installed model weights."""
    return _sub("models")


def kb_dir() -> Path:
    """Directory of installed, normalized knowledge bases."""
    return _sub("kb")


def cache_dir() -> Path:
    """Directory of downloaded registry artifacts."""
    return _sub("cache")


def store_path() -> Path:
    """Default path of the SQLite response store."""
    return home() / "store.sqlite"
