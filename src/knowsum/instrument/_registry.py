"""Plug-ins: instruments and census tasks found through entry points, the way inspect_ai and llm do.

Two entry-point groups, each entry's value an object (``"package.module:OBJECT"``)::

    [project.entry-points."knowsum.instruments"]     # an Instrument instance
    census = "knowsum.census:INSTRUMENT"
    [project.entry-points."knowsum.census_tasks"]    # a knowsum.census.CensusTask
    compounds = "knowsum_chem:COMPOUNDS"

knowsum registers its own three instruments the same way (its ``pyproject.toml``), so the code that
composes instruments treats a plug-in and a built-in alike. The entry's name must be the object's
``name``; an entry that fails to load is reported with its package, not skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib.metadata import EntryPoint, entry_points
from typing import Any, TypeVar

from knowsum.errors import ConfigError, UnknownNameError
from knowsum.instrument._base import Instrument

__all__ = [
    "CENSUS_TASKS",
    "INSTRUMENTS",
    "Installed",
    "get_instrument",
    "installed",
    "instruments",
    "plugins",
]

INSTRUMENTS = "knowsum.instruments"
"""The entry-point group of instruments."""
CENSUS_TASKS = "knowsum.census_tasks"
"""The entry-point group of census tasks."""
T = TypeVar("T")
_ORDER = ("census", "recall", "genebench")
"""knowsum's own instruments first, in this order; plug-ins after them by name."""


@dataclass(frozen=True, slots=True)
class Installed:
    """One registered plug-in: its name, the object, and where it comes from.

    Attributes:
        name: The entry point's name (the instrument's or task's name).
        obj: The loaded object.
        package: The distribution that registers it (``knowsum``, ``knowsum-chem``).
        version: That distribution's version.
        target: The entry point's value (``knowsum_chem:COMPOUNDS``).
    """

    name: str
    obj: Any
    package: str
    version: str
    target: str


def _load(ep: EntryPoint, group: str) -> Installed:
    dist = ep.dist
    package = dist.metadata["Name"] if dist is not None else "?"
    try:
        obj = ep.load()
    except Exception as exc:  # a broken plug-in: say which one and why, in one line
        raise ConfigError(
            f"plug-in {ep.name!r} ({group}, package {package}: {ep.value}) failed to load: "
            f"{type(exc).__name__}: {exc}; reinstall or uninstall {package}"
        ) from None
    own = getattr(obj, "name", None)
    if own != ep.name:
        raise ConfigError(
            f"plug-in {ep.name!r} ({group}, package {package}: {ep.value}) is an object named {own!r}: "
            "the entry point's name must be the object's name"
        )
    return Installed(ep.name, obj, package, dist.version if dist is not None else "", ep.value)


@cache
def installed(group: str) -> tuple[Installed, ...]:
    """Everything registered under ``group``: knowsum's own first, then plug-ins by name.

    Raises:
        ConfigError: an entry fails to load, or two packages register the same name.
    """
    found = [_load(ep, group) for ep in entry_points(group=group)]
    names = [i.name for i in found]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        who = [f"{i.package}" for i in found if i.name == twice[0]]
        raise ConfigError(f"{group} {twice[0]!r} is registered twice (by {', '.join(who)}): uninstall one")
    return tuple(sorted(found, key=lambda i: (_ORDER.index(i.name) if i.name in _ORDER else 99, i.name)))


def plugins(group: str, kind: type[T], what: str) -> dict[str, T]:
    """The objects registered under ``group``, by name, each checked to be a ``kind``.

    Args:
        group: The entry-point group (:data:`INSTRUMENTS`, :data:`CENSUS_TASKS`).
        kind: The class every entry must be an instance of.
        what: How the message names ``kind`` (``knowsum.Instrument``).

    Raises:
        ConfigError: an entry does not load or is not a ``kind`` (names the entry and its package).
    """
    out: dict[str, T] = {}
    for item in installed(group):
        if not isinstance(item.obj, kind):
            raise ConfigError(
                f"plug-in {item.name!r} ({group}, package {item.package}: {item.target}) is not a {what}"
            )
        out[item.name] = item.obj
    return out


def instruments() -> dict[str, Instrument[Any, Any]]:
    """The installed instruments by name, knowsum's own first (census, recall, genebench).

    Raises:
        ConfigError: an entry does not load or is not an :class:`Instrument`.
    """
    return plugins(INSTRUMENTS, Instrument, "knowsum.Instrument")  # type: ignore[type-abstract]  # mypy: an ABC as type[T]


def get_instrument(name: str) -> Instrument[Any, Any]:
    """The installed instrument ``name``.

    Raises:
        UnknownNameError: none of that name (lists the installed ones).
    """
    every = instruments()
    if name not in every:
        raise UnknownNameError("instrument", name, list(every))
    return every[name]
