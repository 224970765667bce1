"""Old public names that still work: a module's ``__getattr__`` that finds each one where it lives now,
with a ``DeprecationWarning`` naming the new place (PEP 562)."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping

__all__ = ["old_names"]


def old_names(module: str, names: Mapping[str, tuple[str, str]]) -> Callable[[str], object]:
    """The ``__getattr__`` of ``module`` for its old names: old name → (the module that holds it now,
    its name there). Any other name is an ``AttributeError``, as without the hook."""

    def find(name: str) -> object:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, new = names[name]
        warnings.warn(
            f"{module}.{name} is now {where}.{new}: import it from {where}", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(where), new)

    return find
