"""Old public names that still work: a module's ``__getattr__`` that finds each one where it lives now,
with a ``DeprecationWarning`` naming the new place (PEP 562)."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping

__all__ = ["old_names"]


OldNames = Mapping[str, tuple[str, str]]
"""Old name → (the module that holds it now, its name there)."""


def old_names(module: str, names: OldNames | Callable[[], OldNames]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``module`` for its old names: old name → (the module that holds it now,
    its name there), or a function giving that mapping when asked (so a module can learn its old
    names from the plug-ins that took them). Any other name, and any ``_private`` one, is an
    ``AttributeError``, as without the hook."""

    def find(name: str) -> object:
        table = {} if name.startswith("_") else names() if callable(names) else names
        if name not in table:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, new = table[name]
        warnings.warn(
            f"{module}.{name} is now {where}.{new}: import it from {where}", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(where), new)

    return find
